// Inputs that satisfy a Light circuit, made up rather than read from a tree: a random leaf under
// random siblings (its root computed up the path), and addresses between a random low and high
// value under their low element's leaf (Light's hashes: Poseidon3(low, next index, high) in the
// V1 address tree, Poseidon2(low, high) in V2). What an imported key's test proof proves.
import { randomBytes } from 'node:crypto';
import { FR } from '../field.js';
import { circuitInputs, type CircuitInputs, type InclusionWitness, type NonInclusionWitness } from '../inputs.js';
import { poseidon } from '../poseidon.js';
import type { Shape } from '../shapes.js';

const randomField = () => BigInt('0x' + randomBytes(32).toString('hex')) % FR;
const random248 = () => BigInt('0x' + randomBytes(31).toString('hex'));

function path(leaf: bigint, height: number): { root: bigint; pathIndex: number; pathElements: bigint[] } {
  const pathIndex = randomBytes(4).readUInt32LE(0) % 2 ** Math.min(height, 31);
  const pathElements = Array.from({ length: height }, randomField);
  let node = leaf;
  for (let level = 0; level < height; level++) {
    const right = Math.floor(pathIndex / 2 ** level) % 2 === 1;
    node = right ? poseidon([pathElements[level]!, node]) : poseidon([node, pathElements[level]!]);
  }
  return { root: node, pathIndex, pathElements };
}

/** Circuit inputs for `shape` that its Light circuit accepts (Poseidon loaded first). */
export function sampleLightInputs(shape: Shape): CircuitInputs {
  const accounts: InclusionWitness[] = Array.from({ length: shape.nInclusion }, () => {
    const leaf = randomField();
    return { leaf, ...path(leaf, shape.stateHeight) };
  });
  const addresses: NonInclusionWitness[] = Array.from({ length: shape.nNonInclusion }, () => {
    const value = random248() | 1n;
    const lowValue = value - 1n;
    const nextValue = value + 1n;
    const nextIndex = randomBytes(2).readUInt16LE(0);
    const leaf =
      shape.version === 1 ? poseidon([lowValue, BigInt(nextIndex), nextValue]) : poseidon([lowValue, nextValue]);
    return { value, lowValue, nextValue, nextIndex, ...path(leaf, shape.addressHeight) };
  });
  return circuitInputs(shape, accounts, addresses);
}
