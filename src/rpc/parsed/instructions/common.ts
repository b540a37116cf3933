// Shared pieces of the instruction parsers: the error that sends an instruction back to its
// partially decoded form, a byte reader for the encodings Solana programs use (bincode, borsh,
// packed little-endian), and the `{type, info}` value every parser answers with.
import { encodeBase58 } from '../../../zk/base58.js';
import { u64 } from '../../../wire/index.js';

/** The instruction is not parsable (bad data, too few accounts): the caller falls back to the partially decoded form. */
export class NotParsable extends Error {}

export const fail = (): never => {
  throw new NotParsable();
};

export type Info = Record<string, unknown>;
/** Agave's ParsedInstructionEnum; an absent `info` is Agave's `Value::Null`, which it leaves out. */
export interface Parsed {
  type: string;
  info?: Info;
}

/** Agave's check_num_accounts. */
export function checkAccounts(accounts: readonly string[], n: number): void {
  if (accounts.length < n) fail();
}

/**
 * Agave refuses an instruction that names no account at all (its "max account index" check finds
 * none) before it looks at the data, for every program but memo and the BPF loader.
 */
export function requireAnyAccount(accounts: readonly string[]): void {
  if (accounts.length === 0) fail();
}

export const key = (accounts: readonly string[], i: number): string => accounts[i] ?? fail();

/** A u64 or i64 value for the wire: a number where exact, else a bigint. */
export const int = (v: bigint): number | bigint => u64(v);

// Rust's str::from_utf8: strict, and a leading byte-order mark stays part of the string.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return fail();
  }
}

/** Reads fixed-width little-endian fields; running past the end is NotParsable. */
export class Reader {
  private readonly view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    public offset = 0,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  private take(n: number): number {
    if (n > this.remaining) fail();
    const at = this.offset;
    this.offset += n;
    return at;
  }

  u8 = () => this.view.getUint8(this.take(1));
  u16 = () => this.view.getUint16(this.take(2), true);
  i16 = () => this.view.getInt16(this.take(2), true);
  u32 = () => this.view.getUint32(this.take(4), true);
  u64 = () => this.view.getBigUint64(this.take(8), true);
  i64 = () => this.view.getBigInt64(this.take(8), true);
  f64 = () => this.view.getFloat64(this.take(8), true);
  bytes_ = (n: number) => this.bytes.subarray(this.take(n), this.offset);
  pubkey = () => encodeBase58(this.bytes_(32));
  rest = () => this.bytes_(this.remaining);

  /** A 32-byte key where all zeros means none (spl-pod's OptionalNonZeroPubkey / MaybeNull). */
  optionalPubkey(): string | null {
    const b = this.bytes_(32);
    return b.every((x) => x === 0) ? null : encodeBase58(b);
  }

  /** serde/borsh enum and Option tags, and bools: any other value is an error. */
  flag(): boolean {
    const t = this.u8();
    return t === 1 ? true : t === 0 ? false : fail();
  }
  option<T>(read: () => T): T | null {
    return this.flag() ? read() : null;
  }

  /** bincode's String: u64 length, then UTF-8. */
  string(): string {
    const n = this.u64();
    if (n > BigInt(this.remaining)) fail();
    return decodeUtf8(this.bytes_(Number(n)));
  }
  /** bincode's Vec<T>: u64 length, then the elements. */
  vec<T>(read: () => T, minSize: number): T[] {
    const n = this.u64();
    if (n * BigInt(minSize) > BigInt(this.remaining)) fail();
    return Array.from({ length: Number(n) }, read);
  }
  /** borsh's String: u32 length, then UTF-8. */
  borshString(): string {
    return decodeUtf8(this.bytes_(this.u32()));
  }

  /** Borsh's try_from_slice and bytemuck's exact casts refuse bytes left over. */
  end(): void {
    if (this.remaining !== 0) fail();
  }
}

/**
 * Agave turns every parsed `{type, info}` into a serde_json Value, whose maps are BTreeMaps: on the
 * wire every object under `parsed` has its keys in byte order, whatever order the parser built it in.
 */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  // Keys are ASCII, where JavaScript's UTF-16 order is byte order.
  for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
  return out;
}
