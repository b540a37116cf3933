// Deterministic development setup: derives Groth16 toxic waste (tau, alpha, beta, delta; gamma = 1
// as in snarkjs) from a seed and writes a standard snarkjs .zkey directly, with no powers-of-tau
// file and no "prepare phase2" (30-40 minutes for 2^16 on two cores). The zkey holds what
// snarkjs' own setup would write for that waste:
//   A_i = u_i(tau)·G1, B1_i = v_i(tau)·G1, B2_i = v_i(tau)·G2          (all wires)
//   IC_i = (beta·u_i + alpha·v_i + w_i)·G1                              (one + public wires)
//   C_i  = (beta·u_i + alpha·v_i + w_i)/delta·G1                        (private wires)
//   H_i  = L^{2n}_{2i+1}(tau)/delta·G1                                  (odd points of the 2n domain,
//          matching the prover's evaluation of A·B - C on the odd coset)
// where u, v, w are the QAP polynomials over the n-point domain, with snarkjs' extra rows
// "A[nConstraints + s] = 1" for the one and public wires. ANYONE WHO KNOWS THE SEED CAN FORGE
// PROOFS: dev keys are for development and tests only.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { FR, mod, modInv, modPow, scalarsToBytes } from '../field.js';
import { parseR1cs } from '../r1cs.js';
import { PISCINA_EXEC_ARGV, workerUrl } from '../../util/worker-url.js';
import { loadNativeAddon } from '../native-addon.js';
import { groth16HeaderSection, writeZkey, type ZkeySections } from '../zkey.js';
import type { FixedBaseTask } from './fixed-base.worker.js';
import { QapPass, type ConstraintPass } from './qap.js';

const R = FR;
/** 2-adicity of r - 1 and the generator snarkjs (ffjavascript) derives roots of unity from. */
const TWO_ADICITY = 28;
const NQR = 5n;

export interface ToxicWaste {
  tau: bigint;
  alpha: bigint;
  beta: bigint;
  delta: bigint;
}

/** Non-zero field elements from seed and label, domain-separated per value. */
export function deriveToxicWaste(seed: string, label: string): ToxicWaste {
  const f = (name: string) => {
    for (let ctr = 0; ; ctr++) {
      const h = createHash('sha512').update(`zkgate-dev-setup\0${seed}\0${label}\0${name}\0${ctr}`).digest();
      const v = BigInt('0x' + h.toString('hex')) % R;
      if (v > 1n) return v;
    }
  };
  return { tau: f('tau'), alpha: f('alpha'), beta: f('beta'), delta: f('delta') };
}

/** The primitive 2^k-th root of unity snarkjs uses (ffjavascript's Fr.w[k]). */
export function rootOfUnity(k: number): bigint {
  if (k > TWO_ADICITY) throw new RangeError(`no 2^${k}-th root of unity in the scalar field`);
  const t = (R - 1n) >> BigInt(TWO_ADICITY);
  let w = modPow(NQR, t, R);
  for (let i = TWO_ADICITY; i > k; i--) w = (w * w) % R;
  return w;
}

export function batchInverse(values: bigint[]): bigint[] {
  const prefix = new Array<bigint>(values.length);
  let acc = 1n;
  for (let i = 0; i < values.length; i++) {
    prefix[i] = acc;
    acc = (acc * values[i]!) % R;
  }
  let inv = modInv(acc, R);
  const out = new Array<bigint>(values.length);
  for (let i = values.length - 1; i >= 0; i--) {
    out[i] = (inv * prefix[i]!) % R;
    inv = (inv * values[i]!) % R;
  }
  return out;
}

/** L_j(tau) for the domain of size 2^k, for the requested j (ascending), as in snarkjs' ptau sections. */
function lagrangeAt(tau: bigint, k: number, indices: number[]): bigint[] {
  const n = 1n << BigInt(k);
  const w = rootOfUnity(k);
  const points: bigint[] = [];
  let wj = 1n;
  let next = 0;
  for (let j = 0; next < indices.length; j++) {
    if (j === indices[next]) {
      points.push(wj);
      next++;
    }
    wj = (wj * w) % R;
  }
  const inv = batchInverse(points.map((p) => mod(tau - p, R)));
  const factor = (mod(modPow(tau, n, R) - 1n, R) * modInv(n, R)) % R;
  return points.map((p, i) => (((factor * p) % R) * inv[i]!) % R);
}

