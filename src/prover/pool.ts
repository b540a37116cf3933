// The worker pool: Piscina threads running a ProverBackend, fronted by zkgate's own bounded FIFO.
// The queue lives on this side, not in Piscina, so that a request whose deadline passes or whose
// caller goes away while waiting just leaves the queue; a proof already running is never killed
// (terminating a thread would throw away its loaded keys), its result is simply dropped.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { Shape } from '../zk/shapes.js';
import { PISCINA_EXEC_ARGV, workerUrl } from '../util/worker-url.js';
import { loadNativeAddon } from '../zk/native-addon.js';
import type {
  AcceleratorOptions,
  BackendName,
  BackendProof,
  ProveJob,
  WarmInfo,
  WarmJob,
  WarmStep,
} from './backend.js';
import { ProverError } from './errors.js';
import type { WarmResult, WorkerConfig, WorkerResult } from './prove.worker.js';

export interface PoolOptions {
  backend: BackendName;
  /** Worker threads; default: the core count. */
  threads?: number;
  /** Requests waiting for a worker beyond which new ones fail fast with prover_busy. */
  maxQueue: number;
  /** Most waiting requests one caller (API key) may hold; default: half of maxQueue, at least 1. */
  maxQueuePerCaller?: number;
  /** Per worker: bytes of keys and witness calculators kept loaded. */
  memoryBudgetBytes: number;
  /** Threads each worker's proof may use; default: twice the cores shared out, at most the cores. */
  curveThreads?: number;
  /** cuda / emulate: devices, resident-key budget and batching. */
  accelerator?: AcceleratorOptions;
  metrics?: MetricsRegistry;
}

export interface RunOptions {
  /** Absolute time (Date.now() ms) after which the caller no longer wants the result. */
  deadline: number;
  signal?: AbortSignal;
  /**
   * Background work (the forester's batch proofs) runs only when no client request waits, and
   * never on the last free worker, so a client's proof starts at once.
   */
  background?: boolean;
  /** Who asks (an API key id, a peer): one caller may hold only its share of the queue. */
  caller?: string;
  /** The place hold() gave this request while it prepared its inputs: run() takes it over. */
  hold?: Hold;
  /**
   * A client's request whose key is being built (or is to be) waits for it up to `ms` (within
   * `until`, the caller's own deadline); its proof then gets its own time from the key's arrival.
   * Without it the key must be there by the deadline.
   */
  keyWait?: { ms: number; until: number };
  /**
   * Which shapes this client's request may have a key built for, decided where it came in (the
   * front's --build-on-demand and exposure), and carried here; the prover's own policy applies too.
   * Without it, the prover's own policy alone.
   */
  mayBuild?: (shape: Shape) => boolean;
}

/** A client request's place in the queue's counts while it prepares its inputs (ProverPool.hold). */
export interface Hold {
  release(): void;
}

/** A proof's result with where its time went: waiting for a worker, then on the worker. */
export type TimedProof = BackendProof & { queueMs: number; proveMs: number };

interface Waiting {
  job: ProveJob;
  background: boolean;
  caller: string | undefined;
  enqueued: number;
  resolve(r: TimedProof): void;
  reject(e: unknown): void;
  cleanup(): void;
}

export class ProverPool {
  readonly backend: BackendName;
  readonly threads: number;
  readonly curveThreads: number;
  /** The process's budget for keys and tables (0: none). */
  readonly memoryBudgetBytes: number;
  private readonly piscina: Piscina;
  private readonly waiting: Waiting[] = [];
  private running = 0;
  private runningBackground = 0;
  private readonly inFlight = new Set<Promise<WorkerResult>>();
  private closed = false;
  private resident = 0;
  private readonly proofs?: ReturnType<MetricsRegistry['counter']>;
  private readonly seconds?: ReturnType<MetricsRegistry['histogram']>;
  private readonly waitSeconds?: ReturnType<MetricsRegistry['histogram']>;
  /**
   * Per shape (background proofs, on one thread, as `bg:` + shape): recent worker time of a proof
   * in ms, a moving average; what admission plans with.
   */
  private readonly estimates = new Map<string, number>();
  /** Proofs on the workers: their shapes and when they started (performance.now()). */
  private readonly started = new Set<{ key: string; at: number }>();
  private readonly maxPerCaller: number;
  private readonly cores: number;
  /** Client requests admitted by hold() and still preparing their inputs: in all, and per caller. */
  private held = 0;
  private readonly heldBy = new Map<string, number>();
  /** Whether client requests are in the pool (admitted, waiting or proving), and who wants to know. */
  private clientsActive = false;
  /** Client requests announced by incoming() and not yet done. */
  private arriving = 0;
  private readonly activityListeners: ((active: boolean) => void)[] = [];

