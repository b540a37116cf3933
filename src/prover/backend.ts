// The proving backend interface: what runs inside a pool worker for one proof. snarkjs implements
// it now; the native CPU and CUDA backends of later issues implement the same interface and must
// produce proofs that verify with the same verification keys.
import type { CircuitInputs } from '../zk/inputs.js';
import type { ProofPoints } from '../zk/proof-format.js';

/** One proof to make: the shape's key files and the full circuit inputs (decimal strings). */
export interface ProveJob {
  shape: string;
  zkeyPath: string;
  wasmPath: string;
  /** Bytes of the zkey and the witness calculator on disk: what loading them costs the worker's budget. */
  keyBytes: number;
  /**
   * A key imported from Light's files (src/zk/light/): it carries its constraint system, so the
   * native backend solves it for the inputs (no witness calculator; wasmPath is empty).
   */
  light?: boolean;
  inputs: CircuitInputs;
  /** Threads this proof may use, when not the worker's default (background work takes fewer). */
  threads?: number;
  /**
   * Background work (the forester's batch proofs): steps aside while client proofs run, so they get
   * every core (backends that can; the native CPU one does: native/src/preempt.hpp).
   */
  background?: boolean;
}

export interface BackendProof {
  points: ProofPoints;
  publicSignals: bigint[];
  /**
   * Milliseconds spent on the witness and on the proof, whether the key was already loaded, and
   * the CPU threads the proof ran on (native backend on the CPU).
   */
  timings: { witnessMs: number; proveMs: number; keyLoaded: boolean; threads?: number };
}

export interface ProverBackend {
  readonly name: string;
  prove(job: ProveJob): Promise<BackendProof>;
  /**
   * Loads the job's key (and its witness calculator and tables) now, so this worker's first proof
   * of the shape runs at full speed; where the job has inputs (warm-inputs.ts), its witness is
   * calculated once too, so the worker's witness path has run before a caller needs it.
   */
  warm(job: WarmJob): Promise<WarmInfo>;
  /** Bytes of keys and witness calculators held in memory. */
  residentBytes(): number;
}

/**
 * A preload's steps (ProverService.warmUp): 'key' loads the key alone, its tables left for later,
 * and only where it fits the process's memory budget beside the keys already in (never evicting);
 * 'claim' reserves its tables in the process's memory budget where there is room beside the keys
 * (quick: made in list order); 'tables' maps or builds what was claimed (native); 'all' (the
 * default) loads everything, tables included, as a first proof would; 'proof' does that and proves
 * the job's inputs once (warm-inputs.ts), the proof thrown away.
 */
export type WarmStep = 'key' | 'claim' | 'tables' | 'all' | 'proof';

export type WarmJob = ProveJob & { step?: WarmStep };

export interface WarmInfo {
  loadMs: number;
  /** 'key' (native): the key does not fit the memory budget beside those in it; not loaded. */
  noRoom?: boolean;
  /** 'key' (native): the parsed key's bytes, and what its tables would take. */
  keyBytes?: number;
  plannedTableBytes?: number;
  /** 'claim' (native): claimed, already held, none planned, or no room in the memory budget. */
  tables?: 'claimed' | 'held' | 'none' | 'no-room';
  /** The warm-up witness's time; absent without inputs. */
  witnessMs?: number;
  /** Why the warm-up witness failed (the shape still proves; a caller's first witness pays the first run). */
  witnessError?: string;
  /** 'proof': the warm-up proof's time, witness included. */
  proofMs?: number;
  tablesReady: boolean;
  /** Native: the tables' file at the key's load ("loaded": mapped, nothing built). */
  tableFile?: string;
  /** Native: keys the process's memory budget has evicted so far. */
  evictions?: number;
}

export interface BackendOptions {
  /** Memory a worker may keep keys and witness calculators in; least recently used go first. */
  memoryBudgetBytes: number;
  /** Threads one proof may use inside a worker (the pool's workers share the cores). */
  curveThreads?: number;
  /** For the accelerated backends: where and how proofs are batched. */
  accelerator?: AcceleratorOptions;
}

export interface AcceleratorOptions {
  /** GPU indexes (empty: every visible one). */
  devices: number[];
  /** Per device: bytes of keys kept resident (0: 90 % of its free memory). */
  deviceBudgetBytes: number;
  /** Concurrent proofs of one key gathered into one pass, at most, and how long the first waits. */
  batchMax: number;
  batchWaitUs: number;
}

/**
 * snarkjs and native prove on the CPU; cuda on GPUs through the native engine's batcher; emulate is
 * the GPU pipeline on host threads (the tests' way to drive the batched path without a GPU).
 */
export const BACKENDS = ['snarkjs', 'native', 'cuda', 'emulate'] as const;
export type BackendName = (typeof BACKENDS)[number];

/**
 * Inputs the circuit does not satisfy fail in the witness calculator, before any proving: the
 * backend reports them with this error so callers can tell bad witnesses from broken provers.
 */
export class UnsatisfiedWitnessError extends Error {
  readonly unsatisfied = true;
}