let pool: Piscina | undefined;
function workers(): Piscina {
  pool ??= new Piscina({
    filename: workerUrl(new URL('./fixed-base.worker.js', import.meta.url)),
    maxThreads: Math.max(1, availableParallelism()),
    idleTimeout: 2_000,
    execArgv: [...PISCINA_EXEC_ARGV],
  });
  return pool;
}

/**
 * The native addon's fixed-base multiplication (16-bit digit tables, several times faster than the
 * WebAssembly comb) on a worker thread of its own (the call is synchronous and uses every core),
 * once it has matched the comb on a spread of scalars; ZKGATE_SETUP=wasm forces the comb.
 */
let nativePool: Piscina | undefined;
let nativeChecked: Promise<boolean> | undefined;

function nativeWorkers(): Piscina {
  nativePool ??= new Piscina({
    filename: workerUrl(new URL('./fixed-base.worker.js', import.meta.url)),
    maxThreads: 1,
    idleTimeout: 2_000,
    execArgv: [...PISCINA_EXEC_ARGV],
  });
  return nativePool;
}

const runNative = async (group: 'G1' | 'G2', scalars: bigint[]): Promise<Buffer> => {
  const task: FixedBaseTask = { group, scalars: scalarsToBytes(scalars), native: true };
  return Buffer.from((await nativeWorkers().run(task)) as Uint8Array);
};

function useNative(): Promise<boolean> {
  nativeChecked ??= (async () => {
    const status = loadNativeAddon();
    if (process.env.ZKGATE_SETUP === 'wasm' || !status.ok || typeof status.addon.fixedBaseMul !== 'function')
      return false;
    const probe = [0n, 1n, 2n, R - 1n, R / 3n, 0xffffn, 1n << 200n, 123456789n << 128n];
    for (const group of ['G1', 'G2'] as const) {
      const [a, b] = await Promise.all([runNative(group, probe), wasmFixedBase(group, probe)]);
      if (!a.equals(b)) return false;
    }
    return true;
  })();
  return nativeChecked;
}

/** Multiplies the generator of `group` by every scalar (natively when the addon agrees with the comb). */
export async function fixedBase(group: 'G1' | 'G2', scalars: bigint[]): Promise<Buffer> {
  if (await useNative()) return runNative(group, scalars);
  return wasmFixedBase(group, scalars);
}

/** The same with the WebAssembly comb (what the native path is checked against). */
export async function wasmFixedBase(group: 'G1' | 'G2', scalars: bigint[]): Promise<Buffer> {
  const chunk = group === 'G1' ? 8192 : 4096;
  const parts: Promise<Uint8Array>[] = [];
  for (let i = 0; i < scalars.length; i += chunk) {
    const task: FixedBaseTask = { group, scalars: scalarsToBytes(scalars.slice(i, i + chunk)) };
    parts.push(workers().run(task) as Promise<Uint8Array>);
  }
  return Buffer.concat(await Promise.all(parts));
}

export interface DevSetupResult {
  nVars: number;
  nPublic: number;
  nConstraints: number;
  domainSize: number;
}

export type Progress = (step: string, done: number, total: number) => void;

interface CircuitCounts {
  nC: number;
  nVars: number;
  nPublic: number;
  n8: number;
}

/**
 * The QAP at tau and the coefficient section of a circom circuit, from its R1CS constraints and the
 * Lagrange basis at tau (`l`, one value per constraint, then the one and public wires' extra rows):
 * natively where the addon has it, else in bigints (./qap.ts; `native: false` forces bigints).
 */
export function constraintPass(
  constraints: Buffer,
  { nC, nVars, nPublic, n8 }: CircuitCounts,
  l: bigint[],
  opts: { native?: boolean } = {},
): ConstraintPass {
  if (n8 !== 32) throw new RangeError(`field elements of ${n8} bytes: BN254's are 32`);
  const pass = new QapPass(nVars, { coefficients: true, ...opts });
  pass.add(constraints, 0, l.slice(0, nC));
  return pass.finish(nC, l.slice(nC, nC + nPublic + 1));
}

