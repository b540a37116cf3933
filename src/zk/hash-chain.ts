// The public input of Light's V2 circuits (validity-proof.md §8).
import { poseidon } from './poseidon.js';

/** TwoInputsHashChain: h = H(a[0], b[0]), then h = H(h, a[i], b[i]). Empty input hashes to 0. */
export function twoInputsHashChain(first: readonly bigint[], second: readonly bigint[]): bigint {
  if (first.length !== second.length) {
    throw new RangeError(`hash chain inputs differ in length: ${first.length} vs ${second.length}`);
  }
  if (first.length === 0) return 0n;
  let h = poseidon([first[0]!, second[0]!]);
  for (let i = 1; i < first.length; i++) h = poseidon([h, first[i]!, second[i]!]);
  return h;
}

export interface PublicInputParts {
  roots?: readonly bigint[];
  leaves?: readonly bigint[];
  addressRoots?: readonly bigint[];
  addresses?: readonly bigint[];
}

/** V2 publicInputHash: inclusion chain, non-inclusion chain, or Poseidon2 of both when combined. */
export function publicInputHash(p: PublicInputParts): bigint {
  const inc = p.roots?.length ? twoInputsHashChain(p.roots, p.leaves ?? []) : undefined;
  const non = p.addressRoots?.length ? twoInputsHashChain(p.addressRoots, p.addresses ?? []) : undefined;
  if (inc !== undefined && non !== undefined) return poseidon([inc, non]);
  if (inc !== undefined) return inc;
  if (non !== undefined) return non;
  throw new RangeError('no roots: a public input hash needs accounts or addresses');
}

/** Light's create_hash_chain: h = x[0], then h = Poseidon2(h, x[i]); empty input hashes to 0. */
export function hashChain(values: readonly bigint[]): bigint {
  if (values.length === 0) return 0n;
  let h = values[0]!;
  for (let i = 1; i < values.length; i++) h = poseidon([h, values[i]!]);
  return h;
}
