// The integer streams of gnark v0.14's constraint systems: github.com/ronanh/intcomp v1.1.1's
// CompressUint32 / CompressUint64 output (docs/light-keys/gnark-v014-cs.md §1.7). A stream is a
// run of sections and a trailer word; a section of at least one block (128 u32 / 256 u64 values)
// is delta bit-packed, a shorter one delta var-byte coded. Decoded here only, and bounded: every
// count is checked against the words it claims before anything is allocated for it.

export class IntcompError extends Error {}

const BLOCK32 = 128;
const BLOCK64 = 256;

/** A u32 stream's values; `words` excludes nothing (the trailer is its last word). */
export function uncompressUint32(words: Uint32Array): Uint32Array {
  if (words.length === 0) return new Uint32Array(0);
  const end = words.length - 1;
  // Totals first, walking the section headers, so the output is allocated once and bounded.
  let total = 0;
  for (let at = 0; at < end;) {
    const count = words[at]!;
    const size = words[at + 1];
    if (size === undefined || size < 2 || at + size > end) throw new IntcompError('a section runs past the stream');
    // A block of values takes a word at least: more values than that is corrupt.
    if (count > size * BLOCK32) throw new IntcompError(`a section claims ${count} values in ${size} words`);
    total += count;
    at += size;
  }
  const out = new Uint32Array(total);
  let o = 0;
  for (let at = 0; at < end;) {
    const count = words[at]!;
    const size = words[at + 1]!;
    const next = at + size;
    if (count < BLOCK32) o = varByte32(words, at + 2, next, count, out, o);
    else o = bitPacked32(words, at, next, count, out, o);
    at = next;
  }
  return out;
}

function varByte32(words: Uint32Array, from: number, to: number, count: number, out: Uint32Array, o: number): number {
  const start = o;
  let prev = 0;
  let delta = 0;
  let shift = 0;
  // Four bytes per word, most significant first; the last word's padding is an unfinished value.
  for (let w = from; w < to; w++) {
    const word = words[w]!;
    for (let s = 24; s >= 0; s -= 8) {
      const c = (word >>> s) & 0xff;
      if (shift < 32) delta = (delta + ((c & 0x7f) << shift)) >>> 0;
      shift += 7;
      if ((c & 0x80) === 0) {
        if (o - start === count) throw new IntcompError('a var-byte section holds more values than it says');
        prev = (prev + delta) >>> 0;
        out[o++] = prev;
        delta = 0;
        shift = 0;
      }
    }
  }
  if (o - start !== count) throw new IntcompError(`a var-byte section holds ${o - start} values, not ${count}`);
  return o;
}

function bitPacked32(words: Uint32Array, at: number, to: number, count: number, out: Uint32Array, o: number): number {
  if (count % BLOCK32 !== 0) throw new IntcompError(`a bit-packed section of ${count} values is not whole blocks`);
  let prev = words[at + 2]!;
  let p = at + 3;
  for (let block = 0; block < count / BLOCK32; block++) {
    if (p >= to) throw new IntcompError('a bit-packed block runs past its section');
    const header = words[p++]!;
    for (let g = 0; g < 4; g++) {
      const byte = (header >>> (24 - 8 * g)) & 0xff;
      const zigzag = (byte & 0x80) !== 0;
      const bits = byte & 0x7f;
      if (bits > 32) throw new IntcompError(`a group of ${bits}-bit values`);
      if (p + bits > to) throw new IntcompError('a bit-packed group runs past its section');
      if (bits === 32) {
        // Full width: the values themselves.
        for (let j = 0; j < 32; j++) out[o++] = words[p + j]!;
      } else {
        const mask = 2 ** bits - 1;
        for (let j = 0; j < 32; j++) {
          const bit = j * bits;
          const k = p + (bit >>> 5);
          const s = bit & 31;
          let x = words[k]! >>> s;
          if (s + bits > 32) x |= words[k + 1]! << (32 - s);
          x = (x & mask) >>> 0;
          const d = zigzag ? (x >>> 1) ^ -(x & 1) : x;
          prev = (prev + d) >>> 0;
          out[o++] = prev;
        }
      }
      p += bits;
      prev = out[o - 1]!;
    }
  }
  if (p !== to) throw new IntcompError('a bit-packed section does not end where its header says');
  return o;
}

