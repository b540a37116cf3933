// Accounts in the RPC's JSON form (UiAccount) in the encodings a validator offers, with dataSlice,
// and the account filters of getProgramAccounts / programSubscribe. Validated once, at the boundary.
import type { Ledger, StoredAccount } from '../ledger/index.js';
import { zstdCompress } from '../util/zstd.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import { InvalidParamsError, InvalidRequestError } from './errors.js';
import { u64 } from '../wire/index.js';
import { parseAccountData, type AccountParseContext } from './parsed/accounts/index.js';
import { show } from './validate.js';

export const ACCOUNT_ENCODINGS = ['binary', 'base58', 'base64', 'base64+zstd', 'jsonParsed'] as const;
export type AccountEncoding = (typeof ACCOUNT_ENCODINGS)[number];
export type { AccountParseContext };

/** What account-decoder reads from the ledger: other accounts (mints) and the clock. */
export const parseContext = (ledger: Ledger): AccountParseContext => ({
  accountData: (k) => ledger.getAccount(k),
  unixTimestamp: () => ledger.vm.getClock().unixTimestamp,
});

export interface DataSlice {
  offset: number;
  length: number;
}

/** Agave refuses base58 answers for more than this many bytes of data (MAX_BASE58_BYTES). */
const MAX_BASE58_BYTES = 128;

const invalid = (msg: string) => new InvalidParamsError(`Invalid params: ${msg}`);