  constructor(private readonly options: PoolOptions) {
    const cores = availableParallelism();
    this.cores = cores;
    this.backend = options.backend;
    this.memoryBudgetBytes = options.memoryBudgetBytes;
    const accelerated = options.backend === 'cuda' || options.backend === 'emulate';
    // With an accelerator a worker spends most of a proof waiting for its batch: twice the cores
    // keep witnesses computing while the device proves the previous batch.
    this.threads = Math.max(1, options.threads ?? (accelerated ? 2 * cores : cores));
    this.maxPerCaller = Math.max(1, options.maxQueuePerCaller || Math.ceil(options.maxQueue / 2));
    // A lone request should still use several cores, and a full pool should not run far more
    // threads than there are cores: at most 2× oversubscribed.
    this.curveThreads =
      options.curveThreads ?? (accelerated ? 1 : Math.min(cores, Math.max(2, Math.ceil((2 * cores) / this.threads))));
    const workerData: WorkerConfig = {
      backend: options.backend,
      memoryBudgetBytes: options.memoryBudgetBytes,
      curveThreads: this.curveThreads,
      ...(options.accelerator ? { accelerator: options.accelerator } : {}),
    };
    this.piscina = new Piscina({
      filename: workerUrl(new URL('./prove.worker.js', import.meta.url)),
      minThreads: this.threads,
      maxThreads: this.threads,
      // Workers hold loaded keys: never retire them for idleness.
      idleTimeout: Infinity,
      workerData,
      execArgv: [...PISCINA_EXEC_ARGV],
    });
    const m = options.metrics;
    if (m) {
      m.gauge('zkgate_prover_queue_depth', 'Proof requests waiting for a worker', [], () => this.waiting.length);
      m.gauge('zkgate_prover_running', 'Proofs being computed', [], () => this.running);
      m.gauge('zkgate_prover_threads', 'Prover worker threads', [], () => this.threads);
      m.gauge(
        'zkgate_prover_resident_bytes',
        'Bytes of keys held by the last worker to report',
        [],
        () => this.resident,
      );
      if (accelerated) this.acceleratorGauges(m);
      if (options.backend === 'native') this.preemptionGauges(m);
      this.proofs = m.counter('zkgate_proofs_total', 'Proofs by circuit and outcome', ['circuit', 'outcome']);
      this.seconds = m.histogram('zkgate_proof_seconds', 'Time a worker spent on a proof', ['circuit']);
      this.waitSeconds = m.histogram(
        'zkgate_prover_queue_wait_seconds',
        'Time a proof waited for a worker before proving started',
        ['circuit'],
      );
    }
  }

  /** How often and how long background proofs stepped aside for client proofs (the addon is the process's). */
  private preemptionGauges(m: MetricsRegistry): void {
    const status = loadNativeAddon();
    if (!status.ok) return;
    const stat = (k: 'pauses' | 'pausedMs' | 'slices') => status.addon.preemptStats()[k];
    m.gauge('zkgate_prover_background_pauses', 'Times a background proof paused for client proofs', [], () =>
      stat('pauses'),
    );
    m.gauge(
      'zkgate_prover_background_paused_seconds',
      'Seconds background proofs spent paused for client proofs',
      [],
      () => stat('pausedMs') / 1000,
    );
    m.gauge(
      'zkgate_prover_background_slices',
      'Times a background proof ran a slice after waiting its longest for client proofs',
      [],
      () => stat('slices'),
    );
  }

  /** The native engine's batching and device memory (the workers' engine is the process's). */
  private acceleratorGauges(m: MetricsRegistry): void {
    const status = loadNativeAddon();
    if (!status.ok) return;
    const stat = (k: 'proofs' | 'batches' | 'largestBatch' | 'residentBytes') => status.addon.engineStats()?.[k] ?? 0;
    m.gauge('zkgate_prover_device_proofs', 'Proofs made by the accelerator engine', [], () => stat('proofs'));
    m.gauge('zkgate_prover_device_batches', 'Device passes (each proves a batch of one shape)', [], () =>
      stat('batches'),
    );
    m.gauge('zkgate_prover_device_largest_batch', 'Most proofs proved in one device pass', [], () =>
      stat('largestBatch'),
    );
    m.gauge('zkgate_prover_device_resident_bytes', 'Bytes of proving keys resident on the devices', [], () =>
      stat('residentBytes'),
    );
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Calls `listener` whenever client requests come into an empty pool (true) or the last one
   * leaves (false): a request counts from its admission (hold) to its proof's end. Background work
   * that would slow them (key builds) stands still meanwhile.
   */
  onClientActivity(listener: (active: boolean) => void): void {
    this.activityListeners.push(listener);
  }

  /**
   * A client's request on its way to this pool (from its arrival in this process: the adapter's
   * call, before the gRPC hop and the inputs), counted as client activity until the returned
   * function is called. Only the activity: admission is hold()'s.
   */
  incoming(): () => void {
    this.arriving++;
    this.activity();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.arriving--;
      this.activity();
    };
  }

