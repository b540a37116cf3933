// The proving-key builds of one prover, in the order of who needs them: a key a client's request
// is waiting for, then the start-up preloads, then the shapes a first start builds ahead, then the
// forester's batch keys. Builds slow each other down (on two cores three at once made every one
// miss its deadline), so a few run at a time: `concurrency` for keys clients wait for and as many
// for the others, each only where its memory and disk fit beside the builds running.
//
// Each build is a process of its own (key-build-process.ts) at a nice value that says whom it
// serves: 10 for a key a client waits for, 19 for the others, so that the prover's workers
// (nice 5) and a client's build take the cores from them whenever they want them. A background
// build a client comes to wait for is raised to 10 where the system allows it (root or
// CAP_SYS_NICE); where it does not, it goes on at 19, which costs it time only while client work
// keeps the cores busy. A client's build that does not fit in memory beside background builds
// stops them (they start again later from the beginning).
//
// Priority alone did not keep client proofs fast: beside a nice-19 build on two cores, a proof of
// 42 ms took 55–96 ms (the build took the cores at every sync point of the proof, and the caches
// with them). So while clients' proofs run or wait, background builds stand still (stopped, as a
// process is by SIGSTOP), with a slice now and then so that they still progress under load.
import { availableParallelism } from 'node:os';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import { NICE_BACKGROUND_BUILD, NICE_BUILD } from '../util/thread-priority.js';
import type { Shape } from '../zk/shapes.js';
import { estimateBuild, type BuildNeed } from './build-budget.js';
import { ProverError } from './errors.js';
import { finishAfter, freeAfter } from './pool.js';

/** Who needs a key, most urgent first. */
export const BUILD_PRIORITIES = ['client', 'preload', 'start', 'forester'] as const;
export type BuildPriority = (typeof BUILD_PRIORITIES)[number];
const RANK: Record<BuildPriority, number> = { client: 0, preload: 1, start: 2, forester: 3 };

/** A build under way (key-build-process.ts in the gateway). */
export interface BuildHandle {
  /** Resolves once the key is on file; rejects with why not. */
  readonly done: Promise<void>;
  /** The step it is at, when it says. */
  readonly step?: string | undefined;
  /** Changes the build's nice value: false where it cannot be raised. */
  setNice(nice: number): boolean;
  /** Stops the build where it is (true), or lets it go on (false). */
  pause(on: boolean): void;
  kill(): void;
}

/**
 * While clients' proofs run, background builds stop where they are; one stopped this long runs a
 * slice anyway, so that under a steady stream of proofs they still progress (as background proofs
 * do: native/src/preempt.hpp).
 */
const MAX_PAUSE_MS = 1000;
const SLICE_MS = 250;

export interface KeyBuildQueueOptions {
  /** Starts a shape's build at a nice value. */
  start(shape: Shape, nice: number): BuildHandle;
  /** Builds of each kind (for clients, for the rest) at once; default: one per four cores, at least one. */
  concurrency?: number;
  /** Why a build may not start beside the running builds' needs (memory, disk), or undefined. */
  refusal?(shape: Shape, running: BuildNeed): string | undefined;
  log: Logger;
  metrics?: MetricsRegistry;
}

/** A build in the queue's view: for /health, ListCircuits and the banner. */
export interface BuildView {
  circuit: string;
  priority: BuildPriority;
  /** Running: its step, if it said, and how long until it is expected done. */
  step?: string;
  etaMs?: number;
}

interface Item {
  shape: Shape;
  priority: BuildPriority;
  /** Order within its priority: when it was queued, or raised to it. */
  seq: number;
  need: BuildNeed;
  promise: Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
  handle?: BuildHandle;
  startedAt?: number;
  /** Stopped to make room for a client's build: queued again when its process has ended. */
  requeue?: boolean;
  /** Another build ran beside it: its time says little about this machine's speed. */
  shared?: boolean;
}

const isClient = (i: Item) => i.priority === 'client';
const inOrder = (a: Item, b: Item) => RANK[a.priority] - RANK[b.priority] || a.seq - b.seq;
const sum = (needs: BuildNeed[]): BuildNeed => ({
  vars: needs.reduce((n, x) => n + x.vars, 0),
  memoryBytes: needs.reduce((n, x) => n + x.memoryBytes, 0),
  diskBytes: needs.reduce((n, x) => n + x.diskBytes, 0),
  ms: needs.reduce((n, x) => n + x.ms, 0),
});

export class KeyBuildQueue {
  readonly concurrency: number;
  private readonly items = new Map<string, Item>();
  private seq = 0;
  /** This machine's build time against the estimates' reference (a moving average of finished builds). */
  private speed = 1;
  private closed = false;
  /** Clients' proofs are running or waiting: background builds stand still. */
  private yielding = false;
  private sliceTimer: NodeJS.Timeout | undefined;
  private readonly outcomes?: ReturnType<MetricsRegistry['counter']>;
  private readonly pauses?: ReturnType<MetricsRegistry['counter']>;

