// Groth16 proofs in the formats around zkgate (validity-proof.md §10):
//  - snarkjs: pi_a/pi_b/pi_c, decimal strings, B as [c0, c1] pairs;
//  - Light's raw prover output: ar/bs/krs, 0x-hex, B with the imaginary part first;
//  - Light's compressed proof (what getValidityProof returns and programs verify): A negated,
//    then A and C as 32-byte x with flags, B as 64-byte x.c1 ‖ x.c0 with flags. Byte 0 carries
//    0x80 when y is the "negative" root (y > p - y; for G2 compared c1 first, then c0) and 0x40
//    for the point at infinity (all-zero points compress to zeros).
import { bn254 } from '@noble/curves/bn254.js';
import type { Groth16Proof } from 'snarkjs';
import { bigIntToBytes32, bytesToBigInt, FP, toHex32 } from './field.js';

export interface G1 {
  x: bigint;
  y: bigint;
}
export interface Fp2 {
  c0: bigint;
  c1: bigint;
}
export interface G2 {
  x: Fp2;
  y: Fp2;
}
/** Affine points; the point at infinity is (0, 0). */
export interface ProofPoints {
  a: G1;
  b: G2;
  c: G1;
}

export interface CompressedProof {
  a: number[];
  b: number[];
  c: number[];
}

export interface RawProof {
  ar: [string, string];
  bs: [[string, string], [string, string]];
  krs: [string, string];
}

const NEGATIVE = 0x80;
const INFINITY = 0x40;

const negFp = (v: bigint): bigint => (v === 0n ? 0n : FP - v);

export function fromSnarkjs(p: Groth16Proof): ProofPoints {
  const g1 = (v: string[]): G1 => (v[2] === '0' ? { x: 0n, y: 0n } : { x: BigInt(v[0]!), y: BigInt(v[1]!) });
  const b = p.pi_b;
  return {
    a: g1(p.pi_a),
    b: { x: { c0: BigInt(b[0]![0]!), c1: BigInt(b[0]![1]!) }, y: { c0: BigInt(b[1]![0]!), c1: BigInt(b[1]![1]!) } },
    c: g1(p.pi_c),
  };
}

export function toRaw(p: ProofPoints): RawProof {
  return {
    ar: [toHex32(p.a.x), toHex32(p.a.y)],
    bs: [
      [toHex32(p.b.x.c1), toHex32(p.b.x.c0)],
      [toHex32(p.b.y.c1), toHex32(p.b.y.c0)],
    ],
    krs: [toHex32(p.c.x), toHex32(p.c.y)],
  };
}

export function fromRaw(r: RawProof): ProofPoints {
  const h = (s: string) => BigInt(s.startsWith('0x') ? s : `0x${s}`);
  return {
    a: { x: h(r.ar[0]), y: h(r.ar[1]) },
    b: { x: { c1: h(r.bs[0][0]), c0: h(r.bs[0][1]) }, y: { c1: h(r.bs[1][0]), c0: h(r.bs[1][1]) } },
    c: { x: h(r.krs[0]), y: h(r.krs[1]) },
  };
}

export function compressG1(p: G1): Uint8Array {
  const out = bigIntToBytes32(p.x);
  if (p.x === 0n && p.y === 0n) return out;
  if (p.y > negFp(p.y)) out[0]! |= NEGATIVE;
  return out;
}

export function compressG2(p: G2): Uint8Array {
  const out = new Uint8Array(64);
  out.set(bigIntToBytes32(p.x.c1), 0);
  out.set(bigIntToBytes32(p.x.c0), 32);
  if (p.x.c0 === 0n && p.x.c1 === 0n && p.y.c0 === 0n && p.y.c1 === 0n) return out;
  const n1 = negFp(p.y.c1);
  const n0 = negFp(p.y.c0);
  if (p.y.c1 > n1 || (p.y.c1 === n1 && p.y.c0 > n0)) out[0]! |= NEGATIVE;
  return out;
}

/** Light's format: negate A, then compress A, B, C. */
export function compressProof(p: ProofPoints): CompressedProof {
  const negA = { x: p.a.x, y: negFp(p.a.y) };
  return { a: [...compressG1(negA)], b: [...compressG2(p.b)], c: [...compressG1(p.c)] };
}

const { Fp, Fp2: F2 } = bn254.fields;

export function decompressG1(bytes: Uint8Array): G1 {
  if (bytes.length !== 32) throw new RangeError('a compressed G1 point has 32 bytes');
  const flags = bytes[0]! & (NEGATIVE | INFINITY);
  const xb = Uint8Array.from(bytes);
  xb[0]! &= ~(NEGATIVE | INFINITY);
  const x = bytesToBigInt(xb);
  if (flags & INFINITY || (x === 0n && flags === 0)) return { x: 0n, y: 0n };
  const y0 = Fp.sqrt(Fp.add(Fp.mul(Fp.sqr(x), x), 3n));
  const negative = (flags & NEGATIVE) !== 0;
  const y = y0 > negFp(y0) === negative ? y0 : negFp(y0);
  return { x, y };
}

export function decompressG2(bytes: Uint8Array): G2 {
  if (bytes.length !== 64) throw new RangeError('a compressed G2 point has 64 bytes');
  const flags = bytes[0]! & (NEGATIVE | INFINITY);
  const xb = Uint8Array.from(bytes);
  xb[0]! &= ~(NEGATIVE | INFINITY);
  const x = { c1: bytesToBigInt(xb.subarray(0, 32)), c0: bytesToBigInt(xb.subarray(32)) };
  if (flags & INFINITY || (x.c0 === 0n && x.c1 === 0n && flags === 0))
    return { x: { c0: 0n, c1: 0n }, y: { c0: 0n, c1: 0n } };
  const b = bn254.G2.Point.CURVE().b;
  const rhs = F2.add(F2.mul(F2.sqr(x), x), b);
  const y0 = F2.sqrt(rhs);
  const n = { c0: negFp(y0.c0), c1: negFp(y0.c1) };
  const y0Negative = y0.c1 > n.c1 || (y0.c1 === n.c1 && y0.c0 > n.c0);
  const y = y0Negative === ((flags & NEGATIVE) !== 0) ? y0 : n;
  return { x, y };
}

/** Inverse of compressProof: the original proof points (A negated back). */
export function decompressProof(c: CompressedProof): ProofPoints {
  const negA = decompressG1(Uint8Array.from(c.a));
  return {
    a: { x: negA.x, y: negFp(negA.y) },
    b: decompressG2(Uint8Array.from(c.b)),
    c: decompressG1(Uint8Array.from(c.c)),
  };
}
