// The prover service: validity proofs over the trees (witnesses built here, on one snapshot, then
// proved on the pool), explicit-witness proofs (Light's /prove), circuit status and warm-up.
import { statSync } from 'node:fs';
import type { Logger } from '../obs/log.js';
import type { TreeStore } from '../state/index.js';
import { publicInputHash } from '../zk/hash-chain.js';
import {
  circuitInputs,
  publicInputs,
  type CircuitInputs,
  type InclusionWitness,
  type NonInclusionWitness,
} from '../zk/inputs.js';
import { KeyError, type KeyStore, type ProvingKey } from '../zk/keys.js';
import { compressProof, toRaw } from '../zk/proof-format.js';
import { findShape, isBatchShape, shapeByName, SHAPES, type CircuitFamily, type Shape } from '../zk/shapes.js';
import type { BuildNeed } from './build-budget.js';
import { buildRefusal } from './build-policy.js';
import { KeyBuildQueue, type BuildPriority, type BuildView } from './build-queue.js';
import { startKeyBuild } from '../zk/setup/key-build-process.js';
import { ProverError } from './errors.js';
import type { ProveJob } from './backend.js';
import type { ProverPool, RunOptions } from './pool.js';
import type { Proof, ProveResult, ValidityProofResult } from './types.js';
import { warmUpInputs } from './warm-inputs.js';
import { buildWitnesses, type ValidityRequest } from './witness.js';

export interface ExplicitProveRequest {
  circuitType: CircuitFamily;
  stateTreeHeight: number;
  addressTreeHeight: number;
  publicInputHash?: bigint;
  accounts: InclusionWitness[];
  addresses: NonInclusionWitness[];
}

export interface CircuitStatus {
  name: string;
  status: 'ready' | 'missing' | 'stale' | 'building' | 'queued';
  keyKind: string;
}

/** The keys on file and the builds under way, as /health shows them. */
export interface KeysView {
  ready: string[];
  building: BuildView[];
  queued: BuildView[];
}

export interface ProverServiceOptions {
  store: TreeStore;
  keys: KeyStore;
  pool: ProverPool;
  log: Logger;
  /**
   * Called with the key of every proof before the proof is made (the embedded ledger installs its
   * verifying key into Light's programs here, so the proof verifies there when it is returned).
   */
  onKey?: (key: ProvingKey) => void;
  /**
   * Whether a request may start the build of a shape's key (--build-on-demand; default: every
   * shape). Preloads, the warm-up and the forester's batch keys are the operator's and always may.
   */
  mayBuild?: (shape: Shape) => boolean;
  /**
   * Why a build may not start now (memory or disk: build-budget.ts), given what the builds under
   * way will still take; undefined when it fits. Holds for every build, the operator's too.
   */
  buildRefusal?: (shape: Shape, pending: BuildNeed) => string | undefined;
  /** Where missing keys are built (build-queue.ts); default: a queue of this key store's builds. */
  builds?: KeyBuildQueue;
}

/** What a warm-up waits for before it loads anything, and how /health names it. */
export interface WarmUpWait {
  until: Promise<void>;
  what: string;
}

/** The start-up warm-up of the configured shapes: what /health reports until it is done. */
export interface WarmUpState {
  phase: 'idle' | 'warming' | 'ready';
  total: number;
  done: number;
  /** The shape being loaded now. */
  current?: string;
  /** What the warm-up waits for before it loads anything (a follower's backfill). */
  waiting?: string;
  /** Shapes whose key could not be built or loaded, with why. */
  failed: { circuit: string; error: string }[];
  /** Preloaded shapes that prove without fixed-base tables: the memory budget had no room (bytes: theirs). */
  withoutTables?: { circuit: string; bytes: number }[];
  /** Listed shapes whose keys did not fit the memory budget beside the earlier ones': loaded on first use. */
  notPreloaded?: string[];
  /** Start to ready, in ms. */
  ms?: number;
}

