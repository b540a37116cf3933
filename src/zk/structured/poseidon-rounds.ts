// circomlib's Poseidon in its optimised layout (the constants of circomlibjs' poseidon_constants_opt,
// the same ones circuits/lib/poseidon.circom uses), written once over an algebra: numbers when
// computing a witness, linear combinations when building constraints. Only the S-boxes multiply;
// everything else is linear. One algorithm for both is what keeps the constraints and the witness
// in step.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface PoseidonAlgebra<V> {
  constant(k: bigint): V;
  add(a: V, b: V): V;
  scale(a: V, k: bigint): V;
  /** x^5, as three multiplications. */
  sbox(x: V): V;
}

interface Constants {
  C: bigint[];
  S: bigint[];
  M: bigint[][];
  P: bigint[][];
}

const PARTIAL_ROUNDS = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68];
const FULL_ROUNDS = 8;

let all: { C: string[][]; S: string[][]; M: string[][][]; P: string[][][] } | undefined;
const byWidth = new Map<number, Constants>();

function constants(t: number): Constants {
  let c = byWidth.get(t);
  if (c) return c;
  if (!all) {
    const dir = dirname(createRequire(import.meta.url).resolve('circomlibjs'));
    all = JSON.parse(readFileSync(join(dir, '..', 'src', 'poseidon_constants_opt.json'), 'utf8'));
  }
  const k = t - 2;
  c = {
    C: all!.C[k]!.map((x) => BigInt(x)),
    S: all!.S[k]!.map((x) => BigInt(x)),
    M: all!.M[k]!.map((row) => row.map((x) => BigInt(x))),
    P: all!.P[k]!.map((row) => row.map((x) => BigInt(x))),
  };
  byWidth.set(t, c);
  return c;
}

export function poseidonPermutation<V>(alg: PoseidonAlgebra<V>, inputs: readonly V[]): V {
  const n = inputs.length;
  if (n < 1 || n > 16) throw new RangeError(`Poseidon takes 1 to 16 inputs, got ${n}`);
  const t = n + 1;
  const { C, S, M, P } = constants(t);
  const half = FULL_ROUNDS / 2;
  const nP = PARTIAL_ROUNDS[t - 2]!;
  const mix = (state: V[], m: bigint[][]): V[] =>
    state.map((_, i) => {
      let acc = alg.scale(state[0]!, m[0]![i]!);
      for (let j = 1; j < t; j++) acc = alg.add(acc, alg.scale(state[j]!, m[j]![i]!));
      return acc;
    });

  let state: V[] = [alg.constant(C[0]!), ...inputs.map((x, j) => alg.add(x, alg.constant(C[j + 1]!)))];
  for (let r = 0; r < half; r++) {
    state = state.map((x, j) => alg.add(alg.sbox(x), alg.constant(C[(r + 1) * t + j]!)));
    state = mix(state, r < half - 1 ? M : P);
  }
  for (let r = 0; r < nP; r++) {
    state[0] = alg.add(alg.sbox(state[0]!), alg.constant(C[(half + 1) * t + r]!));
    const base = (t * 2 - 1) * r;
    let s0 = alg.scale(state[0]!, S[base]!);
    for (let i = 1; i < t; i++) s0 = alg.add(s0, alg.scale(state[i]!, S[base + i]!));
    for (let i = 1; i < t; i++) state[i] = alg.add(state[i]!, alg.scale(state[0]!, S[base + t + i - 1]!));
    state[0] = s0;
  }
  for (let r = 0; r < half; r++) {
    state = state.map((x, j) => {
      const y = alg.sbox(x);
      return r < half - 1 ? alg.add(y, alg.constant(C[(half + 1) * t + nP + r * t + j]!)) : y;
    });
    if (r < half - 1) state = mix(state, M);
  }
  let out = alg.scale(state[0]!, M[0]![0]!);
  for (let j = 1; j < t; j++) out = alg.add(out, alg.scale(state[j]!, M[j]![0]!));
  return out;
}
