// The inputs of Light's circuits, in the order their constraint systems number them: gnark
// allocates the public fields of the circuit struct first, then the secret ones, each in
// declaration order, arrays element by element (docs/light-keys/r1cs-cbor-and-solver.md §6).
// Built from zkgate's circuit inputs (src/zk/inputs.ts), which a Light /prove body and zkgate's
// own trees both produce.
import { FR } from '../field.js';
import type { CircuitInputs } from '../inputs.js';
import type { Shape } from '../shapes.js';

const list = (inputs: CircuitInputs, name: string): bigint[] => ((inputs[name] as string[]) ?? []).map(BigInt);
const paths = (inputs: CircuitInputs, name: string): bigint[] =>
  ((inputs[name] as string[][]) ?? []).flatMap((p) => p.map(BigInt));

/**
 * The public inputs (without the constant wire), then the secret ones, reduced mod r as gnark puts
 * values into a witness (a caller's hex value may be up to 2^256).
 */
export function lightInputVector(shape: Shape, inputs: CircuitInputs): bigint[] {
  return vectorOf(shape, inputs).map((v) => v % FR);
}

function vectorOf(shape: Shape, inputs: CircuitInputs): bigint[] {
  const inclusion = shape.nInclusion > 0;
  const addresses = shape.nNonInclusion > 0;
  const incl = {
    roots: () => list(inputs, 'roots'),
    leaves: () => list(inputs, 'leaves'),
    indices: () => list(inputs, 'inPathIndices'),
    paths: () => paths(inputs, 'inPathElements'),
  };
  const addr = {
    roots: () => list(inputs, 'addressRoots'),
    values: () => list(inputs, 'values'),
    low: () => list(inputs, 'lowValues'),
    high: () => list(inputs, 'nextValues'),
    nextIndices: () => list(inputs, 'nextIndices'),
    indices: () => list(inputs, 'addrPathIndices'),
    paths: () => paths(inputs, 'addrPathElements'),
  };
  if (shape.version === 1) {
    // Legacy circuits: the roots and leaves (values) are the public inputs.
    return [
      ...(inclusion ? [...incl.roots(), ...incl.leaves()] : []),
      ...(addresses ? [...addr.roots(), ...addr.values()] : []),
      ...(inclusion ? [...incl.indices(), ...incl.paths()] : []),
      ...(addresses ? [...addr.low(), ...addr.high(), ...addr.nextIndices(), ...addr.indices(), ...addr.paths()] : []),
    ];
  }
  // V2: one public input, the hash of the roots and leaves; the leaf of an address tree has no next index.
  return [
    BigInt(inputs.publicInputHash as string),
    ...(inclusion ? [...incl.roots(), ...incl.leaves(), ...incl.indices(), ...incl.paths()] : []),
    ...(addresses
      ? [...addr.roots(), ...addr.values(), ...addr.low(), ...addr.high(), ...addr.indices(), ...addr.paths()]
      : []),
  ];
}

/** How many inputs a shape's Light circuit takes (public without the constant wire, and secret). */
export function lightInputCount(shape: Shape): number {
  const perAccount = 3 + shape.stateHeight;
  const perAddress = (shape.version === 1 ? 6 : 5) + shape.addressHeight;
  return (shape.version === 2 ? 1 : 0) + shape.nInclusion * perAccount + shape.nNonInclusion * perAddress;
}
