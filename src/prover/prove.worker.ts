// A prover pool worker: one backend per thread, kept for the thread's life so keys and witness
// calculators stay loaded between proofs.
import { setFlagsFromString } from 'node:v8';
import { threadId, workerData } from 'node:worker_threads';
import {
  UnsatisfiedWitnessError,
  type AcceleratorOptions,
  type BackendName,
  type BackendProof,
  type ProveJob,
  type ProverBackend,
  type WarmInfo,
  type WarmJob,
} from './backend.js';
import { NICE_PROVER, niceThisThread } from '../util/thread-priority.js';
import { NativeBackend } from './native-backend.js';
import { SnarkjsBackend } from './snarkjs-backend.js';

export interface WorkerConfig {
  backend: BackendName;
  memoryBudgetBytes: number;
  curveThreads: number;
  accelerator?: AcceleratorOptions;
}

/** Errors cross the thread boundary as values: thrown errors lose their class on the way. */
export type WorkerResult =
  ({ ok: true; residentBytes: number } & BackendProof) | { ok: false; unsatisfied: boolean; message: string };

const config = workerData as WorkerConfig;
// Proofs yield the CPU to the event loop (requests, refusals, health checks): see thread-priority.ts.
niceThisThread(NICE_PROVER);

// Native backends run only the circuits' witness code in WebAssembly. V8 would compile it with
// Liftoff and later tier its hot functions up with TurboFan on background threads, which then
// compete with the first proofs for the cores: after a restart each worker's first proofs ran
// 1.3–1.6× their steady time. Liftoff only: the first proofs ran 1.0–1.2×, and the witness costs
// a few ms more (v1_inclusion_26_4: about 40 instead of 30 ms, beside a 600–800 ms proof at c=2).
// The flag is the process's (set before any circuit compiles; zstd's module, compiled at start,
// keeps its code); ZKGATE_WASM_TIERUP=1 keeps V8's default. snarkjs' backend proves in
// WebAssembly and keeps TurboFan. Each function's Liftoff code is also compiled when the module is
// (on V8's background threads, while the warm-up loads the key), not at the function's first call:
// lazily, a worker's first witness of a shape ran 3–5× its steady time (30–80 ms), which put the
// first proof after a restart at 1.23–1.31× its steady latency.
if (config.backend !== 'snarkjs' && process.env.ZKGATE_WASM_TIERUP !== '1') {
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--no-wasm-lazy-compilation');
}

function createBackend(c: WorkerConfig): ProverBackend {
  switch (c.backend) {
    case 'snarkjs':
      return new SnarkjsBackend({ memoryBudgetBytes: c.memoryBudgetBytes, curveThreads: c.curveThreads });
    case 'native':
      return new NativeBackend({ memoryBudgetBytes: c.memoryBudgetBytes, curveThreads: c.curveThreads });
    case 'cuda':
    case 'emulate':
      return new NativeBackend(
        {
          memoryBudgetBytes: c.memoryBudgetBytes,
          curveThreads: c.curveThreads,
          ...(c.accelerator ? { accelerator: c.accelerator } : {}),
        },
        c.backend,
      );
  }
}

const backend = createBackend(config);

export default async function prove(job: ProveJob): Promise<WorkerResult> {
  try {
    const r = await backend.prove(job);
    return { ok: true, residentBytes: backend.residentBytes(), ...r };
  } catch (e) {
    return {
      ok: false,
      unsatisfied: e instanceof UnsatisfiedWitnessError,
      message: String((e as Error)?.message ?? e),
    };
  }
}

export type WarmResult = ({ ok: true; threadId: number } & WarmInfo) | { ok: false; message: string };

/** Loads a shape's key, witness calculator and tables in this worker (the pool's warm-up). */
export async function warm(job: WarmJob): Promise<WarmResult> {
  try {
    return { ok: true, threadId, ...(await backend.warm(job)) };
  } catch (e) {
    return { ok: false, message: String((e as Error)?.message ?? e) };
  }
}
