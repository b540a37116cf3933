// Dev setup of a structured circuit (cs.ts): the same toxic waste and the same key contents as
// dev-setup.ts writes for a circom circuit, but streamed: the constraints come from running the
// circuit, the QAP values at tau accumulate per wire, and each section's points are computed and
// written chunk by chunk. Keys up to COEFFICIENTS_UP_TO constraints carry a coefficient section
// (for snarkjs); larger ones have none (the native prover gets A·w and B·w with the witness), so a
// 10 M-constraint key is its points only (about 4 GB).
//
// The verifying key needs no pass over the constraints: wires 0 and 1 appear only in constraints
// 0 and 1 and in snarkjs' added rows (see cs.ts), so IC follows from the domain and the count.
import { createHash } from 'node:crypto';
import { bn254 } from '@noble/curves/bn254.js';
import { FR, modInv, modPow } from '../field.js';
import type { SnarkjsVerificationKey } from '../verify.js';
import { writeAtomic } from '../../util/atomic-file.js';
import {
  batchInverse,
  deriveToxicWaste,
  fixedBase,
  rootOfUnity,
  type DevSetupResult,
  type Progress,
} from '../setup/dev-setup.js';
import { QapPass } from '../setup/qap.js';
import { groth16HeaderSection } from '../zkey.js';
import { emitConstraints, structuredSize, type StructuredCircuit } from './cs.js';
import { R1csRuns } from './r1cs-runs.js';

const R = FR;
const CHUNK = 1 << 16;

/** log2 of the domain: the smallest power of two above constraints + public inputs, as snarkjs. */
export const domainLog = (nConstraints: number, nPublic: number): number =>
  Math.floor(Math.log2(nConstraints + nPublic)) + 1;

/**
 * Lagrange basis values L_j(tau) over the domain of the 2^k-th roots of unity, for j in the
 * arithmetic progression first·step^i (i < count): factor·p / (tau − p) with factor = (tau^N − 1)/N.
 */
function lagrangeRun(tau: bigint, size: bigint, first: bigint, step: bigint, count: number): bigint[] {
  const points = new Array<bigint>(count);
  let p = first;
  for (let i = 0; i < count; i++) {
    points[i] = p;
    p = (p * step) % R;
  }
  const inv = batchInverse(points.map((x) => (((tau - x) % R) + R) % R));
  const factor = (((modPow(tau, size, R) - 1n + R) % R) * modInv(size, R)) % R;
  return points.map((x, i) => (((factor * x) % R) * inv[i]!) % R);
}

/** One L_j(tau), without a chunk around it (a verifying key needs four of them). */
const lagrangeAt = (tau: bigint, k: number, j: number): bigint =>
  lagrangeRun(tau, 1n << BigInt(k), modPow(rootOfUnity(k), BigInt(j), R), 1n, 1)[0]!;

/** L_j(tau) for any j, computed a chunk of consecutive j at a time (constraints come in order). */
class Lagrange {
  private start = -1;
  private values: bigint[] = [];
  private readonly w: bigint;
  constructor(
    private readonly tau: bigint,
    private readonly k: number,
  ) {
    this.w = rootOfUnity(k);
  }
  at(j: number): bigint {
    if (this.start < 0 || j < this.start || j >= this.start + CHUNK) {
      this.start = j - (j % CHUNK);
      this.values = lagrangeRun(this.tau, 1n << BigInt(this.k), modPow(this.w, BigInt(this.start), R), this.w, CHUNK);
    }
    return this.values[j - this.start]!;
  }
}

const g1 = (s: bigint) => bn254.G1.Point.BASE.multiply(s).toAffine();
const g2 = (s: bigint) => bn254.G2.Point.BASE.multiply(s).toAffine();
const vkG1 = (p: { x: bigint; y: bigint }) => [p.x.toString(), p.y.toString(), '1'];
const vkG2 = (p: { x: { c0: bigint; c1: bigint }; y: { c0: bigint; c1: bigint } }) => [
  [p.x.c0.toString(), p.x.c1.toString()],
  [p.y.c0.toString(), p.y.c1.toString()],
  ['1', '0'],
];

