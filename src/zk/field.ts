// BN254 constants and the byte encodings zkgate uses for field elements (32-byte big-endian).

/** Scalar field modulus r: circuits, Poseidon and public inputs live here. */
export const FR = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
/** Base field modulus p: curve point coordinates. */
export const FP = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;
/** Indexed-tree values (addresses) are below 2^248; the highest element is 2^248 - 1. */
export const ADDRESS_BOUND = 1n << 248n;
export const HIGHEST_ADDRESS_PLUS_ONE = ADDRESS_BOUND - 1n;

// Through hex: a byte at a time made two bigints per byte, which ingest's garbage was full of.
export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  return BigInt('0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex'));
}

export function bigIntToBytes32(v: bigint): Uint8Array {
  if (v < 0n || v >= 1n << 256n) throw new RangeError(`value does not fit in 32 bytes: ${v}`);
  const out = new Uint8Array(32);
  Buffer.from(out.buffer).write(v.toString(16).padStart(64, '0'), 'hex');
  return out;
}

export const toHex32 = (v: bigint): string => '0x' + v.toString(16).padStart(64, '0');

export function fromHex(s: string): bigint {
  const clean = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s;
  if (!/^[0-9a-fA-F]{1,64}$/.test(clean)) throw new RangeError(`not a hex field element: ${JSON.stringify(s)}`);
  return BigInt('0x' + clean);
}

export const mod = (a: bigint, m: bigint): bigint => {
  const r = a % m;
  return r < 0n ? r + m : r;
};

export function modPow(base: bigint, exp: bigint, m: bigint): bigint {
  let result = 1n;
  let b = mod(base, m);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return result;
}

/** Multiplicative inverse modulo a prime (Fermat). */
export const modInv = (a: bigint, m: bigint): bigint => {
  if (mod(a, m) === 0n) throw new RangeError('inverse of zero');
  return modPow(a, m - 2n, m);
};

/** v as n little-endian bytes at buf[offset] (zkey, wtns and coefficient encodings). */
export function writeLE(buf: Uint8Array, offset: number, v: bigint, n = 32): void {
  let x = v;
  for (let i = 0; i < n; i++) {
    buf[offset + i] = Number(x & 0xffn);
    x >>= 8n;
  }
}

/** 32-byte little-endian scalars (as 64-bit limbs: millions per key, a byte loop is too slow). */
export function scalarsToBytes(values: readonly bigint[]): Uint8Array {
  const limbs = new BigUint64Array(values.length * 4);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    limbs[4 * i] = BigInt.asUintN(64, v);
    limbs[4 * i + 1] = BigInt.asUintN(64, v >> 64n);
    limbs[4 * i + 2] = BigInt.asUintN(64, v >> 128n);
    limbs[4 * i + 3] = v >> 192n;
  }
  return new Uint8Array(limbs.buffer);
}

/** 32-byte little-endian scalars back to bigints. */
export function bytesToScalars(bytes: Uint8Array): bigint[] {
  const limbs = new BigUint64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
  const out = new Array<bigint>(limbs.length / 4);
  for (let i = 0; i < out.length; i++)
    out[i] = limbs[4 * i]! | (limbs[4 * i + 1]! << 64n) | (limbs[4 * i + 2]! << 128n) | (limbs[4 * i + 3]! << 192n);
  return out;
}
