// The Redis job queue (--queue redis://…): fronts submit proofs and wait for them, prover hosts
// claim, prove and complete them. Every change of a job's place is one Lua script (scripts.ts), so
// nothing is lost between two commands: a claim moves the entry and starts a lease in one step; a
// host that dies leaves a lease that runs out, and any process's reaper puts the job back (or, after
// --queue-attempts or past its deadline, into the failed list with why). A job carries the time its
// client waits for it: past it, it is not proved. Identical inputs share one job while it is wanted
// or done; results live --queue-result-ttl seconds.
//
// Redis unreachable: every call fails at once with prover_unavailable naming the queue (no offline
// buffering, no hang), and waiters keep looking until their deadline, so a restart of Redis under
// load loses nothing that Redis kept.
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.js';
import { ProverError, type ProverErrorKind } from '../prover/errors.js';
import type { Logger } from '../obs/log.js';
import {
  FAILED_LIST_MAX,
  JOB_KINDS,
  KEYS,
  layoutOf,
  listsOf,
  RESULTS_LIST_MAX,
  type JobKind,
  type QueueFormat,
} from './layout.js';
import { CLAIM, COMPLETE, FAIL, INTAKE, REAP, RENEW, SUBMIT } from './scripts.js';

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
  /** This claim's lease: renew, complete and fail name it (a slot's, not the host's). */
  token: string;
  /** How long until the job's deadline, ms, at the claim (Redis's clock). */
  msLeft: number;
  /** Whether the front the request came in at let it have its key built (--build-on-demand there). */
  mayBuild: boolean;
}

/** What a submitter says of a job beyond its body. */
export interface SubmitOptions {
  /** How long the job is wanted, ms: past it, no host proves it and equal inputs no longer join it. */
  waitMs: number;
  /** Whether the request may have its key built (decided at the front it came in at). */
  mayBuild?: boolean;
  /** Join a job of equal payload (default true). */
  dedup?: boolean;
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
  /** Jobs no host took before their deadline (dropped unproved). */
  expired: number;
  /** Jobs Light's own processes wrote that zkgate hosts took in (--queue-format light). */
  takenIn: number;
  /** Jobs completed by each host, since the queue's counters began. */
  hosts: Record<string, number>;
}

/** How long a job's state outlives its deadline (what `/prove/status` answers meanwhile). */
const STATE_TTL_S = 3600;

/** How long a job Light's processes wrote is wanted (Light's later workers drop older ones). */
const FOREIGN_WAIT_MS = 10 * 60_000;

/** The largest pending entry taken in from Light's list: validity bodies are far smaller. */
const INTAKE_MAX_BYTES = 256 * 1024;

