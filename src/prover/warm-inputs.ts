// Inputs that satisfy a validity circuit with no tree behind them, for the start-up warm-up: each
// worker calculates one witness from them before /health turns ready, so the first run of its
// witness path (the calculator's JavaScript, and for a shape's code whatever V8 left to its first
// call) is not a caller's first proof.
//
// Each account is leaf 1 at index 0 of a tree whose path holds made-up siblings; each address is
// 2, between the low element 1 and its next value 3, in the same kind of tree. Roots are computed
// here, so every constraint holds (the witness calculator checks them). The siblings are field
// elements of full size, as a real tree's are: with zeros, the warm-up proof's witness was mostly
// zeros and ones, which the prover skips, and the first real proof still ran 1.3–1.5× its
// steady time.
import { circuitInputs, type CircuitInputs, type InclusionWitness, type NonInclusionWitness } from '../zk/inputs.js';
import { poseidon } from '../zk/poseidon.js';
import type { Shape } from '../zk/shapes.js';

/** Made-up siblings for a path of `height`: Poseidon hashes of the levels, full-size field elements. */
const siblings = (height: number): bigint[] => Array.from({ length: height }, (_, k) => poseidon([BigInt(k + 1)]));

/** The root over `leaf` at index 0 with these siblings. */
function pathRoot(leaf: bigint, path: readonly bigint[]): bigint {
  let cur = leaf;
  for (const sibling of path) cur = poseidon([cur, sibling]);
  return cur;
}

/** Valid inputs for a validity shape (Poseidon loaded); undefined for batch circuits. */
export function warmUpInputs(shape: Shape): CircuitInputs | undefined {
  if (shape.batchSize > 0) return undefined;
  const statePath = siblings(shape.stateHeight);
  const account: InclusionWitness = {
    root: pathRoot(1n, statePath),
    leaf: 1n,
    pathIndex: 0,
    pathElements: statePath,
  };
  const low = { lowValue: 1n, nextIndex: 1, nextValue: 3n };
  const lowLeaf =
    shape.version === 1
      ? poseidon([low.lowValue, BigInt(low.nextIndex), low.nextValue])
      : poseidon([low.lowValue, low.nextValue]);
  const addressPath = siblings(shape.addressHeight);
  const address: NonInclusionWitness = {
    root: pathRoot(lowLeaf, addressPath),
    value: 2n,
    ...low,
    pathIndex: 0,
    pathElements: addressPath,
  };
  return circuitInputs(
    shape,
    new Array<InclusionWitness>(shape.nInclusion).fill(account),
    new Array<NonInclusionWitness>(shape.nNonInclusion).fill(address),
  );
}
