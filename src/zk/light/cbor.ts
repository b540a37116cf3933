// A reader of the CBOR that gnark's constraint systems are written in (fxamacker/cbor's
// deterministic mode: definite lengths, shortest heads, Go structs as maps keyed by field name, nil
// as null, registered types behind tags). Only what those files hold; every length is checked
// against the bytes left before anything is allocated for it, and a fault names the byte it is at.
import { LightKeyFileError } from './keyfile.js';

const MAX_DEPTH = 32;

export class CborReader {
  pos = 0;
  private readonly view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    /** Prefixes every error: the file and the part of it being read. */
    private readonly where: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(what: string): never {
    throw new LightKeyFileError(`${this.where} ${what} (at byte ${this.pos} of it)`);
  }

  /** A head: major type and argument (lengths and small integers). */
  head(): [number, number] {
    const { bytes } = this;
    if (this.pos >= bytes.length) this.fail('ends early');
    const b = bytes[this.pos++]!;
    const major = b >> 5;
    const info = b & 31;
    if (info < 24) return [major, info];
    const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
    if (size === 0) this.fail(`has an indefinite or reserved head (0x${b.toString(16)})`);
    if (this.pos + size > bytes.length) this.fail('ends early');
    let v: number;
    if (size === 1) v = bytes[this.pos]!;
    else if (size === 2) v = this.view.getUint16(this.pos);
    else if (size === 4) v = this.view.getUint32(this.pos);
    else {
      const big = this.view.getBigUint64(this.pos);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) this.fail('has a length or count beyond 2^53');
      v = Number(big);
    }
    this.pos += size;
    return [major, v];
  }

  /** A uint64 at full width (coefficient limbs). */
  limb(): bigint {
    if (this.bytes[this.pos] === 0x1b) {
      if (this.pos + 9 > this.bytes.length) this.fail('ends early');
      const v = this.view.getBigUint64(this.pos + 1);
      this.pos += 9;
      return v;
    }
    const [major, v] = this.head();
    if (major !== 0) this.fail('has a coefficient limb that is not an unsigned integer');
    return BigInt(v);
  }

  uint(what: string): number {
    const [major, v] = this.head();
    if (major !== 0) this.fail(`has ${what} that is not an unsigned integer`);
    return v;
  }

  isNull(): boolean {
    if (this.bytes[this.pos] === 0xf6) {
      this.pos++;
      return true;
    }
    return false;
  }

  /** An array's length (null: 0). Every item takes a byte at least: more than the bytes left is refused. */
  arrayLen(what: string): number {
    if (this.isNull()) return 0;
    const [major, n] = this.head();
    if (major !== 4) this.fail(`has ${what} that is not an array`);
    if (n > this.bytes.length - this.pos)
      this.fail(`claims ${n} items of ${what} in ${this.bytes.length - this.pos} bytes`);
    return n;
  }

  mapLen(what: string): number {
    if (this.isNull()) return 0;
    const [major, n] = this.head();
    if (major !== 5) this.fail(`has ${what} that is not a map`);
    if (2 * n > this.bytes.length - this.pos)
      this.fail(`claims ${n} entries of ${what} in ${this.bytes.length - this.pos} bytes`);
    return n;
  }

  text(what: string): string {
    const [major, n] = this.head();
    if (major !== 3) this.fail(`has ${what} that is not a string`);
    if (this.pos + n > this.bytes.length) this.fail('ends early');
    const s = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + this.pos, n).toString('utf8');
    this.pos += n;
    return s;
  }

  /** A tag's number, or undefined (nothing read) when the next item is not tagged. */
  tag(): number | undefined {
    if (this.bytes[this.pos]! >> 5 !== 6) return undefined;
    return this.head()[1];
  }

  /** Skips one item; nesting is bounded (gnark's structs are a few levels deep), so no input exhausts the stack. */
  skip(depth = 0): void {
    if (depth > MAX_DEPTH) this.fail(`nests deeper than ${MAX_DEPTH} levels`);
    const [major, n] = this.head();
    if (major === 2 || major === 3) {
      if (this.pos + n > this.bytes.length) this.fail('ends early');
      this.pos += n;
    } else if (major === 4) for (let i = 0; i < n; i++) this.skip(depth + 1);
    else if (major === 5) for (let i = 0; i < 2 * n; i++) this.skip(depth + 1);
    else if (major === 6) this.skip(depth + 1);
    // 0, 1 (integers) and 7 (simple values: null, booleans) carry nothing more
  }

  /** A struct's fields by name, each read by `field` (which must consume it). */
  struct(what: string, field: (name: string) => void): void {
    const n = this.mapLen(what);
    for (let i = 0; i < n; i++) field(this.text(`${what}'s field name`));
  }
}
