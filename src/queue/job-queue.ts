// The Redis job queue (--queue redis://…): fronts submit proofs and wait for them, prover hosts
// claim, prove and complete them. Every change of a job's place is one Lua script (scripts.ts), so
// nothing is lost between two commands: a claim moves the entry and starts a lease in one step; a
// host that dies leaves a lease that runs out, and any process's reaper puts the job back (or, after
// --queue-attempts, into the failed list with why). Identical inputs share one job while it is
// queued, running or done; results live --queue-result-ttl seconds.
//
// Redis unreachable: every call fails at once with prover_unavailable naming the queue (no offline
// buffering, no hang), and waiters keep looking until their deadline, so a restart of Redis under
// load loses nothing that Redis kept.
import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ProverError, type ProverErrorKind } from '../prover/errors.js';
import type { Logger } from '../obs/log.js';
import {
  FAILED_LIST_MAX,
  KEYS,
  layoutOf,
  listsOf,
  RESULTS_LIST_MAX,
  type JobKind,
  type QueueFormat,
} from './layout.js';
import { CLAIM, COMPLETE, FAIL, REAP, RENEW, SUBMIT } from './scripts.js';

export interface QueueOptions {
  url: string;
  format: QueueFormat;
  /** How long a claimed job stays with its host without a renewal. */
  leaseMs: number;
  /** Tries before a job fails for good (lease expiries count). */
  maxAttempts: number;
  /** How long results (and the de-duplication of their inputs) are kept, seconds. */
  resultTtlS: number;
  /** Most entries in one pending list: submissions beyond are refused (prover_busy). */
  maxDepth: number;
  log: Logger;
}

export type JobState = 'queued' | 'processing' | 'completed' | 'failed';

export interface JobStatus {
  id: string;
  status: JobState;
  createdAt?: string;
  startedAt?: string;
  circuit?: string;
  circuitType?: string;
  host?: string;
  keySha256?: string;
  error?: string;
  errorKind?: string;
  failedAt?: string;
  /** The result's JSON text (completed jobs). */
  result?: string;
}

export interface Submitted {
  id: string;
  /** The same inputs were already queued, running or done: this is that job. */
  deduplicated: boolean;
  queue: string;
}

export interface ClaimedJob {
  id: string;
  /** The pending entry as stored (Light's format). */
  entry: string;
  payload: unknown;
  attempts: number;
}

export interface QueueStats {
  /** Length of every list (pending, processing, failed). */
  lists: Record<string, number>;
  pending: number;
  processing: number;
  failedList: number;
  leaseExpiries: number;
  retries: number;
  completed: number;
  failed: number;
  /** Jobs completed by each host, since the queue's counters began. */
  hosts: Record<string, number>;
}

/** The job state's lifetime while it is not finished (bounded even if a foreign worker drops it). */
const STATE_TTL_S = 24 * 3600;