/** Writes a dev .zkey for the circuit in `r1csPath`. */
export async function devSetup(
  r1csPath: string,
  zkeyPath: string,
  opts: { seed: string; label: string; progress?: Progress },
): Promise<DevSetupResult> {
  const progress = opts.progress ?? (() => {});
  const r1csBytes = readFileSync(r1csPath);
  const { header, constraints } = parseR1cs(r1csBytes);
  if (header.prime !== R) throw new RangeError('the circuit is not over the BN254 scalar field');
  const nVars = header.nWires;
  const nPublic = header.nPubOut + header.nPubIn;
  const nC = header.nConstraints;
  const k = Math.floor(Math.log2(nC + nPublic)) + 1;
  const domainSize = 2 ** k;
  if (k + 1 > TWO_ADICITY) throw new RangeError(`circuit too large: domain 2^${k}`);
  const { tau, alpha, beta, delta } = deriveToxicWaste(opts.seed, opts.label);
  const deltaInv = modInv(delta, R);

  progress('lagrange', 0, 1);
  const rows = Array.from({ length: nC + nPublic + 1 }, (_, i) => i);
  const l = lagrangeAt(tau, k, rows);

  // One pass over the constraints: QAP values at tau per wire, and the zkey's coefficient
  // section (A and B entries; C is derived by the prover as A·B on the domain).
  progress('constraints', 0, nC);
  const { u, v, w, coefHeader, coefChunks } = constraintPass(constraints, { nC, nVars, nPublic, n8: header.n8 }, l);
  progress('constraints', nC, nC);

  const combined = (i: number) => (beta * u[i]! + alpha * v[i]! + w[i]!) % R;
  const ic = Array.from({ length: nPublic + 1 }, (_, i) => combined(i));
  const cScalars = Array.from({ length: nVars - nPublic - 1 }, (_, i) => (combined(i + nPublic + 1) * deltaInv) % R);
  const odd = Array.from({ length: domainSize }, (_, i) => 2 * i + 1);
  const hScalars = lagrangeAt(tau, k + 1, odd).map((x) => (x * deltaInv) % R);

  progress('points', 0, 6);
  const [head1, icPts, aPts, b1Pts, cPts, hPts, head2, b2Pts] = await Promise.all([
    fixedBase('G1', [alpha, beta, delta]),
    fixedBase('G1', ic),
    fixedBase('G1', u),
    fixedBase('G1', v),
    fixedBase('G1', cScalars),
    fixedBase('G1', hScalars),
    fixedBase('G2', [beta, 1n, delta]),
    fixedBase('G2', v),
  ]);
  progress('points', 6, 6);

  const groth = groth16HeaderSection(
    { nVars, nPublic, domainSize },
    {
      alpha1: head1.subarray(0, 64),
      beta1: head1.subarray(64, 128),
      beta2: head2.subarray(0, 128),
      gamma2: head2.subarray(128, 256), // the G2 generator: gamma = 1
      delta1: head1.subarray(128, 192),
      delta2: head2.subarray(256, 384),
    },
  );

  // snarkjs records a hash of the circuit and the keys' contributions (none here): we store the
  // BLAKE2b-512 of the R1CS, which identifies what this key proves.
  const csHash = createHash('blake2b512').update(r1csBytes).digest();
  const contributions = Buffer.concat([csHash, Buffer.alloc(4)]);

  const sections: ZkeySections = {
    1: [Buffer.from([1, 0, 0, 0])],
    2: [groth],
    3: [icPts],
    4: [coefHeader, ...coefChunks],
    5: [aPts],
    6: [b1Pts],
    7: [b2Pts],
    8: [cPts],
    9: [hPts],
    10: [contributions],
  };
  await writeZkey(zkeyPath, sections);
  return { nVars, nPublic, nConstraints: nC, domainSize };
}

/** Stops the worker threads (tests and CLI commands call this before exiting). */
export async function closeSetupWorkers(): Promise<void> {
  const p = pool;
  const n = nativePool;
  pool = nativePool = undefined;
  await Promise.all([p?.destroy(), n?.destroy()]);
  const status = loadNativeAddon();
  if (status.ok && typeof status.addon.fixedBaseRelease === 'function') status.addon.fixedBaseRelease();
}