export class ProverService {
  private warmState: WarmUpState = { phase: 'idle', total: 0, done: 0, failed: [] };
  private warming: Promise<WarmUpState> | undefined;
  /** Set by close(): a warm-up cut short by it is not a failure. */
  private closing = false;
  /** Keys in use (built first where missing), with the bytes their files take (a worker's memory budget counts them). */
  private readonly loaded = new Map<string, Promise<ProvingKey & { keyBytes: number }>>();
  readonly builds: KeyBuildQueue;

  constructor(private readonly o: ProverServiceOptions) {
    const { keys } = o;
    this.builds =
      o.builds ??
      new KeyBuildQueue({
        start: (shape, nice) => startKeyBuild({ dataDir: keys.dataDir, seed: keys.seed, shape: shape.name, nice }),
        ...(o.buildRefusal ? { refusal: o.buildRefusal } : {}),
        log: o.log,
      });
    o.pool.onClientActivity((active) => this.builds.clientsActive(active));
  }

  get backendName(): string {
    return this.o.pool.backend;
  }

  /**
   * A shape's key, built first where it has none, for whoever needs it (build-queue.ts): a
   * client's request is held to mayBuild, unless the key's build is planned already. A request
   * with `keyWait` waits for a build that is expected done within it (and is refused at once with
   * the time left otherwise); without it, the key must be there by the deadline.
   */
  private async key(
    shape: Shape,
    run: RunOptions,
    priority: BuildPriority,
  ): Promise<ProvingKey & { keyBytes: number }> {
    let p = this.loaded.get(shape.name);
    if (!p) {
      const build = this.o.keys.willBuild(shape);
      if (build && !this.builds.has(shape.name)) {
        if (priority === 'client' && !this.mayBuild(shape, run))
          throw new ProverError('key_not_built', buildRefusal(shape));
        // Whether it fits the machine at all; beside other builds, the queue waits for room.
        const refusal = this.o.buildRefusal?.(shape, { vars: 0, memoryBytes: 0, diskBytes: 0, ms: 0 });
        if (refusal) throw new ProverError('key_not_built', refusal);
      }
      p = (build ? this.builds.want(shape, priority) : Promise.resolve())
        .then(() => this.o.keys.ensure(shape.name))
        .then((k) => {
          // Installed as soon as it is here: a first proof paid the program's patch (30 ms and more).
          this.o.onKey?.(k);
          return { ...k, keyBytes: statSync(k.zkeyPath).size + (k.wasmPath ? statSync(k.wasmPath).size : 0) };
        });
      p.catch((e: unknown) => {
        this.loaded.delete(shape.name);
        // A shape --proving-keys light has no key for: the caller is told; nothing broke.
        if (e instanceof KeyError && e.kind === 'key_missing')
          this.o.log.warn('no proving key for circuit', { circuit: shape.name, error: e.message });
        else if (!build) this.o.log.error('proving key could not be loaded', { circuit: shape.name, error: String(e) });
      });
      this.loaded.set(shape.name, p);
    } else if (this.builds.has(shape.name)) void this.builds.want(shape, priority); // its build, raised
    // Beyond setTimeout's range (a preload's deadline), the timer would fire at once: wait for the key.
    if (run.deadline - Date.now() > 2 ** 31 - 1) return p;
    let until = run.deadline;
    if (run.keyWait && this.builds.has(shape.name)) {
      until = Math.min(Date.now() + run.keyWait.ms, run.keyWait.until);
      const eta = this.builds.etaMs(shape.name);
      if (eta !== undefined && Date.now() + eta > until) {
        const s = Math.ceil(eta / 1000);
        throw new ProverError(
          'circuit_warming_up',
          `Circuit ${shape.name} is warming up: its proving key is being built, about ${s} s more, longer than a request waits (${Math.round(run.keyWait.ms / 1000)} s, --key-build-wait-ms); retry in about ${s} s`,
        );
      }
    }
    let timer: NodeJS.Timeout | undefined;
    const warming = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ProverError(
              'circuit_warming_up',
              `Circuit ${shape.name} is warming up: its proving key is still being built; retry in a few seconds`,
            ),
          ),
        Math.max(0, until - Date.now()),
      );
    });
    try {
      return await Promise.race([p, warming]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether a client's request may have `shape`'s key built: this prover's policy, and the request's own right. */
  private mayBuild(shape: Shape, run: RunOptions): boolean {
    return (this.o.mayBuild?.(shape) ?? true) && (run.mayBuild?.(shape) ?? true);
  }

  /**
   * The run options after waiting `waitedMs` for a key's build: the proof gets the time it had,
   * from now, within the caller's own deadline.
   */
  private afterKeyWait(run: RunOptions, waitedMs: number): RunOptions {
    if (!run.keyWait || waitedMs <= 0) return run;
    return { ...run, deadline: Math.min(run.keyWait.until, run.deadline + waitedMs) };
  }

  /**
   * Builds (if needed) and loads the keys of these shapes, every build queued at once at
   * `priority` (the preloads', a first start's or the forester's).
   */
  async preload(names: readonly string[], priority: BuildPriority = 'preload'): Promise<void> {
    const all = names.map((name) => this.key(shapeByName(name), { deadline: Number.MAX_SAFE_INTEGER }, priority));
    await Promise.all(all);
  }

  /** The keys ready on file, and the builds running and queued. */
  keysView(): KeysView {
    return {
      ready: this.o.keys
        .list()
        .filter((k) => k.status === 'ready')
        .map((k) => k.shape),
      ...this.builds.view(),
    };
  }

  /** The start-up warm-up's end (at once where none runs). */
  whenWarm(): Promise<WarmUpState> {
    return this.warming ?? Promise.resolve(this.warmUpState());
  }

  /**
   * Every listed shape: its key built if missing, then loaded with its witness calculator and
   * fixed-base tables in every worker, so the first proofs run at full speed. Within the memory
   * budget the list is an order of importance, and nothing listed evicts another: keys first, in
   * list order while they fit (the rest load on first use); then tables, in list order while they
   * fit beside the keys (the rest prove without them); both reported. Progress is `warmUp()`'s
   * state; a shape that fails is logged and the others go on.
   */
  warmUp(names: readonly string[], after?: WarmUpWait): Promise<WarmUpState> {
    this.warming = this.warmUpNow(names, after);
    return this.warming;
  }

  private async warmUpNow(names: readonly string[], after?: WarmUpWait): Promise<WarmUpState> {
    if (after) {
      this.warmState = { phase: 'warming', total: names.length, done: 0, failed: [], waiting: after.what };
      await after.until;
    }
    const started = Date.now();
    this.warmState = { phase: 'warming', total: names.length, done: 0, failed: [] };
    // The workers compile each circuit's witness code whole when they load it (prove.worker.ts);
    // what a worker's first proof of a shape still paid (1.5–2× its steady time after /health said
    // ok: the witness path's first run, the tables' pages, the prover's buffers) is paid here: each
    // job carries valid inputs (warm-inputs.ts), and every worker proves each shape once.
    // Every listed key's build queued at once, in list order (build-queue.ts runs them).
    const keys = names.map((name) =>
      this.key(shapeByName(name), { deadline: Number.MAX_SAFE_INTEGER }, 'preload').catch((e: unknown) => e as Error),
    );
    const jobOf = async (i: number): Promise<ProveJob> => {
      const shape = shapeByName(names[i]!);
      const key = await keys[i]!;
      if (key instanceof Error) throw key;
      const inputs = warmUpInputs(shape);
      return {
        shape: shape.name,
        zkeyPath: key.zkeyPath,
        wasmPath: key.wasmPath,
        keyBytes: key.keyBytes,
        inputs: inputs ?? {},
        ...(key.entry.setup === 'light' ? { light: true } : {}),
      };
    };
    const jobs: (ProveJob | Error | 'no-room')[] = [];
    const planned = new Map<string, number>();
    const withoutTables: { circuit: string; bytes: number }[] = [];
    let evictions: [number, number] | undefined;
    const counted = (ev: number | undefined) => {
      if (ev !== undefined) evictions = [Math.min(evictions?.[0] ?? ev, ev), Math.max(evictions?.[1] ?? ev, ev)];
    };
    const width = Math.max(1, this.o.pool.threads);
    // Each shape's key, built where missing. A failure here shows again, and is recorded, in warmEvery.
    await inOrder([...names.keys()], width, async (i) => {
      jobs[i] = await jobOf(i).catch((e: unknown) => e as Error);
    });
    // A shape's key loaded, where it fits beside the keys already in (never evicting).
    const loadKey = async (i: number) => {
      const job = jobs[i]!;
      if (job === 'no-room' || job instanceof Error) return;
      this.warmState.current = job.shape;
      const info = await this.o.pool.warmOne(job, 'key').catch(() => undefined);
      if (info?.noRoom) jobs[i] = 'no-room';
      if (info?.plannedTableBytes) planned.set(job.shape, info.plannedTableBytes);
      counted(info?.evictions);
    };
    // A shape's tables reserved where the budget has room beside what is in it: true if claimed.
    const claim = async (job: ProveJob | Error | 'no-room' | undefined): Promise<boolean> => {
      if (job === undefined || job === 'no-room' || job instanceof Error || !planned.has(job.shape)) return false;
      const r = await this.o.pool.warmOne(job, 'claim').catch(() => undefined);
      if (r?.tables === 'no-room') withoutTables.push({ circuit: job.shape, bytes: planned.get(job.shape)! });
      return r?.tables === 'claimed';
    };
    const fill = async (job: ProveJob) => {
      this.warmState.current = job.shape;
      await this.o.pool.warmOne(job, 'tables').catch(() => undefined);
    };
    const claimed: ProveJob[] = [];
    const keyBytes = jobs.reduce(
      (n, j) => n + (j === 'no-room' || j instanceof Error ? 0 : statSync(j.zkeyPath).size),
      0,
    );
    const budget = this.o.pool.memoryBudgetBytes;
    if (budget <= 0 || keyBytes <= budget) {
      // Every listed key fits: keys first, as many at a time as there are workers, each taking
      // the next shape as it is free (each key is parsed once, by one worker; the workers share
      // it); then tables claimed in list order (quick) and filled as many at a time.
      await inOrder([...names.keys()], width, loadKey);
      for (const job of jobs) if (await claim(job)) claimed.push(job as ProveJob);
    } else {
      // The list is longer than the budget holds even without tables: in list order each shape
      // takes its key and then its tables while they fit, so the first listed prove at full speed.
      for (let i = 0; i < names.length; i++) {
        await loadKey(i);
        if (await claim(jobs[i])) claimed.push(jobs[i] as ProveJob);
      }
    }
    await inOrder(claimed, width, fill);
    const notPreloaded: string[] = [];
    for (let i = 0; i < names.length; i++) {
      const job = jobs[i]!;
      if (job !== 'no-room') counted(await this.warmEvery(names[i]!, job));
      else {
        notPreloaded.push(names[i]!);
        this.warmState.done++;
      }
    }
    delete this.warmState.current;
    if (withoutTables.length > 0) {
      this.warmState.withoutTables = withoutTables;
      const mib = (b: number) => Math.ceil(b / 2 ** 20);
      this.o.log.warn('preloaded circuits without fixed-base tables (slower proofs): no room in --prover-memory-mb', {
        circuits: withoutTables.map((w) => w.circuit),
        tablesMiB: mib(withoutTables.reduce((n, w) => n + w.bytes, 0)),
      });
    }
    if (notPreloaded.length > 0) {
      this.warmState.notPreloaded = notPreloaded;
      this.o.log.warn('preloaded circuits not loaded: their keys do not fit --prover-memory-mb (loaded on first use)', {
        circuits: notPreloaded,
      });
    }
    // Only where something else took the budget meanwhile (a key loaded for a request).
    if (evictions && evictions[1] > evictions[0])
      this.o.log.warn('preloaded circuits exceed --prover-memory-mb: the least recently used were evicted', {
        evicted: evictions[1] - evictions[0],
      });
    this.warmState.phase = 'ready';
    this.warmState.ms = Date.now() - started;
    return this.warmUpState();
  }

  /**
   * One shape in every worker (its key found loaded, or loaded now); returns the addon's eviction
   * count after it. A failure is recorded and logged.
   */
  private async warmEvery(name: string, job: ProveJob | Error): Promise<number | undefined> {
    this.warmState.current = name;
    try {
      if (job instanceof Error) throw job;
      const w = await this.o.pool.warmAll(Object.keys(job.inputs).length > 0 ? { ...job, step: 'proof' } : job);
      if (w.witnessError !== undefined)
        this.o.log.warn("circuit warm-up proof failed: the first caller pays the proof path's first run", {
          circuit: name,
          error: w.witnessError,
        });
      this.o.log.info('circuit warm', {
        circuit: name,
        workers: w.workers,
        ms: Math.round(w.loadMs),
        ...(w.witnessMs !== undefined ? { witnessMs: Math.round(w.witnessMs) } : {}),
        ...(w.proofMs !== undefined ? { proofMs: Math.round(w.proofMs) } : {}),
        tables: w.tablesReady,
        ...(w.tableFile ? { tableFile: w.tableFile } : {}),
      });
      return w.evictions;
    } catch (e) {
      // Stopped with the process (its workers closed under it): not a failure to report.
      if (this.closing) {
        this.o.log.info('circuit warm-up stopped: the prover is closing', { circuit: name });
        return undefined;
      }
      this.warmState.failed.push({ circuit: name, error: String((e as Error)?.message ?? e) });
      this.o.log.error('circuit warm-up failed', { circuit: name, error: String(e) });
      return undefined;
    } finally {
      this.warmState.done++;
    }
  }

  warmUpState(): WarmUpState {
    const { withoutTables, notPreloaded, ...rest } = this.warmState;
    return {
      ...rest,
      failed: [...this.warmState.failed],
      ...(withoutTables ? { withoutTables: [...withoutTables] } : {}),
      ...(notPreloaded ? { notPreloaded: [...notPreloaded] } : {}),
    };
  }

  private async proveShape(
    shape: Shape,
    accounts: InclusionWitness[],
    addresses: NonInclusionWitness[],
    run: RunOptions,
  ): Promise<Proof> {
    return this.proveInputs(shape, () => circuitInputs(shape, accounts, addresses), run);
  }

  /**
   * A batch circuit's proof (the forester's), at background priority: client proofs go first. Its
   * key is installed into Light's account-compression program like the validity keys are.
   */
  async proveBatch(circuit: string, inputs: CircuitInputs): Promise<Proof> {
    const shape = shapeByName(circuit);
    if (!isBatchShape(shape)) throw new ProverError('invalid_argument', `${circuit} is not a batch circuit`);
    return this.proveInputs(shape, () => inputs, { deadline: Number.MAX_SAFE_INTEGER, background: true }, 'forester');
  }

  private async proveInputs(
    shape: Shape,
    make: () => CircuitInputs,
    run: RunOptions,
    priority: BuildPriority = 'client',
  ): Promise<Proof> {
    const asked = Date.now();
    const key = await this.key(shape, run, priority);
    run = this.afterKeyWait(run, Date.now() - asked);
    this.o.onKey?.(key);
    const inputs = make();
    const r = await this.o.pool.run(
      {
        shape: shape.name,
        zkeyPath: key.zkeyPath,
        wasmPath: key.wasmPath,
        keyBytes: key.keyBytes,
        inputs,
        ...(key.entry.setup === 'light' ? { light: true } : {}),
      },
      run,
    );
    this.o.log.info('proof', {
      circuit: shape.name,
      ...(run.caller ? { caller: run.caller } : {}),
      ...(run.background ? { background: true } : {}),
      queueMs: Math.round(r.queueMs),
      proveMs: Math.round(r.proveMs),
      ...(r.timings ? { witnessMs: Math.round(r.timings.witnessMs), coreMs: Math.round(r.timings.proveMs) } : {}),
    });
    return {
      points: r.points,
      compressed: compressProof(r.points),
      raw: toRaw(r.points),
      publicInputs: publicInputs(shape, inputs),
      keySha256: key.entry.sha256,
    };
  }

  /** The verification key a shape's proofs need (its key is built first if there is none). */
  async verifyingKey(circuit: string, run: RunOptions): Promise<{ keySha256: string; vk: ProvingKey['vk'] }> {
    const key = await this.key(shapeByName(circuit), run, 'client');
    return { keySha256: key.entry.sha256, vk: key.vk };
  }

  async getValidityProof(req: ValidityRequest, run: RunOptions): Promise<ValidityProofResult> {
    // Admitted (or refused) before the witnesses are built: see ProverPool.hold.
    const hold = this.o.pool.hold(run);
    try {
      // A large StateSync write in progress leaves nodes ahead of the root: witnesses wait for it.
      await this.o.store.settled();
      let w = buildWitnesses(this.o.store, req);
      if (w.shape) {
        // The key first: where its build took a while, the witnesses are read again, so that the
        // proof's roots are the trees' latest rather than those of the request's arrival.
        const asked = Date.now();
        await this.key(w.shape, run, 'client');
        const waited = Date.now() - asked;
        if (waited > 50) {
          run = this.afterKeyWait(run, waited);
          await this.o.store.settled();
          w = buildWitnesses(this.o.store, req);
        }
      }
      const base = { accounts: w.accounts, addresses: w.addresses, slot: w.slot };
      if (!w.shape) return { ...base, circuit: '' };
      const proof = await this.proveShape(w.shape, w.accountWitnesses, w.addressWitnesses, { ...run, hold });
      return { ...base, proof, circuit: w.shape.name };
    } catch (e) {
      // The witnesses came from our own trees: a circuit that rejects them is our fault.
      if (e instanceof ProverError && e.kind === 'proof_failed')
        throw new ProverError('prover_internal', `Internal server error: ${e.message}`, { cause: e });
      throw e;
    } finally {
      hold.release();
    }
  }

  /** Light's /prove: explicit witnesses, checked against the shape before proving. */
  async prove(req: ExplicitProveRequest, run: RunOptions): Promise<ProveResult> {
    const shape = explicitShape(req);
    const { accounts, addresses } = req;
    // Admitted (or refused) before hashing the inputs: see ProverPool.hold.
    const hold = this.o.pool.hold(run);
    try {
      if (shape.version === 2 && req.publicInputHash !== undefined) this.checkPublicInputHash(req);
      const proof = await this.proveShape(shape, accounts, addresses, { ...run, hold });
      return { proof, circuit: shape.name };
    } finally {
      hold.release();
    }
  }

  /** A V2 request's publicInputHash must be its inputs' (Light's prover checks it the same way). */
  private checkPublicInputHash({ accounts, addresses, publicInputHash: given }: ExplicitProveRequest): void {
    const expected = publicInputHash({
      roots: accounts.map((a) => a.root),
      leaves: accounts.map((a) => a.leaf),
      addressRoots: addresses.map((a) => a.root),
      addresses: addresses.map((a) => a.value),
    });
    if (expected !== given)
      throw new ProverError(
        'proof_failed',
        `publicInputHash 0x${given!.toString(16)} does not match the inputs' hash 0x${expected.toString(16)}`,
      );
  }

  listCircuits(): CircuitStatus[] {
    const { building, queued } = this.builds.view();
    const state = new Map<string, CircuitStatus['status']>([
      ...queued.map((b) => [b.circuit, 'queued'] as const),
      ...building.map((b) => [b.circuit, 'building'] as const),
    ]);
    return this.o.keys.list().map((k) => ({
      name: k.shape,
      status: state.get(k.shape) ?? k.status,
      keyKind: k.setup ?? '',
    }));
  }

  /** Stops the key builds under way (their processes). */
  close(): void {
    this.closing = true;
    this.builds.close();
  }
}

/**
 * The shape an explicit request proves, checked first: counts, heights and path lengths
 * (invalid_argument naming what is wrong). Also what a queue's front checks before it enqueues.
 */
export function explicitShape(req: ExplicitProveRequest): Shape {
  const bad = (msg: string) => new ProverError('invalid_argument', msg);
  const { circuitType, accounts, addresses } = req;
  const wantsAccounts = circuitType !== 'non-inclusion';
  const wantsAddresses = circuitType !== 'inclusion';
  if (wantsAccounts !== accounts.length > 0)
    throw bad(
      wantsAccounts
        ? `wrong number of compressed accounts: 0 (a ${circuitType} proof needs at least one)`
        : `a non-inclusion proof takes no compressed accounts, got ${accounts.length}`,
    );
  if (wantsAddresses !== addresses.length > 0)
    throw bad(
      wantsAddresses
        ? `wrong number of new addresses: 0 (a ${circuitType} proof needs at least one)`
        : `an inclusion proof takes no new addresses, got ${addresses.length}`,
    );
  const v2 =
    req.publicInputHash !== undefined ||
    (wantsAccounts && req.stateTreeHeight === 32) ||
    (wantsAddresses && req.addressTreeHeight === 40);
  const version = v2 ? 2 : 1;
  const shape = findShape(version, accounts.length, addresses.length);
  if (!shape) {
    const sizes = SHAPES.filter((s) => s.version === version && s.family === circuitType)
      .map((s) => (circuitType === 'combined' ? `${s.nInclusion}x${s.nNonInclusion}` : s.nInclusion || s.nNonInclusion))
      .join(', ');
    throw bad(
      `no V${version} ${circuitType} circuit for ${accounts.length} compressed accounts and ${addresses.length} new addresses; supported: ${sizes}`,
    );
  }
  if (wantsAccounts && req.stateTreeHeight !== shape.stateHeight)
    throw bad(`stateTreeHeight ${req.stateTreeHeight} is not supported: V${version} circuits use ${shape.stateHeight}`);
  if (wantsAddresses && req.addressTreeHeight !== shape.addressHeight)
    throw bad(
      `addressTreeHeight ${req.addressTreeHeight} is not supported: V${version} circuits use ${shape.addressHeight}`,
    );
  accounts.forEach((a, i) => {
    if (a.pathElements.length !== shape.stateHeight)
      throw bad(
        `wrong size of merkle proof for proof ${i}: ${a.pathElements.length} path elements, expected ${shape.stateHeight}`,
      );
  });
  addresses.forEach((a, i) => {
    if (a.pathElements.length !== shape.addressHeight)
      throw bad(
        `wrong size of merkle proof for address ${i}: ${a.pathElements.length} path elements, expected ${shape.addressHeight}`,
      );
  });
  return shape;
}

/** `fn` over `items` in their order, `width` at a time: each runner takes the next as it is free. */
async function inOrder<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runner = async () => {
    for (let i = next++; i < items.length; i = next++) await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, runner));
}