  private activity(): void {
    const active = this.arriving + this.held + this.running - this.runningBackground + this.clientWaiting() > 0;
    if (active === this.clientsActive) return;
    this.clientsActive = active;
    for (const l of this.activityListeners) l(active);
  }

  get busy(): number {
    return this.running;
  }

  /**
   * Why a client request is refused at once, if it is: the queue is full, its caller holds its
   * share already, or the proofs ahead of it (at their measured times) would take it past its
   * deadline. Refusing now lets the caller retry elsewhere instead of waiting to time out.
   */
  private refusal(job: ProveJob | undefined, deadline: number, caller: string | undefined): ProverError | undefined {
    const mustWait = this.running + this.held >= this.threads || this.clientWaiting() > 0;
    if (!mustWait) return undefined;
    const shape = job?.shape ?? 'unknown';
    // Requests still preparing their inputs will queue too: they count as waiting already.
    const waiting = this.clientWaiting() + this.held;
    if (waiting >= this.options.maxQueue) {
      this.proofs?.inc([shape, 'busy']);
      return new ProverError(
        'prover_busy',
        `Prover busy: ${this.running} proofs running and ${waiting} queued (the limit); retry shortly`,
      );
    }
    if (caller !== undefined) {
      let mine = this.heldBy.get(caller) ?? 0;
      for (const w of this.waiting) if (!w.background && w.caller === caller) mine++;
      if (mine >= this.maxPerCaller) {
        this.proofs?.inc([shape, 'busy_caller']);
        return new ProverError(
          'prover_busy',
          `Prover busy: this client already has ${mine} proofs queued, the most one client may hold; retry when they finish`,
        );
      }
    }
    // The shape (and so the time the proof takes) is known once the inputs are.
    if (!job) return undefined;
    const expected = this.expectedFinishMs(job.shape);
    if (expected !== undefined && Date.now() + expected > deadline) {
      this.proofs?.inc([job.shape, 'busy_deadline']);
      return new ProverError(
        'prover_busy',
        `Prover busy: a ${job.shape} proof queued now would finish in about ${(expected / 1000).toFixed(1)} s ` +
          `(${this.running} running, ${waiting} queued), after its deadline in ${(Math.max(0, deadline - Date.now()) / 1000).toFixed(1)} s; retry shortly`,
      );
    }
    return undefined;
  }

  /**
   * When a client proof queued now would be done, in ms from now, from the measured proof times
   * (see finishAfter). Unknown while a shape in the estimate has not been measured yet.
   */
  private expectedFinishMs(shape: string): number | undefined {
    const own = this.estimates.get(shape);
    if (own === undefined) return undefined;
    const now = performance.now();
    const running: number[] = [];
    for (const r of this.started) {
      const e = this.estimates.get(r.key);
      if (e === undefined) return undefined;
      running.push(Math.max(0, e - (now - r.at)));
    }
    const queued: number[] = [];
    for (const w of this.waiting) {
      if (w.background) continue;
      const e = this.estimates.get(w.job.shape);
      if (e === undefined) return undefined;
      queued.push(e);
    }
    return finishAfter(running, this.threads, queued, own);
  }

  /**
   * One warm-up step of the job's shape on one worker: the process's workers share keys and
   * tables, so a start that loads several shapes parses each key once, on as many workers at a
   * time as there are.
   */
  async warmOne(job: ProveJob, step: WarmStep = 'all'): Promise<WarmInfo> {
    const r = (await this.piscina.run({ ...job, inputs: {}, step }, { name: 'warm' })) as WarmResult;
    if (!r.ok) throw new ProverError('prover_internal', `warming ${job.shape} failed: ${r.message}`);
    const { ok: _ok, threadId: _t, ...info } = r;
    return info;
  }

