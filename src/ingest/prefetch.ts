// JSON-RPC calls made ahead on a thread of their own. A cluster follower applies a run of blocks
// in one synchronous transaction; while it does, its own thread sends nothing, and the cluster's
// node sits idle once the few getBlock calls under way are answered. A Prefetcher is handed the
// calls the follower will make, in order, and a worker thread makes them meanwhile, holding at
// most a window of answers (so many, and so many bytes) until they are taken. A call made ahead
// is only the caller's first attempt made early: its answer, or the typed error of why none came,
// is read as that attempt's, and the caller retries as it always does, so a prefetch never changes
// what the caller ends up with.
import { Worker } from 'node:worker_threads';
import { workerUrl } from '../util/worker-url.js';
import { PostFailure, postFailureError, requestBody, type Answer, type UpstreamError } from '../wire/upstream.js';

export interface PrefetchOptions {
  /** The upstream's URL (http or https). */
  url: string;
  timeoutMs: number;
  /** Requests under way at once. */
  concurrency: number;
  /** Answers fetched ahead and not yet taken, with those under way, at most. */
  maxAhead: number;
  /** Bytes of answers fetched ahead and not yet taken, about at most (one answer may pass it). */
  maxBytes: number;
}

/** To the thread: a request to make, answers taken (their bytes), or: forget what is queued. */
export type ToPrefetcher = { t: 'want'; id: number; body: string } | { t: 'took'; bytes: number } | { t: 'drop' };

/**
 * From the thread: an answer (its body handed over), why none came (a timeout, a connection that
 * failed or broke off), or nothing (dropped before it started).
 */
export interface FromPrefetcher {
  id: number;
  status?: number;
  retryAfter?: string | null;
  body?: ArrayBuffer;
  failure?: { stage: PostFailure['stage']; message: string };
}

/** A call made ahead: its whole answer, the typed error of why none came, or undefined (not made). */
export type Prefetched = Answer | UpstreamError | undefined;

interface Wanted {
  id: number;
  body: string;
  /** Settled when the thread answers. */
  answer: Promise<FromPrefetcher | undefined>;
  settle: (a: FromPrefetcher | undefined) => void;
}

export class Prefetcher {
  private readonly worker: Worker;
  private readonly byKey = new Map<string, Wanted>();
  private readonly byId = new Map<number, Wanted>();
  private nextId = 0;
  private dead = false;

  constructor(private readonly o: PrefetchOptions) {
    this.worker = new Worker(new URL(workerUrl(new URL('./prefetch.worker.js', import.meta.url))), {
      workerData: o,
    });
    // The thread must not keep the process alive, nor bring it down: without it, callers call themselves.
    this.worker.unref();
    this.worker.on('message', (m: FromPrefetcher) => this.answered(m));
    this.worker.on('error', () => this.stop());
    this.worker.on('exit', () => this.stop());
  }

  /** The call `key` names will be made: make it ahead (a key already wanted is left as it is). */
  want(key: string, method: string, params: unknown): void {
    if (this.dead || this.byKey.has(key)) return;
    let settle!: Wanted['settle'];
    const answer = new Promise<FromPrefetcher | undefined>((r) => (settle = r));
    const w: Wanted = { id: this.nextId++, body: requestBody(method, params), answer, settle };
    this.byKey.set(key, w);
    this.byId.set(w.id, w);
    this.post({ t: 'want', id: w.id, body: w.body });
  }

  /**
   * The call made ahead for `key`, once it is done: its answer, or the UpstreamError of why none
   * came (the first attempt's, for the caller to retry); undefined when no call with the same
   * request was wanted, or it was never made. Then the caller makes it itself.
   */
  take(key: string, method: string, params: unknown): Promise<Prefetched> | undefined {
    const w = this.byKey.get(key);
    if (!w) return undefined;
    this.byKey.delete(key);
    if (w.body !== requestBody(method, params)) {
      void w.answer.then((m) => this.release(m));
      return undefined;
    }
    return w.answer.then((m) => {
      if (m?.failure)
        return postFailureError(
          this.o.url,
          method,
          new PostFailure(m.failure.message, m.failure.stage),
          this.o.timeoutMs,
        );
      if (!m?.body) return undefined;
      const answer = {
        status: m.status!,
        retryAfter: m.retryAfter ?? null,
        text: Buffer.from(m.body).toString('utf8'),
      };
      this.release(m);
      return answer;
    });
  }

  /** Forgets every call wanted and not taken (the caller will not make them): the thread drops those not started. */
  drop(): void {
    for (const w of this.byKey.values()) void w.answer.then((m) => this.release(m));
    this.byKey.clear();
    this.post({ t: 'drop' });
  }

  close(): void {
    this.stop();
    void this.worker.terminate();
  }

  private answered(m: FromPrefetcher): void {
    const w = this.byId.get(m.id);
    if (!w) return this.release(m);
    this.byId.delete(m.id);
    w.settle(m);
  }

  /** An answer taken (or not wanted): its room in the window goes back to the thread. */
  private release(m: FromPrefetcher | undefined): void {
    if (m?.body) this.post({ t: 'took', bytes: m.body.byteLength });
  }

  private post(m: ToPrefetcher): void {
    if (!this.dead) this.worker.postMessage(m);
  }

  /** Without the thread, every wanted call is answered undefined: its caller makes it. */
  private stop(): void {
    if (this.dead) return;
    this.dead = true;
    for (const w of this.byId.values()) w.settle(undefined);
    this.byId.clear();
    this.byKey.clear();
  }
}
