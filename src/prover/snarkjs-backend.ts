// The snarkjs backend: circom's WebAssembly witness calculator (or a structured circuit's witness
// builder), then snarkjs' Groth16 prover, with the zkey bytes and the compiled calculator of
// recently used shapes kept in memory (LRU within a byte budget) so a warm proof reads nothing from
// disk. A structured key proves here only if its zkey has a coefficient section (small circuits).
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import { importInWorker } from '../util/load-iden3.js';
import type { CircuitInputs } from '../zk/inputs.js';
import { fromSnarkjs } from '../zk/proof-format.js';
import type { StructuredCircuit } from '../zk/structured/cs.js';
import { structuredCircuit } from '../zk/structured/registry.js';
import { readZkeyHeader } from '../zk/zkey.js';
import type { BackendOptions, BackendProof, ProveJob, ProverBackend, WarmInfo, WarmJob } from './backend.js';
import { KeyCache } from './key-cache.js';
import {
  buildWitnessCalculator,
  calculateStructuredWitness,
  calculateWitness,
  warmProof,
  warmWitness,
  wtnsFile,
  type WitnessCalculator,
} from './witness-calculator.js';

type Loaded = { zkey: Uint8Array } & (
  { wc: WitnessCalculator; circuit?: undefined } | { circuit: StructuredCircuit<CircuitInputs>; wc?: undefined }
);

let snarkjs: Promise<typeof import('snarkjs')> | undefined;
const loadSnarkjs = () => (snarkjs ??= importInWorker(() => import('snarkjs')));

export class SnarkjsBackend implements ProverBackend {
  readonly name = 'snarkjs';
  private readonly keys: KeyCache<Loaded>;

  constructor(options: BackendOptions) {
    this.keys = new KeyCache(options.memoryBudgetBytes);
    // ffjavascript sizes its curve's thread pool from navigator.hardwareConcurrency when there is
    // one, else from the core count: every worker would start one thread per core, so N workers
    // would run N² threads. A worker-local navigator caps it (Node 20 has no navigator of its own).
    if (!isMainThread && options.curveThreads && !('navigator' in globalThis)) {
      Object.defineProperty(globalThis, 'navigator', {
        value: { hardwareConcurrency: options.curveThreads },
        configurable: true,
      });
    }
  }

  residentBytes(): number {
    return this.keys.residentBytes();
  }

  private load(job: ProveJob): { value: Promise<Loaded>; warm: boolean } {
    const circuit = structuredCircuit(job.shape);
    return this.keys.get(`${job.shape}\0${job.zkeyPath}`, job.keyBytes, async () => {
      if (circuit) {
        if ((await readZkeyHeader(job.zkeyPath)).nCoefs === 0)
          throw new Error(
            `${job.shape} proves only with the native prover (its key has no coefficient section for snarkjs)`,
          );
        const zkey = await readFile(job.zkeyPath);
        return { value: { zkey, circuit }, bytes: zkey.byteLength };
      }
      const [zkey, wasm] = await Promise.all([readFile(job.zkeyPath), readFile(job.wasmPath)]);
      const wc = await buildWitnessCalculator(wasm);
      return { value: { zkey, wc }, bytes: zkey.byteLength + wasm.byteLength };
    });
  }

  async warm(job: WarmJob): Promise<WarmInfo> {
    const t = performance.now();
    const { wc } = await this.load(job).value;
    const loadMs = performance.now() - t;
    const first = job.step === 'proof' ? await warmProof(() => this.prove(job)) : wc ? await warmWitness(wc, job) : {};
    return { loadMs, ...first, tablesReady: false };
  }

  async prove(job: ProveJob): Promise<BackendProof> {
    if (job.light) throw new Error(`${job.shape}: Light's keys prove on the native backend only (gnark's quotient)`);
    const { groth16 } = await loadSnarkjs();
    const { value, warm } = this.load(job);
    const { zkey, wc, circuit } = await value;
    const t0 = performance.now();
    const wtns = wc
      ? await calculateWitness(wc, job.shape, job.inputs)
      : wtnsFile(calculateStructuredWitness(circuit, job.shape, job.inputs).witness);
    const t1 = performance.now();
    const { proof, publicSignals } = await groth16.prove({ type: 'mem', data: zkey }, { type: 'mem', data: wtns });
    const t2 = performance.now();
    return {
      points: fromSnarkjs(proof),
      publicSignals: publicSignals.map((s) => BigInt(s)),
      timings: { witnessMs: t1 - t0, proveMs: t2 - t1, keyLoaded: warm },
    };
  }
}
