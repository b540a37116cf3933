// Params of the Solana RPC methods, checked as Agave's serde types take them: the positional
// array, pubkeys, the common config object and the account view (encoding, dataSlice).
import type { Ledger, StoredAccount } from '../../ledger/index.js';
import { decodeBase58 } from '../../zk/base58.js';
import {
  checkEncodingFits,
  parseContext,
  type AccountParseContext,
  encodeUiAccount,
  parseEncodingAndSlice,
  type AccountEncoding,
  type DataSlice,
} from '../account-encoding.js';
import { InvalidParamsError } from '../errors.js';
import { uiTokenAmount as mintUiTokenAmount } from '../parsed/accounts/token-amount.js';
import { fail, show, type Check } from '../validate.js';

export type Commitment = 'processed' | 'confirmed' | 'finalized';
const COMMITMENTS = ['processed', 'confirmed', 'finalized'];

export const invalid = (msg: string) => new InvalidParamsError(`Invalid params: ${msg}`);

export function args(v: unknown, path: string, min: number, max: number): unknown[] {
  if (v === undefined || v === null) v = [];
  if (!Array.isArray(v)) return fail(path, 'an array', v);
  if (v.length < min) throw invalid(`expected at least ${min} params, got ${v.length}`);
  if (v.length > max) throw invalid(`expected at most ${max} params, got ${v.length}`);
  return v;
}

/** A base58 string of exactly `len` bytes (a pubkey, a signature), or an invalid-params error naming it. */
export function base58Bytes(v: unknown, what: string, len: number): Uint8Array {
  if (typeof v !== 'string') throw invalid(`${what}: expected a base58 string, got ${show(v)}`);
  let b: Uint8Array;
  try {
    b = decodeBase58(v);
  } catch {
    throw invalid(`invalid ${what} ${show(v)}: not base58`);
  }
  if (b.length !== len) throw invalid(`invalid ${what} ${show(v)}: ${b.length} bytes, expected ${len}`);
  return b;
}

export const pubkey = (v: unknown, what = 'pubkey'): Uint8Array => base58Bytes(v, what, 32);

export interface CommonConfig {
  commitment?: Commitment;
  encoding?: string;
  [k: string]: unknown;
}

export function config(v: unknown): CommonConfig {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid(`config: expected an object, got ${show(v)}`);
  const c = v as CommonConfig;
  if (c.commitment !== undefined && !COMMITMENTS.includes(c.commitment))
    throw invalid(`unknown commitment ${show(c.commitment)}, expected one of ${COMMITMENTS.join(', ')}`);
  return c;
}

/** The params array as it came (methods that check their elements themselves). */
export const raw: Check<unknown[]> = (v, path) =>
  v === undefined || v === null ? [] : Array.isArray(v) ? v : fail(path, 'an array', v);

export interface AccountView {
  encoding: AccountEncoding;
  dataSlice: DataSlice | undefined;
  /** What jsonParsed reads besides the account (a token account's mint, the clock). */
  ctx: AccountParseContext;
}

/** Encoding and slice of an account-returning call; a validator's default encoding is `binary`. */
export function accountView(c: CommonConfig, ledger: Ledger): AccountView {
  return { ...parseEncodingAndSlice(c.encoding, c.dataSlice), ctx: parseContext(ledger) };
}

export function renderAccount(pubkey: Uint8Array, a: StoredAccount | undefined, v: AccountView) {
  if (!a) return null;
  checkEncodingFits(a, v.encoding, v.dataSlice);
  return encodeUiAccount(pubkey, a, v.encoding, v.dataSlice, v.ctx);
}

export { sameBytes } from '../../util/same-bytes.js';

/** A u64 amount as Agave's UiTokenAmount (its field order) for a mint without UI-amount extensions. */
export const uiTokenAmount = (amount: bigint, decimals: number) =>
  mintUiTokenAmount(amount, { decimals, unixTimestamp: () => 0n });