  constructor(private readonly o: KeyBuildQueueOptions) {
    this.concurrency = Math.max(1, o.concurrency || Math.floor(availableParallelism() / 4));
    const m = o.metrics;
    if (m) {
      this.outcomes = m.counter('zkgate_key_builds_total', 'Proving-key builds by circuit and outcome', [
        'circuit',
        'outcome',
      ]);
      m.gauge('zkgate_key_builds_running', 'Proving-key builds running', [], () => this.running().length);
      m.gauge('zkgate_key_builds_queued', 'Proving-key builds waiting to start', [], () => this.queued().length);
      this.pauses = m.counter(
        'zkgate_key_build_pauses_total',
        "Times background key builds stood still for clients' proofs",
      );
    }
  }

  /**
   * Resolves once the shape's key is built (or found built by another process), rejecting with
   * why it is not. A shape already queued or building is not built twice: it takes the higher
   * of its priorities.
   */
  want(shape: Shape, priority: BuildPriority): Promise<void> {
    if (this.closed) return Promise.reject(new ProverError('prover_unavailable', 'Prover is shutting down'));
    const known = this.items.get(shape.name);
    if (known) {
      this.raise(known, priority);
      return known.promise;
    }
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Those who want it handle its failure; none may leave it unhandled.
    promise.catch(() => {});
    const item: Item = { shape, priority, seq: ++this.seq, need: estimateBuild(shape), promise, resolve, reject };
    this.items.set(shape.name, item);
    this.pump();
    return promise;
  }

  /** Whether the shape's build is queued or running. */
  has(name: string): boolean {
    return this.items.has(name);
  }

  /**
   * How long until the shape's key is expected built, in ms, if a client waits for it (its build
   * raised to a client's first): its own time left, after the clients' builds running and queued
   * ahead of it. Undefined when it is not in the queue.
   */
  etaMs(name: string): number | undefined {
    const item = this.items.get(name);
    if (!item) return undefined;
    if (item.handle) return this.left(item);
    const running = this.running()
      .filter(isClient)
      .map((i) => this.left(i));
    const ahead = this.queued()
      .filter((i) => isClient(i) && i !== item && (!isClient(item) || i.seq < item.seq))
      .map((i) => this.expected(i));
    return finishAfter(running, this.concurrency, ahead, this.expected(item));
  }

  /** How long until every build in the queue is expected done, in ms (0: none): clients' first. */
  plannedMs(): number {
    const of = (client: boolean) =>
      freeAfter(
        this.running()
          .filter((i) => isClient(i) === client)
          .map((i) => this.left(i)),
        this.concurrency,
        this.queued()
          .filter((i) => isClient(i) === client)
          .map((i) => this.expected(i)),
      );
    const clients = of(true);
    // Background builds yield the cores to clients' builds: they end after them.
    return Math.max(...clients, ...of(false).map((t) => t + Math.max(0, ...clients)));
  }

  /** The builds running and queued, in their order. */
  view(): { building: BuildView[]; queued: BuildView[] } {
    return {
      building: this.running().map((i) => ({
        circuit: i.shape.name,
        priority: i.priority,
        ...(i.handle!.step ? { step: i.handle!.step } : {}),
        etaMs: Math.round(this.left(i)),
      })),
      queued: this.queued().map((i) => ({ circuit: i.shape.name, priority: i.priority })),
    };
  }

  /**
   * Whether clients' proofs are running or waiting (the pool says when this changes): background
   * builds stop meanwhile, so those proofs have the cores and caches to themselves.
   */
  clientsActive(active: boolean): void {
    if (active === this.yielding || this.closed) return;
    this.yielding = active;
    clearTimeout(this.sliceTimer);
    this.sliceTimer = undefined;
    if (!active) return this.pauseBackground(false);
    this.pauses?.inc();
    this.pauseBackground(true);
    // A slice now and then, while the proofs go on.
    const cycle = () => {
      this.sliceTimer = setTimeout(() => {
        this.pauseBackground(false);
        this.sliceTimer = setTimeout(() => {
          this.pauseBackground(true);
          cycle();
        }, SLICE_MS);
        this.sliceTimer.unref();
      }, MAX_PAUSE_MS);
      this.sliceTimer.unref();
    };
    cycle();
  }

  private pauseBackground(on: boolean): void {
    for (const i of this.running()) if (!isClient(i)) i.handle!.pause(on);
  }

  /** Stops every build (each one's waiters get prover_unavailable). */
  close(): void {
    this.closed = true;
    clearTimeout(this.sliceTimer);
    for (const item of this.items.values()) {
      item.handle?.kill();
      item.reject(new ProverError('prover_unavailable', 'Prover is shutting down'));
    }
    this.items.clear();
  }