  /**
   * Loads the job's key, witness calculator and tables in every worker (start-up warm-up, beside
   * the queue), and calculates the job's witness there once where it has inputs (with step
   * 'proof', proves them once). Piscina gives
   * concurrent tasks to idle workers one each; a worker that was busy may take two, so rounds
   * repeat until every worker has answered.
   */
  async warmAll(job: ProveJob | WarmJob): Promise<{ workers: number } & WarmInfo> {
    const seen = new Set<number>();
    let loadMs = 0;
    let witnessMs: number | undefined;
    let proofMs: number | undefined;
    let witnessError: string | undefined;
    let tablesReady = true;
    let tableFile: string | undefined;
    let evictions: number | undefined;
    for (let round = 0; round < 8 && seen.size < this.threads; round++) {
      const results = await Promise.all(
        Array.from(
          { length: this.threads - seen.size },
          () => this.piscina.run(job, { name: 'warm' }) as Promise<WarmResult>,
        ),
      );
      for (const r of results) {
        if (!r.ok) throw new ProverError('prover_internal', `warming ${job.shape} failed: ${r.message}`);
        seen.add(r.threadId);
        loadMs = Math.max(loadMs, r.loadMs);
        if (r.witnessMs !== undefined) witnessMs = Math.max(witnessMs ?? 0, r.witnessMs);
        if (r.proofMs !== undefined) proofMs = Math.max(proofMs ?? 0, r.proofMs);
        witnessError ??= r.witnessError;
        tablesReady &&= r.tablesReady;
        tableFile ??= r.tableFile;
        if (r.evictions !== undefined) evictions = Math.max(evictions ?? 0, r.evictions);
      }
    }
    return {
      workers: seen.size,
      loadMs,
      ...(witnessMs !== undefined ? { witnessMs } : {}),
      ...(proofMs !== undefined ? { proofMs } : {}),
      ...(witnessError !== undefined ? { witnessError } : {}),
      tablesReady,
      ...(tableFile ? { tableFile } : {}),
      ...(evictions !== undefined ? { evictions } : {}),
    };
  }

