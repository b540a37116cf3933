// The snarkjs backend: circom's WebAssembly witness calculator, then snarkjs' Groth16 prover, with
// the zkey bytes and the compiled calculator of recently used shapes kept in memory (LRU within a
// byte budget) so a warm proof reads nothing from disk.
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import { importInWorker } from '../util/load-iden3.js';
import { fromSnarkjs } from '../zk/proof-format.js';
import {
  UnsatisfiedWitnessError,
  type BackendOptions,
  type BackendProof,
  type ProveJob,
  type ProverBackend,
} from './backend.js';

interface WitnessCalculator {
  calculateWTNSBin(input: unknown, sanityCheck?: boolean): Promise<Uint8Array>;
}

interface Loaded {
  zkey: Uint8Array;
  wc: WitnessCalculator;
  bytes: number;
}

interface Libs {
  snarkjs: typeof import('snarkjs');
  builder: (code: Uint8Array, options?: unknown) => Promise<WitnessCalculator>;
  unstringify: (v: unknown) => unknown;
}

let libs: Promise<Libs> | undefined;
const loadLibs = (): Promise<Libs> =>
  (libs ??= importInWorker(async () => {
    const [snarkjs, runtime, ff] = await Promise.all([
      import('snarkjs'),
      import('circom_runtime'),
      import('ffjavascript'),
    ]);
    return { snarkjs, builder: runtime.WitnessCalculatorBuilder, unstringify: ff.utils.unstringifyBigInts };
  }));

export class SnarkjsBackend implements ProverBackend {
  readonly name = 'snarkjs';
  /** Map order is recency: the first entry is the least recently used. */
  private readonly cache = new Map<string, Promise<Loaded>>();
  private readonly sizes = new Map<string, number>();

  constructor(private readonly options: BackendOptions) {
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
    let n = 0;
    for (const b of this.sizes.values()) n += b;
    return n;
  }

  private load(job: ProveJob): { loaded: Promise<Loaded>; warm: boolean } {
    const key = `${job.shape}\0${job.zkeyPath}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return { loaded: hit, warm: true };
    }
    this.makeRoom(job.keyBytes, key);
    const loaded = (async () => {
      const { builder } = await loadLibs();
      const [zkey, wasm] = await Promise.all([readFile(job.zkeyPath), readFile(job.wasmPath)]);
      const wc = await builder(wasm);
      const bytes = zkey.byteLength + wasm.byteLength;
      this.sizes.set(key, bytes);
      return { zkey, wc, bytes };
    })();
    loaded.catch(() => {
      this.cache.delete(key);
      this.sizes.delete(key);
    });
    this.cache.set(key, loaded);
    return { loaded, warm: false };
  }

  /** Evicts least recently used shapes until `incoming` more bytes fit (one shape always stays). */
  private makeRoom(incoming: number, keep: string): void {
    for (const key of this.cache.keys()) {
      if (this.residentBytes() + incoming <= this.options.memoryBudgetBytes) return;
      if (key === keep) continue;
      this.cache.delete(key);
      this.sizes.delete(key);
    }
  }

  async prove(job: ProveJob): Promise<BackendProof> {
    const { snarkjs, unstringify } = await loadLibs();
    const { loaded, warm } = this.load(job);
    const { zkey, wc } = await loaded;
    const t0 = performance.now();
    let wtns: Uint8Array;
    try {
      wtns = await wc.calculateWTNSBin(unstringify(job.inputs), true);
    } catch (e) {
      const first = String((e as Error)?.message ?? e).split('\n')[0];
      throw new UnsatisfiedWitnessError(`${job.shape}: the inputs do not satisfy the circuit (${first})`);
    }
    const t1 = performance.now();
    const { proof, publicSignals } = await snarkjs.groth16.prove(
      { type: 'mem', data: zkey },
      { type: 'mem', data: wtns },
    );
    const t2 = performance.now();
    return {
      points: fromSnarkjs(proof),
      publicSignals: publicSignals.map((s) => BigInt(s)),
      timings: { witnessMs: t1 - t0, proveMs: t2 - t1, keyLoaded: warm },
    };
  }
}
