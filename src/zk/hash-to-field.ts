// Light's hash_to_bn254_field_size_be: keccak256(bytes ‖ 0xFF) with the first byte zeroed, so the
// result is below 2^248 and hence a BN254 scalar. hashv hashes the concatenation of several slices.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToBigInt } from './field.js';

export function hashvToBn254(slices: readonly Uint8Array[]): Uint8Array {
  const h = keccak_256.create();
  for (const s of slices) h.update(s);
  h.update(new Uint8Array([0xff]));
  const out = h.digest();
  out[0] = 0;
  return out;
}

export const hashToBn254 = (bytes: Uint8Array): Uint8Array => hashvToBn254([bytes]);

export const hashToBn254Field = (bytes: Uint8Array): bigint => bytesToBigInt(hashToBn254(bytes));
