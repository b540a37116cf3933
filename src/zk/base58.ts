// Base58 (Bitcoin alphabet), as Solana writes pubkeys, hashes and signatures. Answers of the Photon
// and Solana methods carry dozens of these per call, so the conversion works on limbs of 58^5
// (encode) and 2^32 (decode) in exact float arithmetic instead of one byte or digit at a time:
// about twice @scure/base's generic radix conversion for 32 bytes (test/zk/base58.test.ts checks they agree).
import { bigIntToBytes32, bytesToBigInt } from './field.js';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const DIGIT = new Int8Array(128).fill(-1);
CODES.forEach((c, i) => (DIGIT[c] = i));
const B5 = 58 ** 5;
const INV_B5 = 1 / B5;
const TWO32 = 2 ** 32;
const INV_TWO32 = 2 ** -32;

// Scratch space reused by every call (JavaScript runs one call at a time on a thread).
let limbs = new Float64Array(64);
let chars = Buffer.alloc(512);
function scratch(nLimbs: number, nChars: number): void {
  if (limbs.length < nLimbs) limbs = new Float64Array(nLimbs);
  if (chars.length < nChars) chars = Buffer.alloc(nChars);
}

export function encodeBase58(bytes: Uint8Array): string {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  scratch(Math.ceil((n - zeros) * 0.2731) + 2, n + Math.ceil(n * 0.2731 + 2) * 5);
  // Little-endian limbs in base 58^5, fed two bytes at a time: a limb × 2^16 + carry < 2^53.
  const L = limbs;
  let used = 0;
  let i = zeros;
  if ((n - i) & 1) {
    L[0] = bytes[i++]!;
    used = L[0] > 0 ? 1 : 0;
  }
  for (; i < n; i += 2) {
    let carry = bytes[i]! * 256 + bytes[i + 1]!;
    for (let j = 0; j < used; j++) {
      const x = L[j]! * 65536 + carry;
      // Division by a multiplication, corrected where rounding missed by one.
      let q = Math.floor(x * INV_B5);
      let r = x - q * B5;
      if (r < 0) {
        q--;
        r += B5;
      } else if (r >= B5) {
        q++;
        r -= B5;
      }
      L[j] = r;
      carry = q;
    }
    if (carry > 0) L[used++] = carry; // below 2^16 + 1, one limb
  }
  // Digits from the least significant end; the top limb's leading zero digits are dropped after.
  const C = chars;
  const end = zeros + used * 5;
  let p = end;
  for (let j = 0; j < used; j++) {
    let v = L[j]!;
    for (let k = 0; k < 5; k++) {
      const q = (v / 58) | 0;
      C[--p] = CODES[v - q * 58]!;
      v = q;
    }
  }
  let start = zeros;
  while (start < end && C[start] === 49) start++;
  C.fill(49, start - zeros, start);
  return C.toString('latin1', start - zeros, end);
}

export function decodeBase58(s: string): Uint8Array {
  const n = s.length;
  let zeros = 0;
  while (zeros < n && s.charCodeAt(zeros) === 49) zeros++;
  scratch(Math.ceil((n - zeros) * 0.1831) + 2, 0);
  // Little-endian limbs in base 2^32, fed three digits (58^3) at a time: below 2^53. The first
  // group takes what is left over so the others are whole.
  const L = limbs;
  let used = 0;
  let i = zeros;
  let take = (n - zeros) % 3 || 3;
  while (i < n) {
    let carry = 0;
    let m = 1;
    for (const stop = i + take; i < stop; i++) {
      const c = s.charCodeAt(i);
      const d = c < 128 ? DIGIT[c]! : -1;
      if (d < 0) throw new SyntaxError(`invalid base58 character ${JSON.stringify(s[i])} at position ${i}`);
      carry = carry * 58 + d;
      m *= 58;
    }
    take = 3;
    for (let j = 0; j < used; j++) {
      const x = L[j]! * m + carry;
      carry = Math.floor(x * INV_TWO32); // exact: a power of two
      L[j] = x - carry * TWO32;
    }
    if (carry > 0) L[used++] = carry; // below 58^3, one limb
  }
  const top = used > 0 ? L[used - 1]! : 0;
  const topBytes = top >= 16777216 ? 4 : top >= 65536 ? 3 : top >= 256 ? 2 : top > 0 ? 1 : 0;
  const out = new Uint8Array(zeros + (used > 0 ? (used - 1) * 4 + topBytes : 0));
  let p = out.length;
  for (let j = 0; j < used; j++) {
    const w = L[j]! >>> 0;
    out[--p] = w;
    if (p > zeros) out[--p] = w >>> 8;
    if (p > zeros) out[--p] = w >>> 16;
    if (p > zeros) out[--p] = w >>> 24;
  }
  return out;
}

/** A 32-byte base58 value (hash, pubkey) as a field element / integer. */
export function base58ToBigInt(s: string): bigint {
  const bytes = decodeBase58(s);
  if (bytes.length !== 32) throw new RangeError(`expected 32 bytes, ${JSON.stringify(s)} decodes to ${bytes.length}`);
  return bytesToBigInt(bytes);
}

export const bigIntToBase58 = (v: bigint): string => encodeBase58(bigIntToBytes32(v));
