// A borsh reader over a byte array (Solana programs' instruction and account encoding): every read
// is bounds-checked and fails with BorshError, so hostile or truncated data can never read past its end.
export class BorshError extends Error {}

export class BorshReader {
  offset: number;

  constructor(
    readonly bytes: Uint8Array,
    offset = 0,
  ) {
    this.offset = offset;
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  private need(n: number, what: string): void {
    if (this.offset + n > this.bytes.length)
      throw new BorshError(`${what} at byte ${this.offset} needs ${n} bytes, ${this.remaining} left`);
  }

  u8(what = 'u8'): number {
    this.need(1, what);
    return this.bytes[this.offset++]!;
  }

  bool(what = 'bool'): boolean {
    const v = this.u8(what);
    if (v > 1) throw new BorshError(`${what} at byte ${this.offset - 1} is ${v}, not a bool`);
    return v === 1;
  }

  u16(what = 'u16'): number {
    this.need(2, what);
    const v = this.bytes[this.offset]! | (this.bytes[this.offset + 1]! << 8);
    this.offset += 2;
    return v;
  }

  u32(what = 'u32'): number {
    this.need(4, what);
    const b = this.bytes;
    const o = this.offset;
    this.offset += 4;
    return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16)) + b[o + 3]! * 0x1000000;
  }

  u64(what = 'u64'): bigint {
    const lo = this.u32(what);
    const hi = this.u32(what);
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  fixed(n: number, what = 'bytes'): Uint8Array {
    this.need(n, what);
    const v = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }

  option<T>(read: () => T, what = 'option'): T | null {
    const tag = this.u8(what);
    if (tag === 0) return null;
    if (tag !== 1) throw new BorshError(`${what} at byte ${this.offset - 1} has tag ${tag}`);
    return read();
  }

  /** A borsh Vec: u32 count, then the elements (the count is checked against the bytes left). */
  vec<T>(read: () => T, minSize: number, what = 'vec'): T[] {
    const n = this.u32(what);
    if (n * Math.max(1, minSize) > this.remaining)
      throw new BorshError(`${what} of ${n} elements at byte ${this.offset} exceeds the ${this.remaining} bytes left`);
    return Array.from({ length: n }, read);
  }

  /** A vector with a one-byte count (used by account-compression's insert_into_queues). */
  slice8<T>(read: () => T, size: number, what = 'slice'): T[] {
    const n = this.u8(what);
    this.need(n * size, what);
    return Array.from({ length: n }, read);
  }

  bytesVec(what = 'bytes'): Uint8Array {
    const n = this.u32(what);
    return this.fixed(n, what);
  }
}