/** The verifying key of a structured circuit's dev key, from its size alone (under a second: four Lagrange values). */
export function structuredVerificationKey(
  circuit: StructuredCircuit<unknown>,
  opts: { seed: string; label: string },
): SnarkjsVerificationKey {
  const { nConstraints } = structuredSize(circuit);
  const k = domainLog(nConstraints, 1);
  const { tau, alpha, beta, delta } = deriveToxicWaste(opts.seed, opts.label);
  const [l0, l1, lc0, lc1] = [0, 1, nConstraints, nConstraints + 1].map((j) => lagrangeAt(tau, k, j)) as [
    bigint,
    bigint,
    bigint,
    bigint,
  ];
  // Wire 0: A on the added row nC; B and C in constraint 0. Wire 1: A in constraint 1 and row nC + 1.
  const ic0 = (beta * lc0 + alpha * l0 + l0) % R;
  const ic1 = (beta * ((l1 + lc1) % R)) % R;
  return {
    protocol: 'groth16',
    curve: 'bn128',
    nPublic: 1,
    vk_alpha_1: vkG1(g1(alpha)),
    vk_beta_2: vkG2(g2(beta)),
    vk_gamma_2: vkG2(bn254.G2.Point.BASE.toAffine()),
    vk_delta_2: vkG2(g2(delta)),
    IC: [vkG1(g1(ic0)), vkG1(g1(ic1))],
  };
}

/**
 * Circuits up to this many constraints get a coefficient section, so that snarkjs (the backend of
 * a machine without a C++ compiler) proves them too: the forester's address append × 10 (407 k).
 * The production sizes' sections would take over a GB; those prove with the native prover alone.
 */
export const COEFFICIENTS_UP_TO = 1 << 20;