  /**
   * Admits a client request before it prepares its inputs (tree paths, hashing), so that a burst
   * beyond the queue is refused for the price of a few counters rather than after that work. The
   * place counts as queued until run() takes it over or release() gives it back. Throws the
   * refusal (prover_busy) when there is no place.
   */
  hold({ deadline, caller }: RunOptions): Hold {
    if (this.closed) throw new ProverError('prover_unavailable', 'Prover is shutting down');
    const refused = this.refusal(undefined, deadline, caller);
    if (refused) throw refused;
    this.held++;
    if (caller !== undefined) this.heldBy.set(caller, (this.heldBy.get(caller) ?? 0) + 1);
    this.activity();
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.held--;
        if (caller !== undefined) {
          const n = (this.heldBy.get(caller) ?? 1) - 1;
          if (n > 0) this.heldBy.set(caller, n);
          else this.heldBy.delete(caller);
        }
        // A request that goes on to run() is in the queue by then (run() releases, then queues).
        queueMicrotask(() => this.activity());
      },
    };
  }

  /** Proves `job` on a worker; fails fast when it could not be done in time (see refusal). */
  run(job: ProveJob, { deadline, signal, background = false, caller, hold }: RunOptions): Promise<TimedProof> {
    hold?.release();
    if (this.closed) return Promise.reject(new ProverError('prover_unavailable', 'Prover is shutting down'));
    const refused = background ? undefined : this.refusal(job, deadline, caller);
    if (refused) return Promise.reject(refused);
    return new Promise<TimedProof>((resolve, reject) => {
      // Background proofs use one thread, and pause while client proofs run on the other workers.
      const entry: Waiting = {
        job: background ? { ...job, threads: 1, background: true } : job,
        background,
        caller,
        enqueued: performance.now(),
        resolve,
        reject,
        cleanup: () => {},
      };
      const leave = (err: ProverError) => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        entry.cleanup();
        this.proofs?.inc([job.shape, i >= 0 ? 'expired_in_queue' : 'expired']);
        this.activity();
        reject(err);
      };
      // No deadline beyond setTimeout's range (background work): the timer would fire at once.
      const wait = Math.max(0, deadline - Date.now());
      const timer =
        wait <= 2 ** 31 - 1
          ? setTimeout(
              () => leave(new ProverError('prover_timeout', `Proof for ${job.shape} timed out: deadline passed`)),
              wait,
            )
          : undefined;
      const onAbort = () => leave(new ProverError('prover_timeout', `Proof for ${job.shape} cancelled by the caller`));
      signal?.addEventListener('abort', onAbort, { once: true });
      entry.cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) return onAbort();
      this.waiting.push(entry);
      this.pump();
      this.activity();
    });
  }

  private clientWaiting(): number {
    let n = 0;
    for (const w of this.waiting) if (!w.background) n++;
    return n;
  }

  /** The next job to start: clients first; background only with a worker to spare for clients. */
  private takeNext(): Waiting | undefined {
    const client = this.waiting.findIndex((w) => !w.background);
    if (client >= 0) return this.waiting.splice(client, 1)[0];
    if (this.waiting.length === 0 || this.runningBackground >= Math.max(1, this.threads - 1)) return undefined;
    return this.waiting.shift();
  }

  /**
   * A client proof's CPU threads: the pool's per-proof threads when it runs alone, fewer when
   * others run beside it, so the proofs on the workers use about one thread per core. A full
   * pool oversubscribed 2× was slower: on 2 cores two proofs of Light's inclusion_26_1 on one
   * thread each made 10.75 proofs/s, on two threads each 9.25 (benchmarks/RESULTS.md).
   */
  private sized(w: Waiting): ProveJob {
    if (w.background || this.backend !== 'native' || w.job.threads !== undefined) return w.job;
    const threads = Math.min(this.curveThreads, Math.max(1, Math.floor(this.cores / this.running)));
    return threads === this.curveThreads ? w.job : { ...w.job, threads };
  }

  private pump(): void {
    while (this.running < this.threads) {
      const next = this.takeNext();
      if (!next) return;
      this.running++;
      if (next.background) this.runningBackground++;
      const started = performance.now();
      const queueMs = started - next.enqueued;
      this.waitSeconds?.observe(queueMs / 1000, [next.job.shape]);
      const estimateKey = next.background ? `bg:${next.job.shape}` : next.job.shape;
      const onWorker = { key: estimateKey, at: started };
      this.started.add(onWorker);
      const task = this.piscina.run(this.sized(next)) as Promise<WorkerResult>;
      this.inFlight.add(task);
      task
        .then(
          (r) => {
            next.cleanup();
            if (r.ok) {
              this.resident = r.residentBytes;
              const proveMs = performance.now() - started;
              this.seconds?.observe(proveMs / 1000, [next.job.shape]);
              this.proofs?.inc([next.job.shape, 'ok']);
              const prev = this.estimates.get(estimateKey);
              this.estimates.set(estimateKey, prev === undefined ? proveMs : 0.7 * prev + 0.3 * proveMs);
              next.resolve({ ...r, queueMs, proveMs });
            } else {
              this.proofs?.inc([next.job.shape, r.unsatisfied ? 'unsatisfied' : 'error']);
              next.reject(new ProverError(r.unsatisfied ? 'proof_failed' : 'prover_internal', r.message));
            }
          },
          (e: unknown) => {
            next.cleanup();
            this.proofs?.inc([next.job.shape, 'error']);
            next.reject(new ProverError('prover_internal', `Prover worker failed: ${(e as Error)?.message ?? e}`));
          },
        )
        .finally(() => {
          this.started.delete(onWorker);
          this.inFlight.delete(task);
          this.running--;
          if (next.background) this.runningBackground--;
          this.pump();
          this.activity();
        });
    }
  }

  /**
   * Refuses what waits, lets the proofs that run finish (a worker terminated inside the native
   * prover's call aborts the process), then stops the workers.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiting.splice(0)) {
      w.cleanup();
      w.reject(new ProverError('prover_unavailable', 'Prover is shutting down'));
    }
    await Promise.allSettled(this.inFlight);
    await this.piscina.destroy();
  }
}

/**
 * When each of `threads` workers is free, in ms from now, once the jobs it runs (`running`: ms
 * more each) and `queued` (ms each, in order) are done, each queued job going to the worker free
 * first. (Averaging the work over the workers instead would count a long background proof on one
 * worker against a request the other worker serves in a moment.)
 */
export function freeAfter(running: readonly number[], threads: number, queued: readonly number[]): number[] {
  const freeAt = [...running];
  while (freeAt.length < threads) freeAt.push(0);
  for (const ms of queued) {
    const i = firstFree(freeAt);
    freeAt[i] = freeAt[i]! + ms;
  }
  return freeAt;
}

/** When a job taking `own` ms, queued behind `queued`, would be done (see freeAfter). */
export function finishAfter(
  running: readonly number[],
  threads: number,
  queued: readonly number[],
  own: number,
): number {
  const freeAt = freeAfter(running, threads, queued);
  return freeAt[firstFree(freeAt)]! + own;
}

function firstFree(freeAt: readonly number[]): number {
  let i = 0;
  for (let j = 1; j < freeAt.length; j++) if (freeAt[j]! < freeAt[i]!) i = j;
  return i;
}