/** Ids a claim looks at, at the most (dropping those of jobs gone or past their deadline). */
const CLAIM_SCAN = 32;

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

  private constructor(
    readonly o: QueueOptions,
    RedisClient: typeof Redis,
  ) {
    this.layout = layoutOf(o.format);
    this.where = redactRedisUrl(o.url);
    this.redis = new RedisClient(o.url, {
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
    for (const [name, lua] of Object.entries({ SUBMIT, CLAIM, INTAKE, RENEW, COMPLETE, FAIL, REAP }))
      this.redis.defineCommand(`zk${name}`, { lua });
  }

  /** Why this Redis may not hold the queue (a cluster), found at its connection. */
  private refused?: string;

  /**
   * A cluster is refused (the scripts touch keys derived from ids that they do not declare, and no
   * key has a hash tag: standalone Redis only); an eviction policy other than noeviction is warned
   * about (Redis would drop jobs and results under memory pressure).
   */
  private async checkServer(): Promise<void> {
    const info = await this.redis.info();
    const field = (name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
    if (field('cluster_enabled') === '1') {
      this.refused = `job queue ${this.where} is a Redis Cluster: zkgate's queue needs a standalone Redis (or a primary with replicas)`;
      this.o.log.error('job queue refused', { queue: this.where, reason: this.refused });
      return;
    }
    this.refused = undefined;
    const policy = field('maxmemory_policy');
    if (policy && policy !== 'noeviction')
      this.o.log.warn('job queue: Redis may evict jobs and results under memory pressure', {
        queue: this.where,
        maxmemoryPolicy: policy,
        advice: 'set maxmemory-policy noeviction',
      });
  }

  /** Light's list names (--queue-format light). */
  get lightLists(): boolean {
    return this.o.format === 'light';
  }

  /** Connects (waiting up to 2 s; an unreachable Redis is reported by /health and retried). */
  static async open(o: QueueOptions): Promise<JobQueue> {
    // Loaded here, not with the module: a gateway without --queue never needs the client.
    const { Redis: RedisClient } = await import('ioredis');
    const q = new JobQueue(o, RedisClient);
    const connected = await q.redis.connect().then(
      () => true,
      (e: Error) => {
        o.log.warn('job queue not reachable yet', { queue: q.where, error: e.message });
        return false;
      },
    );
    if (connected) {
      await q.checkServer().catch(() => undefined);
      if (q.refused) {
        q.close();
        throw new QueueRefusedError(q.refused);
      }
    }
    // Looked at again on each connection: the server behind the URL may change.
    q.redis.on('ready', () => void q.checkServer().catch(() => undefined));
    return q;
  }

  private script(name: string): Script {
    return (this.redis as unknown as Record<string, Script>)[`zk${name}`]!.bind(this.redis);
  }

  /** A Redis call, its failure turned into the prover's error naming the queue. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.refused) throw new ProverError('prover_unavailable', this.refused);
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
   * compacted); with `dedup`, a job of the same payload still wanted, or completed within the
   * result TTL, is returned instead.
   */
  async submit(
    kind: JobKind,
    payload: string,
    circuitType: string,
    circuit: string,
    opts: SubmitOptions,
  ): Promise<Submitted> {
    const id = randomUUID();
    const queue = this.layout.route(kind, circuitType);
    const createdAt = new Date().toISOString();
    const entry = `{"id":${JSON.stringify(id)},"type":"zk_proof","payload":${payload},"created_at":"${createdAt}"}`;
    const hash = opts.dedup !== false ? createHash('sha256').update(payload).digest('hex') : '';
    const [jobId, code] = (await this.call(() =>
      this.script('SUBMIT')(
        4,
        queue,
        KEYS.job(id),
        hash ? KEYS.dedup(hash) : KEYS.dedup('-'),
        KEYS.ready(kind),
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
        kind,
        Math.max(1, Math.round(opts.waitMs)),
        opts.mayBuild ? '1' : '0',
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

  /**
   * Takes the next job still wanted of these kinds, in this order (the worker rotates it, so that
   * no kind waits behind another for good); undefined when there is none. O(1) in Redis whatever
   * the lists hold.
   */
  async claim(host: string, kinds: readonly JobKind[]): Promise<ClaimedJob | undefined> {
    const token = randomUUID();
    const r = (await this.call(() =>
      this.script('CLAIM')(
        3 + kinds.length,
        KEYS.leases,
        KEYS.leased,
        KEYS.stats,
        ...kinds.map((k) => KEYS.ready(k)),
        this.o.leaseMs,
        host,
        token,
        new Date().toISOString(),
        KEYS.job(''),
        CLAIM_SCAN,
        this.layout.failed,
        new Date().toISOString(),
        Math.max(STATE_TTL_S, this.o.resultTtlS),
        KEYS.dedup(''),
        KEYS.ended,
        FAILED_LIST_MAX,
        process.pid,
      ),
    )) as [string, number, number, string, string] | null;
    if (!r) return undefined;
    const [entry, attempts, msLeft, mayBuild, id] = r;
    const job = JSON.parse(entry) as { payload: unknown };
    return { id, entry, payload: job.payload, attempts, token, msLeft, mayBuild: mayBuild === '1' };
  }

  /**
   * Light's lists: a job Light's own processes wrote at the head of Light's list, of a circuit type
   * these hosts prove, taken in as a job of zkgate's (then claimed as one). True when one was.
   */
  async intake(accept: readonly string[]): Promise<boolean> {
    if (!this.lightLists) return false;
    const r = await this.call(() =>
      this.script('INTAKE')(
        3,
        this.layout.route('light', 'inclusion'),
        KEYS.ready('prove'),
        KEYS.stats,
        KEYS.job(''),
        `,${accept.join(',')},`,
        INTAKE_MAX_BYTES,
        STATE_TTL_S,
        FOREIGN_WAIT_MS,
      ),
    );
    return r === 1;
  }

  /**
   * Extends a lease; false when it is no longer this claim's (it expired and was reaped) or the
   * job's deadline has passed (the proof is for nobody: the lease runs out and the job ends).
   */
  async renew(id: string, token: string): Promise<boolean> {
    const r = await this.call(() =>
      this.script('RENEW')(3, KEYS.leases, KEYS.leased, KEYS.job(id), id, token, this.o.leaseMs, 0),
    );
    return r === 1;
  }

  /** Stores a result; false when another result came first, or the job has ended without it. */
  async complete(
    id: string,
    token: string,
    host: string,
    result: string,
    circuit: string,
    keySha256: string,
  ): Promise<boolean> {
    const resultsEntry = this.layout.resultsList
      ? `{"id":${JSON.stringify(id)},"type":"result","payload":${result},"created_at":"${new Date().toISOString()}"}`
      : '';
    const r = await this.call(() =>
      this.script('COMPLETE')(
        7,
        KEYS.leases,
        KEYS.leased,
        this.layout.resultKey(id),
        KEYS.job(id),
        KEYS.stats,
        KEYS.hostJobs,
        this.layout.resultsList ?? KEYS.stats,
        id,
        token,
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
   * Ends a claim in failure: a retryable one goes back to its list while attempts remain and the
   * job is still wanted; otherwise the job fails with `error`. 'lost': the lease was no longer this
   * claim's; 'done': the job had been completed meanwhile (it is left as it is).
   */
  async fail(
    id: string,
    token: string,
    error: string,
    kind: string,
    retryable: boolean,
  ): Promise<'retried' | 'failed' | 'lost' | 'done'> {
    const r = await this.call(() =>
      this.script('FAIL')(
        5,
        KEYS.leases,
        KEYS.leased,
        this.layout.failed,
        KEYS.stats,
        KEYS.job(id),
        id,
        token,
        error,
        kind,
        new Date().toISOString(),
        this.o.maxAttempts,
        retryable ? '1' : '0',
        Math.max(STATE_TTL_S, this.o.resultTtlS),
        KEYS.dedup(''),
        KEYS.ended,
        KEYS.added,
        FAILED_LIST_MAX,
      ),
    );
    return r === 1 ? 'retried' : r === 2 ? 'failed' : r === 3 ? 'done' : 'lost';
  }

  /** Takes back every expired lease, and ends the queued jobs past their deadline (safe from any number of processes at once). */
  async reap(): Promise<{ requeued: number; failed: number }> {
    const [requeued, failed] = (await this.call(() =>
      this.script('REAP')(
        5 + JOB_KINDS.length,
        KEYS.leases,
        KEYS.leased,
        this.layout.failed,
        KEYS.stats,
        KEYS.reapedAt,
        ...JOB_KINDS.map((k) => KEYS.ready(k)),
        this.o.maxAttempts,
        new Date().toISOString(),
        Math.max(STATE_TTL_S, this.o.resultTtlS),
        KEYS.job(''),
        KEYS.dedup(''),
        KEYS.ended,
        KEYS.added,
        FAILED_LIST_MAX,
        this.o.leaseMs,
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
      expired: num(counters.expired),
      takenIn: num(counters.taken_in),
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

/** A Redis this queue may not use (a cluster): refused at start. */
export class QueueRefusedError extends AppError {
  readonly kind = 'queue_refused';
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