/** Writes the dev .zkey of a structured circuit (a coefficient section up to COEFFICIENTS_UP_TO). */
export async function structuredSetup(
  circuit: StructuredCircuit<unknown>,
  zkeyPath: string,
  opts: { seed: string; label: string; progress?: Progress; coefficients?: boolean },
): Promise<DevSetupResult> {
  const progress = opts.progress ?? (() => {});
  const { tau, alpha, beta, delta } = deriveToxicWaste(opts.seed, opts.label);
  const deltaInv = modInv(delta, R);
  const size = structuredSize(circuit);
  const { nVars, nConstraints: nC, nPublic } = size;
  const k = domainLog(nC, nPublic);
  const n = 2 ** k;

  // One pass over the emitted constraints, in runs of R1CS bytes (./r1cs-runs.ts): the QAP values
  // at tau per wire and, up to COEFFICIENTS_UP_TO, the coefficient section.
  progress('constraints', 0, nC);
  const l = new Lagrange(tau, k);
  const pass = new QapPass(nVars, { coefficients: opts.coefficients ?? nC <= COEFFICIENTS_UP_TO });
  const runs = new R1csRuns((bytes, first, count) => {
    pass.add(
      bytes,
      first,
      // A lone row (constraint 1, emitted last) takes its own value rather than recomputing a chunk.
      count === 1 ? [lagrangeAt(tau, k, first)] : Array.from({ length: count }, (_, i) => l.at(first + i)),
    );
    progress('constraints', first + count, nC);
  });
  emitConstraints(circuit, runs);
  runs.end();
  const { u, v, w, coefHeader, coefChunks } = pass.finish(nC, [lagrangeAt(tau, k, nC), lagrangeAt(tau, k, nC + 1)]);
  const coefBytes = coefChunks.reduce((n, c) => n + c.length, coefHeader.length);
  progress('constraints', nC, nC);

  const combined = (i: number) => (beta * u[i]! + alpha * v[i]! + w[i]!) % R;
  const [head1, head2] = await Promise.all([fixedBase('G1', [alpha, beta, delta]), fixedBase('G2', [beta, 1n, delta])]);
  const groth = groth16HeaderSection(
    { nVars, nPublic, domainSize: n },
    {
      alpha1: head1.subarray(0, 64),
      beta1: head1.subarray(64, 128),
      beta2: head2.subarray(0, 128),
      gamma2: head2.subarray(128, 256),
      delta1: head1.subarray(128, 192),
      delta2: head2.subarray(256, 384),
    },
  );

  // What identifies the circuit: its name and size (the circuit's code is versioned with the shape).
  const csHash = createHash('blake2b512').update(`${circuit.name}\0${nVars}\0${nC}`).digest();
  const hw = rootOfUnity(k + 1);
  const sections: [id: number, bytes: number, write: (put: (b: Buffer) => Promise<void>) => Promise<void>][] = [
    [1, 4, (put) => put(Buffer.from([1, 0, 0, 0]))],
    [2, groth.length, (put) => put(groth)],
    [3, 64 * (nPublic + 1), async (put) => put(await fixedBase('G1', [combined(0), combined(1)]))],
    [
      4,
      coefBytes,
      async (put) => {
        for (const b of [coefHeader, ...coefChunks]) await put(b);
      },
    ],
    [5, 64 * nVars, (put) => points(put, 'G1', nVars, (i) => u[i]!, 'A')],
    [6, 64 * nVars, (put) => points(put, 'G1', nVars, (i) => v[i]!, 'B1')],
    [7, 128 * nVars, (put) => points(put, 'G2', nVars, (i) => v[i]!, 'B2')],
    [
      8,
      64 * (nVars - nPublic - 1),
      (put) => points(put, 'G1', nVars - nPublic - 1, (i) => (combined(i + nPublic + 1) * deltaInv) % R, 'C'),
    ],
    [
      9,
      64 * n,
      async (put) => {
        // H_i = L^{2n}_{2i+1}(tau)/delta: odd points of the domain twice the size.
        const step = (hw * hw) % R;
        for (let i = 0; i < n; i += CHUNK * 4) {
          const m = Math.min(CHUNK * 4, n - i);
          const ls = lagrangeRun(tau, 2n * BigInt(n), modPow(hw, BigInt(2 * i + 1), R), step, m);
          await put(
            await fixedBase(
              'G1',
              ls.map((x) => (x * deltaInv) % R),
            ),
          );
          progress('H', i + m, n);
        }
      },
    ],
    [10, 68, (put) => put(Buffer.concat([csHash, Buffer.alloc(4)]))],
  ];
  async function points(
    put: (b: Buffer) => Promise<void>,
    group: 'G1' | 'G2',
    count: number,
    scalar: (i: number) => bigint,
    label: string,
  ): Promise<void> {
    const chunk = CHUNK * 4;
    for (let i = 0; i < count; i += chunk) {
      const m = Math.min(chunk, count - i);
      const s = new Array<bigint>(m);
      for (let j = 0; j < m; j++) s[j] = scalar(i + j);
      await put(await fixedBase(group, s));
      progress(label, i + m, count);
    }
  }

  await writeAtomic(zkeyPath, async (fh) => {
    const head = Buffer.alloc(12);
    head.write('zkey', 0, 'latin1');
    head.writeUInt32LE(1, 4);
    head.writeUInt32LE(sections.length, 8);
    await fh.write(head);
    for (const [id, bytes, write] of sections) {
      const sh = Buffer.alloc(12);
      sh.writeUInt32LE(id, 0);
      sh.writeBigUInt64LE(BigInt(bytes), 4);
      await fh.write(sh);
      let written = 0;
      await write(async (b) => {
        written += b.length;
        await fh.write(b);
      });
      if (written !== bytes) throw new Error(`zkey section ${id}: wrote ${written} bytes, expected ${bytes}`);
    }
  });
  return { nVars, nPublic, nConstraints: nC, domainSize: n };
}