/** A u64 stream's values. */
export function uncompressUint64(words: BigUint64Array): BigUint64Array {
  if (words.length === 0) return new BigUint64Array(0);
  const end = words.length - 1;
  const sections: [number, number, number][] = [];
  let total = 0;
  for (let at = 0; at < end;) {
    const head = words[at]!;
    const count = Number(head & 0xffffffffn);
    const size = Number(head >> 32n);
    if (size < 1 || at + size > end) throw new IntcompError('a section runs past the stream');
    if (count > size * BLOCK64) throw new IntcompError(`a section claims ${count} values in ${size} words`);
    sections.push([at, size, count]);
    total += count;
    at += size;
  }
  const out = new Sink(total);
  for (const [at, size, count] of sections) {
    if (count < BLOCK64) varByte64(words, at + 1, at + size, count, out);
    else bitPacked64(words, at, at + size, count, out);
  }
  return out.values;
}

const M64 = (1n << 64n) - 1n;

class Sink {
  values: BigUint64Array;
  length = 0;
  constructor(n: number) {
    this.values = new BigUint64Array(n);
  }
  push(v: bigint): void {
    this.values[this.length++] = v;
  }
}

function varByte64(words: BigUint64Array, from: number, to: number, count: number, out: Sink): void {
  const start = out.length;
  let prev = 0n;
  let delta = 0n;
  let shift = 0n;
  for (let w = from; w < to; w++) {
    const word = words[w]!;
    for (let s = 56n; s >= 0n; s -= 8n) {
      const c = (word >> s) & 0xffn;
      delta = (delta + ((c & 0x7fn) << shift)) & M64;
      shift += 7n;
      if ((c & 0x80n) === 0n) {
        if (out.length - start === count) throw new IntcompError('a var-byte section holds more values than it says');
        prev = (prev + delta) & M64;
        out.push(prev);
        delta = 0n;
        shift = 0n;
      }
    }
  }
  if (out.length - start !== count)
    throw new IntcompError(`a var-byte section holds ${out.length - start} values, not ${count}`);
}

function bitPacked64(words: BigUint64Array, at: number, to: number, count: number, out: Sink): void {
  if (count % BLOCK64 !== 0) throw new IntcompError(`a bit-packed section of ${count} values is not whole blocks`);
  let prev = words[at + 1]!;
  let p = at + 2;
  for (let block = 0; block < count / BLOCK64; block++) {
    if (p >= to) throw new IntcompError('a bit-packed block runs past its section');
    const header = Number(words[p++]! & 0xffffffffn);
    for (let g = 0; g < 4; g++) {
      const byte = (header >>> (24 - 8 * g)) & 0xff;
      const zigzag = (byte & 0x80) !== 0;
      const bits = byte & 0x7f;
      if (bits > 64) throw new IntcompError(`a group of ${bits}-bit values`);
      if (p + bits > to) throw new IntcompError('a bit-packed group runs past its section');
      const b = BigInt(bits);
      const mask = (1n << b) - 1n;
      for (let j = 0; j < 64; j++) {
        let v: bigint;
        if (bits === 64) v = words[p + j]!;
        else {
          const bit = BigInt(j * bits);
          const k = p + Number(bit >> 6n);
          const s = bit & 63n;
          let x = words[k]! >> s;
          if (s + b > 64n) x |= words[k + 1]! << (64n - s);
          x &= mask;
          const d = zigzag ? (x >> 1n) ^ (-(x & 1n) & M64) : x;
          v = (prev + d) & M64;
        }
        prev = v;
        out.push(v);
      }
      p += bits;
    }
  }
  if (p !== to) throw new IntcompError('a bit-packed section does not end where its header says');
}
