// Little-endian reader for the three encodings account data comes in: bincode (native programs and
// sysvars), the fixed `Pack` layouts of SPL Token, and Borsh (token metadata). Every read is bounds
// checked and throws DecodeError, which parseAccountData turns into "not parsable", the same
// outcome Agave reaches when its deserializer returns an error.
import { encodeBase58 } from '../../../zk/base58.js';

export class DecodeError extends Error {}

/** Rust's String decoding refuses invalid UTF-8 and keeps a leading BOM; TextDecoder must be told both. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new DecodeError('invalid utf-8');
  }
}

export class Reader {
  offset: number;
  private readonly view: DataView;

  constructor(
    readonly data: Uint8Array,
    offset = 0,
  ) {
    this.offset = offset;
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  get remaining(): number {
    return this.data.length - this.offset;
  }

  private take(n: number): number {
    if (n > this.remaining) throw new DecodeError('account data ends early');
    const at = this.offset;
    this.offset += n;
    return at;
  }

  u8(): number {
    return this.view.getUint8(this.take(1));
  }
  u16(): number {
    return this.view.getUint16(this.take(2), true);
  }
  i16(): number {
    return this.view.getInt16(this.take(2), true);
  }
  u32(): number {
    return this.view.getUint32(this.take(4), true);
  }
  u64(): bigint {
    return this.view.getBigUint64(this.take(8), true);
  }
  i64(): bigint {
    return this.view.getBigInt64(this.take(8), true);
  }
  u128(): bigint {
    const lo = this.u64();
    return (this.u64() << 64n) | lo;
  }
  f64(): number {
    return this.view.getFloat64(this.take(8), true);
  }

  /** bincode and `Pack` both reject a bool byte other than 0 or 1. */
  bool(): boolean {
    const v = this.u8();
    if (v > 1) throw new DecodeError(`invalid bool ${v}`);
    return v === 1;
  }

  /** Zero-copy (Pod) booleans accept any byte: they are read as `byte != 0`. */
  podBool(): boolean {
    return this.u8() !== 0;
  }

  bytes(n: number): Uint8Array {
    const at = this.take(n);
    return this.data.subarray(at, at + n);
  }

  pubkey(): string {
    return encodeBase58(this.bytes(32));
  }

  /** SPL's nullable pubkeys (OptionalNonZeroPubkey / MaybeNull): all zeros means none. */
  nullablePubkey(): string | null {
    const b = this.bytes(32);
    return b.every((x) => x === 0) ? null : encodeBase58(b);
  }

  base64(n: number): string {
    return Buffer.from(this.bytes(n)).toString('base64');
  }

  /** bincode's Option: a one-byte tag that must be 0 or 1. */
  option<T>(read: () => T): T | null {
    const tag = this.u8();
    if (tag === 0) return null;
    if (tag !== 1) throw new DecodeError(`invalid option tag ${tag}`);
    return read();
  }

  /**
   * bincode's u64 length prefix of a Vec/VecDeque/BTreeMap. Checking it against what is left
   * refuses the same inputs bincode would (it runs out of bytes) without allocating for a
   * nonsense length first.
   */
  seqLen(elemSize: number): number {
    const n = this.u64();
    if (n * BigInt(elemSize) > BigInt(this.remaining)) throw new DecodeError('sequence longer than the data');
    return Number(n);
  }

  /** Solana's short_vec (compact-u16) length, with its refusal of aliased and overlong encodings. */
  shortVecLen(): number {
    let value = 0;
    for (let nth = 0; ; nth++) {
      const byte = this.u8();
      if (byte === 0 && nth !== 0) throw new DecodeError('short_vec alias');
      if (nth === 2 && (byte & 0x80) !== 0) throw new DecodeError('short_vec byte three continues');
      value |= (byte & 0x7f) << (nth * 7);
      if (value > 0xffff) throw new DecodeError('short_vec overflow');
      if ((byte & 0x80) === 0) return value;
    }
  }

  /** bincode String: u64 length, UTF-8. */
  bincodeString(): string {
    return decodeUtf8(this.bytes(this.seqLen(1)));
  }

  /** Borsh String: u32 length, UTF-8. */
  borshString(): string {
    return decodeUtf8(this.bytes(this.u32()));
  }
}
