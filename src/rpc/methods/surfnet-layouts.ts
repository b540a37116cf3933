// Byte layouts the cheatcodes write: an SPL Token / Token-2022 account's base (165 bytes, Pack
// layout) and the upgradeable loader's Program / ProgramData headers (bincode, fixed offsets).
import { findProgramAddress } from '../../zk/pda.js';
import type { StoredAccount } from '../../ledger/index.js';
import { decodeBase58 } from '../../zk/base58.js';
import { sameBytes } from './solana-params.js';

export const TOKEN_ACCOUNT_LEN = 165;
const ACCOUNT_TYPE_ACCOUNT = 2;
export const NATIVE_MINT = decodeBase58('So11111111111111111111111111111111111111112');
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const UPGRADEABLE_LOADER_ID = 'BPFLoaderUpgradeab1e11111111111111111111111';
export const UPGRADEABLE_LOADER = decodeBase58(UPGRADEABLE_LOADER_ID);
/** The loader's ProgramData header: tag u32, slot u64, Option<Pubkey> (always 33 bytes on chain). */
const PROGRAMDATA_HEADER = 45;

export const TOKEN_STATES = { uninitialized: 0, initialized: 1, frozen: 2 } as const;
export type TokenState = keyof typeof TOKEN_STATES;

/** A pubkey to set, null to clear (Surfpool's `"null"`), undefined to leave as it is. */
export type KeySetting = Uint8Array | null | undefined;

export interface TokenAccountUpdate {
  amount?: bigint;
  delegate?: KeySetting;
  state?: TokenState;
  delegatedAmount?: bigint;
  closeAuthority?: KeySetting;
}

/** Offsets in spl_token::state::Account's packing (COption tags are u32 LE). */
const AT = { amount: 64, delegate: 72, state: 108, isNative: 109, delegatedAmount: 121, closeAuthority: 129 };

export function associatedTokenAddress(owner: Uint8Array, mint: Uint8Array, tokenProgram: Uint8Array): Uint8Array {
  return decodeBase58(findProgramAddress([owner, tokenProgram, mint], ASSOCIATED_TOKEN_PROGRAM));
}

/** A new initialized token account's data; the native mint's carries its rent reserve (`is_native`). */
export function newTokenAccountData(mint: Uint8Array, owner: Uint8Array, nativeReserve?: bigint): Buffer {
  const d = Buffer.alloc(TOKEN_ACCOUNT_LEN);
  d.set(mint, 0);
  d.set(owner, 32);
  d[AT.state] = TOKEN_STATES.initialized;
  if (nativeReserve !== undefined) {
    d.writeUInt32LE(1, AT.isNative);
    d.writeBigUInt64LE(nativeReserve, AT.isNative + 4);
  }
  return d;
}

/** Whether an account is an initialized (or frozen) token account of `program`, extensions allowed. */
export function isTokenAccountOf(a: StoredAccount, program: Uint8Array): boolean {
  const d = a.data;
  if (!sameBytes(a.owner, program) || d.length < TOKEN_ACCOUNT_LEN) return false;
  if (d.length > TOKEN_ACCOUNT_LEN && d[TOKEN_ACCOUNT_LEN] !== ACCOUNT_TYPE_ACCOUNT) return false;
  return d[AT.state] !== TOKEN_STATES.uninitialized;
}

/** The wrapped-SOL rent reserve of a native token account, undefined for others. */
export function nativeReserve(d: Uint8Array): bigint | undefined {
  const b = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  return b.readUInt32LE(AT.isNative) === 1 ? b.readBigUInt64LE(AT.isNative + 4) : undefined;
}

export const tokenAmount = (d: Uint8Array): bigint =>
  Buffer.from(d.buffer, d.byteOffset, d.byteLength).readBigUInt64LE(AT.amount);

/** Applies an update to a copy of the data: only the base layout changes, extensions stay as they are. */
export function patchTokenAccount(data: Uint8Array, u: TokenAccountUpdate): Buffer {
  const d = Buffer.from(data);
  const setKey = (at: number, k: KeySetting) => {
    if (k === undefined) return;
    d.writeUInt32LE(k ? 1 : 0, at);
    d.set(k ?? new Uint8Array(32), at + 4);
  };
  if (u.amount !== undefined) d.writeBigUInt64LE(u.amount, AT.amount);
  setKey(AT.delegate, u.delegate);
  if (u.state !== undefined) d[AT.state] = TOKEN_STATES[u.state];
  if (u.delegatedAmount !== undefined) d.writeBigUInt64LE(u.delegatedAmount, AT.delegatedAmount);
  setKey(AT.closeAuthority, u.closeAuthority);
  return d;
}

/** The ProgramData address an upgradeable program account points at; undefined if it is not one. */
export function programDataAddress(a: StoredAccount): Uint8Array | undefined {
  const d = a.data;
  if (!sameBytes(a.owner, UPGRADEABLE_LOADER) || d.length < 36) return undefined;
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength).readUInt32LE(0) === 2 ? d.slice(4, 36) : undefined;
}

export const isProgramData = (a: StoredAccount): boolean =>
  sameBytes(a.owner, UPGRADEABLE_LOADER) &&
  a.data.length >= PROGRAMDATA_HEADER &&
  Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength).readUInt32LE(0) === 3;

/** ProgramData with another upgrade authority (none: null); the program bytes stay at offset 45. */
export function withUpgradeAuthority(programData: Uint8Array, authority: Uint8Array | null): Uint8Array {
  const d = new Uint8Array(programData);
  d[12] = authority ? 1 : 0;
  d.set(authority ?? new Uint8Array(32), 13);
  return d;
}

/** A program account (the loader's `Program` state) pointing at the ProgramData of `programId`. */
export function programAccountData(programId: Uint8Array): { data: Uint8Array; programData: Uint8Array } {
  const programData = decodeBase58(findProgramAddress([programId], UPGRADEABLE_LOADER_ID));
  const data = Buffer.alloc(36);
  data.writeUInt32LE(2, 0);
  data.set(programData, 4);
  return { data, programData };
}