  private running(): Item[] {
    return [...this.items.values()].filter((i) => i.handle).sort((a, b) => a.startedAt! - b.startedAt!);
  }

  private queued(): Item[] {
    return [...this.items.values()].filter((i) => !i.handle).sort(inOrder);
  }

  private expected(i: Item): number {
    return i.need.ms * this.speed;
  }

  /** A running build's time left: its expected time less what it has run (a tenth at least). */
  private left(i: Item): number {
    const expected = this.expected(i);
    return Math.max(expected / 10, expected - (Date.now() - i.startedAt!));
  }

  private raise(item: Item, priority: BuildPriority): void {
    if (RANK[priority] >= RANK[item.priority]) return;
    const was = item.priority;
    item.priority = priority;
    item.seq = ++this.seq;
    if (item.handle && priority === 'client') {
      item.handle.pause(false);
      const raised = item.handle.setNice(NICE_BUILD);
      this.o.log.info('a client waits for a proving key being built', {
        circuit: item.shape.name,
        was,
        // Where raising a priority is not allowed, the build goes on at the lowest.
        raised,
      });
    }
    this.pump();
  }

  /** Starts what may start, in order. */
  private pump(): void {
    if (this.closed) return;
    for (const item of this.queued()) {
      const client = isClient(item);
      const running = this.running();
      // Background builds wait while a client's build waits to start.
      if (!client && this.queued().some(isClient)) return;
      if (running.filter((r) => isClient(r) === client).length >= this.concurrency) {
        if (client) continue;
        return;
      }
      let why = this.o.refusal?.(item.shape, sum(running.map((r) => r.need)));
      if (why && client) {
        // Room for a client's build: background builds stop (they are queued again).
        const background = running.filter((r) => !isClient(r));
        if (background.length > 0 && !this.o.refusal?.(item.shape, sum(running.filter(isClient).map((r) => r.need)))) {
          for (const r of background) this.stop(r);
          why = undefined;
        }
      }
      if (why) {
        // Nothing else runs: it cannot fit at all.
        if (running.length === 0) this.fail(item, new ProverError('key_not_built', why));
        else if (client) return; // waits for room, ahead of the background
        continue;
      }
      this.start(item);
    }
  }

  private start(item: Item): void {
    const nice = isClient(item) ? NICE_BUILD : NICE_BACKGROUND_BUILD;
    item.startedAt = Date.now();
    const beside = this.running().filter((r) => r !== item);
    item.shared = beside.length > 0;
    for (const r of beside) r.shared = true;
    try {
      item.handle = this.o.start(item.shape, nice);
    } catch (e) {
      return this.fail(item, e);
    }
    const handle = item.handle;
    if (this.yielding && !isClient(item)) handle.pause(true);
    this.o.log.info('building proving key', {
      circuit: item.shape.name,
      priority: item.priority,
      expectedMs: Math.round(this.expected(item)),
    });
    handle.done.then(
      () => {
        const ms = Date.now() - item.startedAt!;
        // Only a build that ran alone teaches the speed (one at the lowest priority beside another ran slower).
        if (!item.shared) this.speed = 0.5 * this.speed + 0.5 * (ms / item.need.ms);
        this.items.delete(item.shape.name);
        this.outcomes?.inc([item.shape.name, 'built']);
        this.o.log.info('proving key ready', { circuit: item.shape.name, priority: item.priority, ms });
        item.resolve();
        this.pump();
      },
      (e: unknown) => {
        if (this.closed) return;
        if (item.requeue) {
          delete item.handle;
          delete item.startedAt;
          delete item.requeue;
          delete item.shared;
          this.outcomes?.inc([item.shape.name, 'stopped']);
        } else
          this.fail(
            item,
            new ProverError(
              'key_not_built',
              `building the proving key for ${item.shape.name} failed: ${String((e as Error)?.message ?? e)}`,
            ),
          );
        this.pump();
      },
    );
  }

  /** Stops a running background build to make room; it starts again later. */
  private stop(item: Item): void {
    this.o.log.info('proving key build stopped to make room for one a client waits for', {
      circuit: item.shape.name,
      priority: item.priority,
    });
    item.requeue = true;
    item.handle!.kill();
    // Its process has ended by the time `done` rejects; until then its need still counts.
  }

  private fail(item: Item, e: unknown): void {
    this.items.delete(item.shape.name);
    this.outcomes?.inc([item.shape.name, 'failed']);
    this.o.log.error('proving key build failed', {
      circuit: item.shape.name,
      priority: item.priority,
      error: String((e as Error)?.message ?? e),
    });
    item.reject(e);
  }
}
