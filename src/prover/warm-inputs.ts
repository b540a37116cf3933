// Inputs that satisfy a validity circuit with no tree behind them, for the start-up warm-up: each
// worker calculates one witness from them before /health turns ready, so the first run of its
// witness path (the calculator's JavaScript, and for a shape's code whatever V8 left to its first
// call) is not a caller's first proof.
//
// Each account is leaf 1 at index 0 of a tree whose other leaves are zero; each address is 2,
// between the low element 1 and its next value 3, in the same kind of tree. Roots are computed
// here, so every constraint holds (the witness calculator checks them).
import { circuitInputs, type CircuitInputs, type InclusionWitness, type NonInclusionWitness } from '../zk/inputs.js';
import { poseidon } from '../zk/poseidon.js';
import type { Shape } from '../zk/shapes.js';

/** The root over `leaf` at index 0 with zero siblings. */
function zeroPathRoot(leaf: bigint, height: number): bigint {
  let cur = leaf;
  for (let k = 0; k < height; k++) cur = poseidon([cur, 0n]);
  return cur;
}

/** Valid inputs for a validity shape (Poseidon loaded); undefined for batch circuits. */
export function warmUpInputs(shape: Shape): CircuitInputs | undefined {
  if (shape.batchSize > 0) return undefined;
  const account: InclusionWitness = {
    root: zeroPathRoot(1n, shape.stateHeight),
    leaf: 1n,
    pathIndex: 0,
    pathElements: new Array<bigint>(shape.stateHeight).fill(0n),
  };
  const low = { lowValue: 1n, nextIndex: 1, nextValue: 3n };
  const lowLeaf =
    shape.version === 1
      ? poseidon([low.lowValue, BigInt(low.nextIndex), low.nextValue])
      : poseidon([low.lowValue, low.nextValue]);
  const address: NonInclusionWitness = {
    root: zeroPathRoot(lowLeaf, shape.addressHeight),
    value: 2n,
    ...low,
    pathIndex: 0,
    pathElements: new Array<bigint>(shape.addressHeight).fill(0n),
  };
  return circuitInputs(
    shape,
    new Array<InclusionWitness>(shape.nInclusion).fill(account),
    new Array<NonInclusionWitness>(shape.nNonInclusion).fill(address),
  );
}
