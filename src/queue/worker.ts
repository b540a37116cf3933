// A prover host's side of the queue (--role prover --queue): `slots` loops, each claiming the next
// job this host can prove, holding its lease (the claim's own token) while it proves, then
// completing or failing it. The slots feed the same worker pool the gRPC and HTTP callers use, so a
// GPU backend batches the queue's jobs with the rest. Every process with a queue also reaps expired
// leases. The kinds take turns being looked at first (client proofs three times in four), so
// neither waits behind the other for good.
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import { AppError } from '../errors.js';
import { ProverError } from '../prover/errors.js';
import type { ClaimedJob, JobQueue } from './job-queue.js';
import type { JobKind } from './layout.js';

/** How often a host process looks at the head of Light's list for a job Light's processes wrote. */
const INTAKE_MS = 2000;

export interface ProvedJob {
  /** The result's JSON text: the proof as Light's /prove answers it. */
  result: string;
  circuit: string;
  keySha256: string;
}

/**
 * Errors about the job itself: any host would answer the same, so the job fails at once. Anything
 * else (a key this host lacks, a full or broken host) is tried again, here or elsewhere.
 */
const PERMANENT = new Set(['invalid_argument', 'proof_failed', 'witness_shape', 'unknown_shape', 'malformed_body']);

export interface QueueWorkerOptions {
  queue: JobQueue;
  /** This host's name in leases, logs and per-host counts. */
  host: string;
  /** The kinds of job this host proves. */
  kinds: readonly JobKind[];
  /** Light's lists: the circuit types of the jobs Light's own processes wrote that it takes in. */
  intake?: readonly string[];
  slots: number;
  prove(job: ClaimedJob): Promise<ProvedJob>;
  log: Logger;
  metrics?: MetricsRegistry;
  /** How often leases are renewed and expired ones reaped. */
  leaseMs: number;
}

export class QueueWorker {
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private readonly reaper: NodeJS.Timeout;
  private readonly jobs?: ReturnType<MetricsRegistry['counter']>;
  private unreachableSince = 0;
  private turn = 0;
  /** When this process last looked at the head of Light's list (at most every INTAKE_MS). */
  private intakeAt = 0;

  constructor(private readonly o: QueueWorkerOptions) {
    this.jobs = o.metrics?.counter('zkgate_queue_host_jobs_total', "This host's queue jobs, by outcome", ['outcome']);
    for (let i = 0; i < o.slots; i++) this.loops.push(this.loop());
    this.reaper = setInterval(() => void reap(o.queue, o.log), Math.max(250, o.leaseMs / 2));
    this.reaper.unref();
  }

  private async loop(): Promise<void> {
    const { queue, host, log } = this.o;
    while (!this.stopped) {
      let job: ClaimedJob | undefined;
      try {
        job = await queue.claim(host, this.order());
        if (!job && this.o.intake && Date.now() - this.intakeAt >= INTAKE_MS) {
          this.intakeAt = Date.now();
          if (await queue.intake(this.o.intake)) job = await queue.claim(host, this.order());
        }
        if (this.unreachableSince) {
          log.info('job queue reachable again', { queue: queue.where });
          this.unreachableSince = 0;
        }
      } catch (e) {
        if (!this.unreachableSince) {
          this.unreachableSince = Date.now();
          log.warn('job queue unreachable: claiming paused', { queue: queue.where, error: (e as Error).message });
        }
        await queue.nextAdded(1000);
        continue;
      }
      if (!job) {
        await queue.nextAdded(1000);
        continue;
      }
      await this.run(job);
    }
  }

  /** The kinds in the order to look at them this time: client proofs first three times in four. */
  private order(): JobKind[] {
    const kinds = [...this.o.kinds];
    if (++this.turn % 4 === 0) kinds.reverse();
    return kinds;
  }

  private async run(job: ClaimedJob): Promise<void> {
    const { queue, host, log } = this.o;
    const started = Date.now();
    let held = true;
    const renew = setInterval(
      () =>
        void queue.renew(job.id, job.token).then(
          (ok) => {
            // Reaped, or past the job's deadline: the proof is for nobody now; its result is refused.
            if (!ok && held) log.warn('queue job: lease lost', { job: job.id, ms: Date.now() - started });
            held &&= ok;
          },
          () => undefined,
        ),
      Math.max(100, this.o.leaseMs / 3),
    );
    // Until the job's deadline, a result or failure waits out Redis being away: lost, the job would
    // be proved again elsewhere once its lease ran out.
    const until = started + Math.max(0, job.msLeft);
    try {
      const r = await this.o.prove(job);
      const first = await whileUnreachable(until, () =>
        queue.complete(job.id, job.token, host, r.result, r.circuit, r.keySha256),
      );
      this.jobs?.inc([first ? 'completed' : 'duplicate']);
      log.info('queue job done', { job: job.id, circuit: r.circuit, ms: Date.now() - started, first });
    } catch (e) {
      const kind = e instanceof AppError ? e.kind : 'prover_internal';
      const message = e instanceof AppError ? e.message : `Internal error: ${String((e as Error)?.message ?? e)}`;
      const outcome = await whileUnreachable(until, () =>
        queue.fail(job.id, job.token, message, kind, !PERMANENT.has(kind)),
      ).catch((err: Error) => `unrecorded (${err.message})`);
      this.jobs?.inc([
        outcome === 'failed' ? 'failed' : outcome === 'retried' ? 'retried' : outcome === 'done' ? 'duplicate' : 'lost',
      ]);
      log.warn('queue job failed', { job: job.id, kind, error: message, outcome, attempts: job.attempts });
    } finally {
      clearInterval(renew);
    }
  }

  /** Stops claiming and lets the jobs in hand finish (what is left when the process ends, leases return). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.reaper);
    await Promise.all(this.loops);
  }
}

/** `call`, tried again every half second while Redis is unreachable, until `until` (ms). */
async function whileUnreachable<T>(until: number, call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof ProverError && e.kind === 'prover_unavailable') || Date.now() >= until) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** One reaper pass, logged when it took anything back. */
export async function reap(queue: JobQueue, log: Logger): Promise<void> {
  const r = await queue.reap().catch(() => undefined);
  if (r && (r.requeued || r.failed)) log.warn('job queue: expired leases taken back', { queue: queue.where, ...r });
}