/** How a URL is shown: without its password. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return 'redis://?';
  }
}

type Script = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>;

export class JobQueue {
  readonly layout;
  readonly where: string;
  private readonly redis: Redis;
  private sub?: Redis;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly sleepers = new Set<() => void>();
  private closed = false;

  private constructor(readonly o: QueueOptions) {
    this.layout = layoutOf(o.format);
    this.where = redactRedisUrl(o.url);
    this.redis = new Redis(o.url, {
      // A command while Redis is away fails now, with a clear error, rather than waiting in a buffer.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 5000,
      connectTimeout: 2000,
      retryStrategy: (n) => Math.min(100 * n, 1000),
      lazyConnect: true,
    });
    this.redis.on('error', () => {
      /* reported by the calls and /health */
    });
    for (const [name, lua] of Object.entries({ SUBMIT, CLAIM, RENEW, COMPLETE, FAIL, REAP }))
      this.redis.defineCommand(`zk${name}`, { lua });
  }

  /** Light's list names (--queue-format light). */
  get lightLists(): boolean {
    return this.o.format === 'light';
  }

  /** Connects (waiting up to 2 s; an unreachable Redis is reported by /health and retried). */
  static async open(o: QueueOptions): Promise<JobQueue> {
    const q = new JobQueue(o);
    await q.redis
      .connect()
      .catch((e: Error) => o.log.warn('job queue not reachable yet', { queue: q.where, error: e.message }));
    return q;
  }

  private script(name: string): Script {
    return (this.redis as unknown as Record<string, Script>)[`zk${name}`]!.bind(this.redis);
  }

  /** A Redis call, its failure turned into the prover's error naming the queue. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw new ProverError('prover_unavailable', `job queue ${this.where} unreachable: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }

  /** Round trip to Redis, ms; throws prover_unavailable when it is not reached. */
  async ping(): Promise<number> {
    const t = performance.now();
    await this.call(() => this.redis.ping());
    return performance.now() - t;
  }

  /**
   * Adds a job. `payload` is the JSON text stored as the entry's payload (Light's /prove body,
   * compacted); with `dedup`, a job of the same payload queued, running or completed within the
   * result TTL is returned instead.
   */
  async submit(kind: JobKind, payload: string, circuitType: string, circuit: string, dedup = true): Promise<Submitted> {
    const id = randomUUID();
    const queue = this.layout.route(kind, circuitType);
    const createdAt = new Date().toISOString();
    const entry = `{"id":${JSON.stringify(id)},"type":"zk_proof","payload":${payload},"created_at":"${createdAt}"}`;
    const hash = dedup ? createHash('sha256').update(payload).digest('hex') : '';
    const [jobId, code] = (await this.call(() =>
      this.script('SUBMIT')(
        3,
        queue,
        KEYS.job(id),
        hash ? KEYS.dedup(hash) : KEYS.dedup('-'),
        id,
        entry,
        createdAt,
        circuit,
        this.o.maxDepth,
        Math.max(STATE_TTL_S, this.o.resultTtlS),
        KEYS.added,
        KEYS.job(''),
        hash,
        circuitType,
      ),
    )) as [string, number];
    if (code === 2)
      throw new ProverError(
        'prover_busy',
        `Prover busy: the job queue ${queue} holds ${this.o.maxDepth} jobs (--queue-max-jobs); retry later`,
      );
    return { id: jobId, deduplicated: code === 1, queue };
  }

  /** A job's state, from zkgate's record or (a job Light's processes ran) its result key. */
  async status(id: string): Promise<JobStatus | undefined> {
    const [h, result] = await this.call(() =>
      Promise.all([this.redis.hgetall(KEYS.job(id)), this.redis.get(this.layout.resultKey(id))]),
    );
    if (result !== null) return { ...statusOf(id, h), status: 'completed', result };
    if (!h.status) return undefined;
    return statusOf(id, h);
  }

  /**
   * Waits for a job to end: its status once completed; throws its error once failed, or
   * prover_timeout at the deadline (prover_unavailable if Redis was unreachable meanwhile).
   */
  async wait(id: string, deadline: number, signal?: AbortSignal): Promise<JobStatus> {
    await this.subscriber();
    let lastError: Error | undefined;
    let wake: () => void = () => {};
    const set = this.waiters.get(id) ?? new Set();
    this.waiters.set(id, set);
    const woken = () => wake();
    set.add(woken);
    try {
      for (;;) {
        if (signal?.aborted) throw new ProverError('prover_timeout', `request for job ${id} was cancelled`);
        try {
          const s = await this.status(id);
          lastError = undefined;
          if (!s) throw new ProverError('prover_internal', `job ${id} is gone from the queue (expired or removed)`);
          if (s.status === 'completed') return s;
          if (s.status === 'failed') throw new ProverError(jobErrorKind(s.errorKind), s.error ?? `job ${id} failed`);
        } catch (e) {
          if (!(e instanceof ProverError) || e.kind !== 'prover_unavailable') throw e;
          lastError = e;
        }
        const left = deadline - Date.now();
        if (left <= 0)
          throw (
            lastError ??
            new ProverError(
              'prover_timeout',
              `Proof timed out: no prover host finished job ${id} in time; it stays queued (a retry with the same inputs joins it)`,
            )
          );
        // Woken by the job's end; a look every 500 ms covers Light's workers, which announce nothing.
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 500));
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    } finally {
      set.delete(woken);
      if (set.size === 0) this.waiters.delete(id);
    }
  }

  /** Resolves when a job is added (or after ms): idle workers wait here rather than poll hard. */
  async nextAdded(ms: number): Promise<void> {
    await this.subscriber().catch(() => undefined);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  /** The pub/sub connection, made on first need (a waiting front or a worker). */
  private async subscriber(): Promise<void> {
    if (this.sub || this.closed) return;
    const sub = this.redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
    this.sub = sub;
    sub.on('error', () => {});
    sub.on('message', (channel: string, message: string) => {
      if (channel === KEYS.ended) for (const w of this.waiters.get(message) ?? []) w();
      else for (const s of [...this.sleepers]) s();
    });
    await sub.subscribe(KEYS.ended, KEYS.added).catch(() => undefined);
  }

  /** Takes the first waiting job of an accepted circuit type; undefined when there is none. */
  async claim(host: string, accept: readonly string[], scan = 100): Promise<ClaimedJob | undefined> {
    const lists = this.layout.pending.flatMap((p) => [p, this.layout.processing(p)]);
    const r = (await this.call(() =>
      this.script('CLAIM')(
        3 + lists.length,
        KEYS.leases,
        KEYS.leased,
        KEYS.attempts,
        ...lists,
        Date.now(),
        this.o.leaseMs,
        host,
        `,${accept.join(',')},`,
        scan,
        new Date().toISOString(),
        KEYS.job(''),
        STATE_TTL_S,
      ),
    )) as [string, number] | null;
    if (!r) return undefined;
    const job = JSON.parse(r[0]) as { id: string; payload: unknown };
    return { id: job.id, entry: r[0], payload: job.payload, attempts: r[1] };
  }

  /** Extends a lease; false when it is no longer this host's (it expired and was reaped). */
  async renew(id: string, host: string): Promise<boolean> {
    const r = await this.call(() =>
      this.script('RENEW')(2, KEYS.leases, KEYS.leased, id, host, Date.now() + this.o.leaseMs),
    );
    return r === 1;
  }

  /** Stores a result; false when another host's result for this job came first. */
  async complete(id: string, host: string, result: string, circuit: string, keySha256: string): Promise<boolean> {
    const resultsEntry = this.layout.resultsList
      ? `{"id":${JSON.stringify(id)},"type":"result","payload":${result},"created_at":"${new Date().toISOString()}"}`
      : '';
    const r = await this.call(() =>
      this.script('COMPLETE')(
        8,
        KEYS.leases,
        KEYS.leased,
        KEYS.attempts,
        this.layout.resultKey(id),
        KEYS.job(id),
        KEYS.stats,
        KEYS.hostJobs,
        this.layout.resultsList ?? KEYS.stats,
        id,
        host,
        result,
        this.o.resultTtlS,
        resultsEntry,
        KEYS.ended,
        circuit,
        keySha256,
        new Date().toISOString(),
        RESULTS_LIST_MAX,
        KEYS.dedup(''),
      ),
    );
    return r === 1;
  }

  /**
   * Ends a claim in failure: a retryable one goes back to its list while attempts remain;
   * otherwise the job fails with `error`. 'lost': the lease was no longer this host's.
   */
  async fail(
    id: string,
    host: string,
    error: string,
    kind: string,
    retryable: boolean,
  ): Promise<'retried' | 'failed' | 'lost'> {
    const r = await this.call(() =>
      this.script('FAIL')(
        5,
        KEYS.leases,
        KEYS.leased,
        KEYS.attempts,
        this.layout.failed,
        KEYS.stats,
        id,
        host,
        error,
        kind,
        new Date().toISOString(),
        this.o.maxAttempts,
        retryable ? '1' : '0',
        ...this.failing(),
      ),
    );
    return r === 1 ? 'retried' : r === 2 ? 'failed' : 'lost';
  }

  /** The arguments FAIL and REAP end with: what a failed job leaves behind, and whom it tells. */
  private failing(): (string | number)[] {
    return [this.o.resultTtlS, KEYS.job(''), KEYS.dedup(''), KEYS.ended, KEYS.added, FAILED_LIST_MAX];
  }

  /** Takes back every expired lease (safe from any number of processes at once). */
  async reap(): Promise<{ requeued: number; failed: number }> {
    const [requeued, failed] = (await this.call(() =>
      this.script('REAP')(
        5,
        KEYS.leases,
        KEYS.leased,
        KEYS.attempts,
        this.layout.failed,
        KEYS.stats,
        Date.now(),
        this.o.maxAttempts,
        new Date().toISOString(),
        ...this.failing(),
      ),
    )) as [number, number];
    return { requeued, failed };
  }

  async stats(): Promise<QueueStats> {
    const { pending, processing, failed } = listsOf(this.layout);
    const names = [...pending, ...processing, failed];
    const [lens, counters, hosts] = await this.call(async () => {
      const p = this.redis.pipeline();
      for (const n of names) p.llen(n);
      p.hgetall(KEYS.stats);
      p.hgetall(KEYS.hostJobs);
      const out = (await p.exec()) ?? [];
      const err = out.find(([e]) => e)?.[0];
      if (err) throw err;
      const values = out.map(([, v]) => v);
      return [
        values.slice(0, names.length) as number[],
        values[names.length] as Record<string, string>,
        values[names.length + 1] as Record<string, string>,
      ] as const;
    });
    const lists = Object.fromEntries(names.map((n, i) => [n, lens[i]!]));
    const sum = (ns: string[]) => ns.reduce((s, n) => s + lists[n]!, 0);
    const num = (v: string | undefined) => Number(v ?? 0);
    return {
      lists,
      pending: sum(pending),
      processing: sum(processing),
      failedList: lists[failed]!,
      leaseExpiries: num(counters.lease_expiries),
      retries: num(counters.retries),
      completed: num(counters.completed),
      failed: num(counters.failed),
      hosts: Object.fromEntries(Object.entries(hosts).map(([h, n]) => [h, Number(n)])),
    };
  }

  /** Makes a key's verifying key readable by the fronts (once per key). */
  async publishVerifyingKey(circuit: string, sha256: string, vkJson: string): Promise<void> {
    await this.call(() => this.redis.set(KEYS.vk(circuit, sha256), vkJson, 'NX'));
  }

  async verifyingKey(circuit: string, sha256: string): Promise<string | undefined> {
    return (await this.call(() => this.redis.get(KEYS.vk(circuit, sha256)))) ?? undefined;
  }

  /** Lists of this layout's processing entries older than `ms` (what Light's /queue/health calls stuck). */
  async stuckJobs(ms: number): Promise<number> {
    const { processing } = listsOf(this.layout);
    const entries = await this.call(async () =>
      (await Promise.all(processing.map((l) => this.redis.lrange(l, 0, -1)))).flat(),
    );
    const cutoff = Date.now() - ms;
    return entries.filter((e) => {
      const at = /"created_at":"([^"]+)"\}$/.exec(e)?.[1];
      return at !== undefined && Date.parse(at) < cutoff;
    }).length;
  }

  close(): void {
    this.closed = true;
    for (const s of [...this.sleepers]) s();
    this.sub?.disconnect();
    this.redis.disconnect();
  }
}

function statusOf(id: string, h: Record<string, string>): JobStatus {
  const s: JobStatus = { id, status: (h.status as JobState) ?? 'queued' };
  const fields: [keyof JobStatus, string][] = [
    ['createdAt', 'created_at'],
    ['startedAt', 'started_at'],
    ['circuit', 'circuit'],
    ['circuitType', 'circuit_type'],
    ['host', 'host'],
    ['keySha256', 'key_sha256'],
    ['error', 'error'],
    ['errorKind', 'error_kind'],
    ['failedAt', 'failed_at'],
  ];
  for (const [k, f] of fields) if (h[f]) (s as unknown as Record<string, string>)[k] = h[f]!;
  return s;
}

const JOB_ERROR_KINDS: readonly ProverErrorKind[] = [
  'invalid_argument',
  'proof_failed',
  'key_not_built',
  'prover_timeout',
  'prover_busy',
  'prover_unavailable',
  'circuit_warming_up',
];

/** A failed job's error kind as the front raises it (kinds it does not know: internal). */
const jobErrorKind = (kind: string | undefined): ProverErrorKind =>
  JOB_ERROR_KINDS.includes(kind as ProverErrorKind) ? (kind as ProverErrorKind) : 'prover_internal';
