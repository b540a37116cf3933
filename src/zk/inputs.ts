// Circuit inputs (the circom signals of circuits/v1.circom and v2.circom) from Merkle witnesses.
import { AppError } from '../errors.js';
import { publicInputHash } from './hash-chain.js';
import type { Shape } from './shapes.js';

export class WitnessShapeError extends AppError {
  readonly kind = 'witness_shape';
}

export interface InclusionWitness {
  root: bigint;
  leaf: bigint;
  pathIndex: number;
  pathElements: readonly bigint[];
}

export interface NonInclusionWitness {
  root: bigint;
  /** The new address. */
  value: bigint;
  /** The low element: its value, next value, next index (V1 only) and leaf index. */
  lowValue: bigint;
  nextValue: bigint;
  nextIndex: number;
  pathIndex: number;
  pathElements: readonly bigint[];
}

/** From a state-tree proof (src/state LeafProof). */
export const inclusionWitness = (p: {
  root: bigint;
  leaf: bigint;
  leafIndex: number;
  pathElements: readonly bigint[];
}): InclusionWitness => ({
  root: p.root,
  leaf: p.leaf,
  pathIndex: p.leafIndex,
  pathElements: p.pathElements,
});

/** From an address-tree non-inclusion proof (src/state NonInclusionProof). */
export const nonInclusionWitness = (p: {
  root: bigint;
  address: bigint;
  lowElement: { index: number; value: bigint; nextIndex: number; nextValue: bigint };
  pathElements: readonly bigint[];
}): NonInclusionWitness => ({
  root: p.root,
  value: p.address,
  lowValue: p.lowElement.value,
  nextValue: p.lowElement.nextValue,
  nextIndex: p.lowElement.nextIndex,
  pathIndex: p.lowElement.index,
  pathElements: p.pathElements,
});

export type CircuitInputs = Record<string, string | string[] | string[][]>;

const dec = (v: bigint | number) => v.toString();

/** Signals for `shape`; checks counts and path lengths against the shape first. */
export function circuitInputs(
  shape: Shape,
  accounts: readonly InclusionWitness[],
  addresses: readonly NonInclusionWitness[],
): CircuitInputs {
  if (accounts.length !== shape.nInclusion || addresses.length !== shape.nNonInclusion) {
    throw new WitnessShapeError(
      `${shape.name} proves ${shape.nInclusion} accounts and ${shape.nNonInclusion} addresses, got ${accounts.length} and ${addresses.length}`,
    );
  }
  for (const a of accounts) {
    if (a.pathElements.length !== shape.stateHeight) {
      throw new WitnessShapeError(
        `${shape.name} needs state paths of ${shape.stateHeight} elements, got ${a.pathElements.length}`,
      );
    }
  }
  for (const a of addresses) {
    if (a.pathElements.length !== shape.addressHeight) {
      throw new WitnessShapeError(
        `${shape.name} needs address paths of ${shape.addressHeight} elements, got ${a.pathElements.length}`,
      );
    }
  }
  const inputs: CircuitInputs = {};
  if (accounts.length > 0) {
    inputs.roots = accounts.map((a) => dec(a.root));
    inputs.leaves = accounts.map((a) => dec(a.leaf));
    inputs.inPathIndices = accounts.map((a) => dec(a.pathIndex));
    inputs.inPathElements = accounts.map((a) => a.pathElements.map(dec));
  }
  if (addresses.length > 0) {
    inputs.addressRoots = addresses.map((a) => dec(a.root));
    inputs.values = addresses.map((a) => dec(a.value));
    inputs.lowValues = addresses.map((a) => dec(a.lowValue));
    inputs.nextValues = addresses.map((a) => dec(a.nextValue));
    if (shape.version === 1) inputs.nextIndices = addresses.map((a) => dec(a.nextIndex));
    inputs.addrPathIndices = addresses.map((a) => dec(a.pathIndex));
    inputs.addrPathElements = addresses.map((a) => a.pathElements.map(dec));
  }
  if (shape.version === 2) {
    inputs.publicInputHash = dec(
      publicInputHash({
        roots: accounts.map((a) => a.root),
        leaves: accounts.map((a) => a.leaf),
        addressRoots: addresses.map((a) => a.root),
        addresses: addresses.map((a) => a.value),
      }),
    );
  }
  return inputs;
}

/** The public inputs the verifier sees, in order, for these witnesses. */
export function publicInputs(shape: Shape, inputs: CircuitInputs): bigint[] {
  if (shape.version === 2) return [BigInt(inputs.publicInputHash as string)];
  const names =
    shape.family === 'inclusion'
      ? ['roots', 'leaves']
      : shape.family === 'non-inclusion'
        ? ['addressRoots', 'values']
        : ['roots', 'leaves', 'addressRoots', 'values'];
  return names.flatMap((n) => (inputs[n] as string[]).map((x) => BigInt(x)));
}
