// circom-compatible Poseidon over BN254 (circomlib constants, x^5, 8 full rounds).
// circomlibjs' WebAssembly build measured fastest of the compatible implementations on Node 20
// (≈ 56 µs per 2-input hash vs ≈ 350–490 µs for its BigInt versions); see the zk benchmark.
import { buildPoseidon, type Poseidon as WasmPoseidon } from 'circomlibjs';
import { FR } from './field.js';

export type Hasher = (inputs: readonly bigint[]) => bigint;

let loading: Promise<Hasher> | undefined;
let ready: Hasher | undefined;

/** Loads the Poseidon implementation once per thread; later calls return the same hasher. */
export function loadPoseidon(): Promise<Hasher> {
  loading ??= buildPoseidon().then((p: WasmPoseidon) => {
    const F = p.F;
    const hasher: Hasher = (inputs) => {
      if (inputs.length < 1 || inputs.length > 16)
        throw new RangeError(`Poseidon takes 1 to 16 inputs, got ${inputs.length}`);
      for (const x of inputs) {
        if (x < 0n || x >= FR) throw new RangeError(`Poseidon input is not a field element: ${x}`);
      }
      return F.toObject(p(inputs as bigint[]));
    };
    ready = hasher;
    return hasher;
  });
  return loading;
}

/** The loaded hasher; throws if loadPoseidon() has not resolved yet in this thread. */
export function poseidon(inputs: readonly bigint[]): bigint {
  if (!ready) throw new Error('Poseidon is not loaded: await loadPoseidon() first');
  return ready(inputs);
}
