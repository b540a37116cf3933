// The native backend: the same witness calculator as snarkjs, then zkgate's C++ Groth16 prover
// (native/) on the same .zkey; Light's keys (src/zk/light/) are solved and proved in the addon. Keys are parsed once per worker into native memory and kept (LRU
// within the byte budget); a proof reads nothing from disk and copies nothing but the witness.
// With an accelerator (cuda, or its host emulation) proofs go through the native engine instead,
// which gathers the workers' concurrent proofs of one key into batched device passes.
import { readFile, stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { StructuredCircuit } from '../zk/structured/cs.js';
import { structuredCircuit } from '../zk/structured/registry.js';
import type { CircuitInputs } from '../zk/inputs.js';
import {
  UnsatisfiedWitnessError,
  type AcceleratorOptions,
  type BackendOptions,
  type BackendProof,
  type ProveJob,
  type ProverBackend,
  type WarmInfo,
  type WarmJob,
} from './backend.js';
import { lightInputVector } from '../zk/light/inputs.js';
import { shapeByName } from '../zk/shapes.js';
import { KeyCache } from './key-cache.js';
import {
  decodeProof,
  fromLe32,
  le32,
  loadNativeAddon,
  randomScalar,
  type AcceleratorName,
  type NativeAddon,
  type NativeKey,
} from '../zk/native-addon.js';
import {
  buildWitnessCalculator,
  calculateStructuredWitness,
  calculateWitness,
  warmProof,
  warmWitness,
  witnessValues,
  type WitnessCalculator,
} from './witness-calculator.js';

interface Loaded {
  key: NativeKey;
  nPublic: number;
  /** A Light key: solved from the inputs by its own constraint system. */
  light?: boolean;
  /** circom shapes: the witness calculator; structured shapes: the circuit (it computes A·w and B·w too). */
  wc?: WitnessCalculator;
  circuit?: StructuredCircuit<CircuitInputs>;
  /** Parsing the key and building its tables, in ms. */
  loadMs: number;
  /** What the key's tables may take (0: none, e.g. on an accelerator or a structured circuit). */
  tableBudget: number;
}

const cacheEntry = (job: ProveJob) => `${job.shape}\0${job.zkeyPath}`;
const isEvicted = (e: unknown) => String((e as Error)?.message ?? e).startsWith('key evicted');

/** A key that does not fit the memory budget beside the keys in it (loaded only where it must fit). */
class NoRoom extends Error {
  constructor(shape: string) {
    super(`no room for ${shape}'s key in the memory budget`);
  }
}

/** Where a key's fixed-base tables are kept between starts. */
export const tablesPathOf = (zkeyPath: string): string => `${zkeyPath}.tables`;

export class NativeBackend implements ProverBackend {
  readonly name: 'native' | AcceleratorName;
  private readonly addon: NativeAddon;
  private readonly keys: KeyCache<Loaded>;
  private readonly threads: number;
  private readonly budget: number;
  private readonly accelerated: boolean;

  /** `accelerator`: prove on it (through the engine) rather than on this worker's CPU threads. */
  constructor(options: BackendOptions, accelerator?: AcceleratorName) {
    const status = loadNativeAddon();
    if (!status.ok) throw new Error(status.reason);
    this.addon = status.addon;
    // Keys and tables count against the addon's one budget for the whole process (the workers
    // share them); this cache holds the worker's own witness calculators, and handles to keys.
    this.addon.setMemoryBudget(options.memoryBudgetBytes);
    this.keys = new KeyCache(options.memoryBudgetBytes);
    this.budget = options.memoryBudgetBytes;
    this.threads = Math.max(1, options.curveThreads ?? 1);
    this.name = accelerator ?? 'native';
    this.accelerated = accelerator !== undefined;
    if (accelerator) {
      const a: AcceleratorOptions = options.accelerator ?? {
        devices: [],
        deviceBudgetBytes: 0,
        batchMax: 1,
        batchWaitUs: 0,
      };
      this.addon.engineConfigure(accelerator, a.devices, a.deviceBudgetBytes, a.batchMax, a.batchWaitUs, this.threads);
    }
  }

  /** The process's keys and tables (shared) and this worker's witness calculators. */
  residentBytes(): number {
    return this.addon.memoryInfo().used + this.keys.residentBytes();
  }

  /**
   * Loads (or finds) a shape's key; loading is its own measured step. `deferTables`: a key loaded
   * now comes without its tables (the warm-up attaches them once it knows which fit); `mustFit`:
   * rejects with NoRoom rather than evict other keys.
   */
  async load(job: ProveJob, deferTables = false, mustFit = false): Promise<{ loaded: Loaded; warm: boolean }> {
    const { value, warm } = this.keys.get(cacheEntry(job), 0, async () => {
      // The process's workers share parsed keys and tables (the addon is one library): a key
      // another worker loaded from the same file is taken as it is.
      const st = await stat(job.zkeyPath);
      const cacheKey = `${job.zkeyPath}\0${st.size}\0${st.mtimeMs}`;
      const circuit = structuredCircuit(job.shape);
      if (circuit) {
        // Several GB: mapped from disk, no fixed-base tables (they would not fit beside it).
        const t = performance.now();
        const key =
          this.addon.findKey(cacheKey) ??
          (mustFit
            ? this.addon.loadKeyFile(job.zkeyPath, 0, this.threads, false, cacheKey, '', true)
            : this.addon.loadKeyFile(job.zkeyPath, 0, this.threads, false, cacheKey));
        if (!key) throw new NoRoom(job.shape);
        const info = this.addon.keyInfo(key);
        return {
          value: { key, nPublic: info.nPublic, circuit, loadMs: performance.now() - t, tableBudget: 0 },
          bytes: 0,
        };
      }
      const wasm = job.light ? new Uint8Array(0) : await readFile(job.wasmPath);
      const t = performance.now();
      // A key's tables may take half of what the budget leaves after the key itself, so other
      // shapes still fit beside it; a key whose tables do not fit proves without them. Tables
      // build in the background: the first proofs run without them rather than wait.
      // An accelerator keeps its own resident copy and uses no host tables.
      const tableBudget = this.accelerated ? 0 : Math.max(0, (this.budget - st.size - wasm.byteLength) / 2);
      // Parsed from the mapped file (a third faster than reading it into a buffer first); tables
      // persist beside the key: a restart maps them instead of building them again.
      const budget = deferTables ? 0 : tableBudget;
      const tablesPath = tablesPathOf(job.zkeyPath);
      const key =
        this.addon.findKey(cacheKey) ??
        (mustFit
          ? this.addon.loadKeyFile(job.zkeyPath, budget, this.threads, true, cacheKey, tablesPath, true)
          : this.addon.loadKeyFile(job.zkeyPath, budget, this.threads, true, cacheKey, tablesPath));
      if (!key) throw new NoRoom(job.shape);
      const loadMs = performance.now() - t;
      const info = this.addon.keyInfo(key);
      if (job.light) return { value: { key, nPublic: info.nPublic, light: true, loadMs, tableBudget }, bytes: 0 };
      const wc = await buildWitnessCalculator(wasm);
      return {
        value: { key, nPublic: info.nPublic, wc, loadMs, tableBudget },
        bytes: wasm.byteLength,
      };
    });
    return { loaded: await value, warm };
  }

  /**
   * Runs `use` with the job's key; when the process's budget evicted that key since this worker
   * loaded it (another shape needed the room), forgets it and runs once more with it loaded again.
   */
  private async withKey<T>(job: ProveJob, use: (job: ProveJob) => Promise<T>): Promise<T> {
    try {
      return await use(job);
    } catch (e) {
      if (!isEvicted(e)) throw e;
      this.keys.delete(cacheEntry(job));
      return use(job);
    }
  }

  warm(job: WarmJob): Promise<WarmInfo> {
    return this.withKey(job, (j) => this.warmOnce(j));
  }

  private async warmOnce(job: WarmJob): Promise<WarmInfo> {
    const t = performance.now();
    const step = job.step ?? 'all';
    let got: { loaded: Loaded };
    try {
      got = await this.load(job, step !== 'all', step === 'key');
    } catch (e) {
      if (e instanceof NoRoom) return { loadMs: performance.now() - t, tablesReady: false, noRoom: true };
      throw e;
    }
    const { loaded } = got;
    if (step === 'key') {
      const info = this.addon.keyInfo(loaded.key);
      return {
        loadMs: performance.now() - t,
        tablesReady: info.tablesReady,
        keyBytes: info.bytes,
        plannedTableBytes: info.tableBytes || this.addon.plannedTableBytes(loaded.key, loaded.tableBudget),
        evictions: this.addon.memoryInfo().evictions,
      };
    }
    if (step === 'claim')
      return {
        loadMs: performance.now() - t,
        tables: loaded.tableBudget > 0 ? this.addon.claimTables(loaded.key, loaded.tableBudget) : 'none',
        tablesReady: this.addon.keyInfo(loaded.key).tablesReady,
      };
    if (step === 'tables') {
      const tablesReady =
        loaded.tableBudget > 0
          ? this.addon.fillTables(loaded.key, loaded.tableBudget, this.threads, tablesPathOf(job.zkeyPath))
          : false;
      return { loadMs: performance.now() - t, tablesReady, tableFile: this.addon.keyInfo(loaded.key).tableFile };
    }
    // Structured keys have no tables; accelerators keep their own copy of the key.
    const tablesReady = loaded.circuit || this.accelerated ? false : this.addon.waitTables(loaded.key);
    const loadMs = performance.now() - t;
    const witness =
      step === 'proof'
        ? await warmProof(() => this.proveOnce(job))
        : loaded.wc
          ? await warmWitness(loaded.wc, job)
          : {};
    return {
      loadMs,
      ...witness,
      tablesReady,
      tableFile: this.addon.keyInfo(loaded.key).tableFile,
      evictions: this.addon.memoryInfo().evictions,
    };
  }

  /** Waits until the shape's fixed-base tables are built (benchmarks measure warm keys). */
  async waitForTables(job: ProveJob): Promise<boolean> {
    const { loaded } = await this.load(job);
    return this.addon.waitTables(loaded.key);
  }

  prove(job: ProveJob): Promise<BackendProof> {
    return this.withKey(job, (j) => this.proveOnce(j));
  }

  private async proveOnce(job: ProveJob): Promise<BackendProof> {
    const { loaded, warm } = await this.load(job);
    if (loaded.circuit) return this.proveStructured(job, loaded.key, loaded.circuit, warm);
    if (loaded.light) return this.proveLight(job, loaded, warm);
    const t0 = performance.now();
    const witness = witnessValues(await calculateWitness(loaded.wc!, job.shape, job.inputs));
    const t1 = performance.now();
    const out = this.accelerated
      ? this.addon.engineProve(loaded.key, witness, randomScalar(), randomScalar(), 'rerandomized')
      : this.addon.prove(
          loaded.key,
          witness,
          randomScalar(),
          randomScalar(),
          job.threads ?? this.threads,
          'rerandomized',
          job.background ? 'background' : 'client',
        );
    const t2 = performance.now();
    const publicSignals = Array.from({ length: loaded.nPublic }, (_, i) => fromLe32(witness, (i + 1) * 32));
    return {
      points: decodeProof(out),
      publicSignals,
      timings: { witnessMs: t1 - t0, proveMs: t2 - t1, keyLoaded: warm, ...this.cpuThreads(job) },
    };
  }

  /** The CPU threads a proof runs on, for its timings (none on an accelerator). */
  private cpuThreads(job: ProveJob): { threads?: number } {
    return this.accelerated ? {} : { threads: job.threads ?? this.threads };
  }

  /**
   * Light's circuits: the key's constraint system solved natively for the inputs, then proved on
   * this worker's CPU threads, or through the engine on its accelerator's MSMs and NTTs (one
   * proof at a time: the batched pass computes snarkjs's quotient only). Inputs the circuit
   * rejects name the first unsatisfied constraint.
   */
  private proveLight(job: ProveJob, loaded: Loaded, warm: boolean): BackendProof {
    const t0 = performance.now();
    const vector = lightInputVector(shapeByName(job.shape), job.inputs);
    let out: Uint8Array;
    try {
      const inputs = Buffer.concat(vector.map(le32));
      const threads = job.threads ?? this.threads;
      out = this.accelerated
        ? this.addon.engineProveInputs(loaded.key, inputs, randomScalar(), randomScalar(), threads, 'rerandomized')
        : this.addon.proveInputs(
            loaded.key,
            inputs,
            randomScalar(),
            randomScalar(),
            threads,
            'rerandomized',
            job.background ? 'background' : 'client',
          );
    } catch (e) {
      const message = (e as Error).message;
      if (/^constraint #\d+ is not satisfied$/.test(message))
        throw new UnsatisfiedWitnessError(`${job.shape}: the inputs do not satisfy Light's circuit (${message})`);
      throw e;
    }
    const t1 = performance.now();
    return {
      points: decodeProof(out),
      publicSignals: vector.slice(0, loaded.nPublic),
      // The solve runs inside the native call: its time is the proof's.
      timings: { witnessMs: 0, proveMs: t1 - t0, keyLoaded: warm, ...this.cpuThreads(job) },
    };
  }

  /** Structured circuits prove on the CPU threads, with A·w and B·w from the witness builder. */
  private proveStructured(
    job: ProveJob,
    key: NativeKey,
    circuit: StructuredCircuit<CircuitInputs>,
    warm: boolean,
  ): BackendProof {
    const t0 = performance.now();
    const w = calculateStructuredWitness(circuit, job.shape, job.inputs);
    const t1 = performance.now();
    const out = this.addon.proveEvals(
      key,
      w.witness,
      w.a,
      w.b,
      randomScalar(),
      randomScalar(),
      job.threads ?? this.threads,
      'rerandomized',
      job.background ? 'background' : 'client',
    );
    const t2 = performance.now();
    return {
      points: decodeProof(out),
      publicSignals: [w.publicInput],
      timings: { witnessMs: t1 - t0, proveMs: t2 - t1, keyLoaded: warm, threads: job.threads ?? this.threads },
    };
  }
}