export function parseAccountEncoding(v: unknown, fallback: AccountEncoding): AccountEncoding {
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'string' && (ACCOUNT_ENCODINGS as readonly string[]).includes(v)) return v as AccountEncoding;
  throw invalid(`unknown variant ${show(v)}, expected one of ${ACCOUNT_ENCODINGS.map((e) => `\`${e}\``).join(', ')}`);
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

export function parseDataSlice(v: unknown): DataSlice | undefined {
  if (v === undefined || v === null) return undefined;
  const s = v as { offset?: unknown; length?: unknown };
  if (typeof v !== 'object' || Array.isArray(v) || !isCount(s.offset) || !isCount(s.length))
    throw invalid(`dataSlice: expected {offset, length} with non-negative integers, got ${show(v)}`);
  return { offset: s.offset, length: s.length };
}

/**
 * Agave's checks of an account view: jsonParsed takes no dataSlice, and base58 answers hold at most
 * 128 bytes of (sliced) data; both answered as -32600 so clients know to ask otherwise.
 */
export function checkSliceAndEncoding(encoding: AccountEncoding, slice: DataSlice | undefined): void {
  if (encoding === 'jsonParsed' && slice)
    throw new InvalidRequestError('Sliced account data can only be encoded using binary (base 58) or base64 encoding.');
}

/** An account-returning call's `encoding` and `dataSlice` (default encoding `binary`, as validators), checked together. */
export function parseEncodingAndSlice(
  encoding: unknown,
  dataSlice: unknown,
): { encoding: AccountEncoding; dataSlice: DataSlice | undefined } {
  const e = parseAccountEncoding(encoding, 'binary');
  const slice = parseDataSlice(dataSlice);
  checkSliceAndEncoding(e, slice);
  return { encoding: e, dataSlice: slice };
}

export function checkEncodingFits(a: StoredAccount, encoding: AccountEncoding, slice: DataSlice | undefined): void {
  if (encoding !== 'binary' && encoding !== 'base58') return;
  const n = sliced(a.data, slice).length;
  if (n > MAX_BASE58_BYTES)
    throw new InvalidRequestError(
      `Encoded binary (base 58) data should be less than ${MAX_BASE58_BYTES} bytes, please use Base64 encoding.`,
    );
}

function sliced(data: Uint8Array, slice: DataSlice | undefined): Uint8Array {
  if (!slice) return data;
  const start = Math.min(slice.offset, data.length);
  return data.subarray(start, Math.min(data.length, start + slice.length));
}

const base64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');

/**
 * UiAccount: `binary` is the legacy form (a bare base58 string), the others `[data, encoding]`;
 * jsonParsed is account-decoder's form where the owner is a program it knows (it needs `ctx` to
 * read a token account's mint), else base64, as Agave falls back.
 */
export function encodeUiAccount(
  pubkey: Uint8Array,
  a: StoredAccount,
  encoding: AccountEncoding = 'base64',
  slice?: DataSlice,
  ctx?: AccountParseContext,
) {
  let data: unknown;
  if (encoding === 'jsonParsed') {
    data = (ctx && parseAccountData(pubkey, a.owner, a.data, ctx)) ?? [base64(a.data), 'base64'];
  } else {
    const bytes = sliced(a.data, slice);
    data =
      encoding === 'binary'
        ? encodeBase58(bytes)
        : encoding === 'base58'
          ? [encodeBase58(bytes), 'base58']
          : encoding === 'base64'
            ? [base64(bytes), 'base64']
            : [base64(zstdCompress(bytes)), 'base64+zstd'];
  }
  return {
    data,
    executable: a.executable,
    lamports: u64(a.lamports),
    owner: encodeBase58(a.owner),
    rentEpoch: u64(a.rentEpoch),
    space: a.data.length,
  };
}

// --- filters (getProgramAccounts, programSubscribe) ---

export type AccountFilter =
  | { kind: 'dataSize'; size: number }
  | { kind: 'memcmp'; offset: number; bytes: Uint8Array }
  | { kind: 'tokenAccountState' };

const MAX_FILTERS = 4;
const MAX_MEMCMP_BYTES = 128;
const TOKEN_ACCOUNT_LEN = 165;

export function parseFilters(v: unknown): AccountFilter[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid(`filters: expected an array, got ${show(v)}`);
  if (v.length > MAX_FILTERS) throw invalid(`Too many filters provided; max ${MAX_FILTERS}`);
  return v.map((f, i) => parseFilter(f, `filters[${i}]`));
}

function parseFilter(f: unknown, at: string): AccountFilter {
  if (typeof f !== 'object' || f === null || Array.isArray(f)) throw invalid(`${at}: expected an object`);
  const keys = Object.keys(f);
  if (keys.length !== 1)
    throw invalid(`${at}: expected exactly one of dataSize, memcmp, tokenAccountState, got ${show(f)}`);
  const o = f as Record<string, unknown>;
  if ('dataSize' in o) {
    if (!isCount(o.dataSize)) throw invalid(`${at}.dataSize: expected a non-negative integer`);
    return { kind: 'dataSize', size: o.dataSize };
  }
  if ('tokenAccountState' in o) return { kind: 'tokenAccountState' };
  if ('memcmp' in o) {
    const m = o.memcmp as { offset?: unknown; bytes?: unknown; encoding?: unknown };
    if (typeof m !== 'object' || m === null) throw invalid(`${at}.memcmp: expected {offset, bytes, encoding?}`);
    if (!isCount(m.offset)) throw invalid(`${at}.memcmp.offset: expected a non-negative integer`);
    if (typeof m.bytes !== 'string') throw invalid(`${at}.memcmp.bytes: expected an encoded string`);
    const encoding = m.encoding ?? 'base58';
    let bytes: Uint8Array;
    if (encoding === 'base58') {
      try {
        bytes = decodeBase58(m.bytes);
      } catch {
        throw invalid(`${at}.memcmp.bytes: not base58`);
      }
    } else if (encoding === 'base64') {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(m.bytes)) throw invalid(`${at}.memcmp.bytes: not base64`);
      bytes = new Uint8Array(Buffer.from(m.bytes, 'base64'));
    } else throw invalid(`${at}.memcmp.encoding: expected base58 or base64, got ${show(encoding)}`);
    if (bytes.length > MAX_MEMCMP_BYTES)
      throw invalid(`${at}.memcmp: ${bytes.length} bytes to compare, the most is ${MAX_MEMCMP_BYTES}`);
    return { kind: 'memcmp', offset: m.offset, bytes };
  }
  throw invalid(`${at}: unknown filter ${show(keys[0])}, expected dataSize, memcmp or tokenAccountState`);
}

export function matchesFilters(a: StoredAccount, filters: readonly AccountFilter[]): boolean {
  for (const f of filters) {
    if (f.kind === 'dataSize') {
      if (a.data.length !== f.size) return false;
    } else if (f.kind === 'memcmp') {
      const end = f.offset + f.bytes.length;
      if (end > a.data.length) return false;
      for (let i = 0; i < f.bytes.length; i++) if (a.data[f.offset + i] !== f.bytes[i]) return false;
    } else if (a.data.length < TOKEN_ACCOUNT_LEN || a.data[108] === 0) {
      // An initialized SPL token account: account state (offset 108) not Uninitialized.
      return false;
    }
  }
  return true;
}
