// Postgres, synchronously: the index's code reads and writes its tables synchronously (as LMDB
// allows, and as every ingester and query of zkgate is written), so the Postgres index runs its
// statements on a worker thread (bridge.worker.ts) and waits for the answer with Atomics.wait,
// bounded by a deadline. Writes are sent ahead without waiting; the worker runs them in order
// before the next statement on the same connection, whose answer carries their error if one failed.
// A Postgres that does not answer costs one deadline, never a hang: after it, calls fail at once
// until a probe on the worker finds it answering again.
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { AppError } from '../errors.js';
import { workerUrl } from '../util/worker-url.js';
import type { BridgeInit, BridgeReply, BridgeRequest, Statement } from './bridge.worker.js';

/** The index database did not answer, or its connection failed: callers get a clear error, at once. */
export class IndexDbUnavailableError extends AppError {
  readonly kind = 'index_db_unavailable';
}

/** A statement Postgres refused (a bug or a schema mismatch, not the caller's input). */
export class IndexDbError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface SyncPgOptions {
  /** postgres:// or postgresql:// (sslmode in the query string as libpq reads it). */
  url: string;
  /** Longest wait for one answer, and Postgres's statement_timeout, ms. */
  timeoutMs: number;
  applicationName?: string;
  /** Hears of every answer waited for: its time (ms) and whether it failed (for metrics). */
  onAnswer?: (ms: number, failed: boolean) => void;
}

/** The URL as logs and errors show it: without its password. */
export function redactDbUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an index database URL that does not parse)';
  }
}

export class SyncPg {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly probePort: MessagePort;
  private readonly flag: Int32Array;
  private nextId = 1;
  private closed = false;
  readonly where: string;

  constructor(private readonly o: SyncPgOptions) {
    this.where = redactDbUrl(o.url);
    const shared = new SharedArrayBuffer(4);
    this.flag = new Int32Array(shared);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const probe = new MessageChannel();
    this.probePort = probe.port1;
    probe.port1.on('message', () => (this.silent = false));
    probe.port1.unref();
    const init: BridgeInit = {
      url: o.url,
      flag: shared,
      reply: port2,
      probeReply: probe.port2,
      timeoutMs: o.timeoutMs,
      applicationName: o.applicationName ?? 'zkgate',
    };
    this.worker = new Worker(new URL(workerUrl(new URL('./bridge.worker.js', import.meta.url))), {
      workerData: init,
      transferList: [port2, probe.port2],
    });
    // The thread must not keep the process alive, nor bring it down.
    this.worker.unref();
    this.worker.on('error', () => undefined);
  }

  /** Statements sent ahead and not posted yet, by connection: they go with the next query, or on the next turn. */
  private queued = new Map<string, Statement[]>();
  private posting = false;

  /** Sends statements to run on `conn` in order, without waiting (their error comes with the next query). */
  send(conn: string, statements: Statement[]): void {
    if (this.closed || statements.length === 0) return;
    const q = this.queued.get(conn);
    if (q) q.push(...statements);
    else this.queued.set(conn, [...statements]);
    if (!this.posting) {
      this.posting = true;
      setImmediate(() => this.postQueued());
    }
  }

  /** Posts what was sent ahead and has not gone with a query. */
  private postQueued(): void {
    this.posting = false;
    if (this.closed) return;
    for (const [conn, statements] of this.queued) {
      const req: BridgeRequest = { id: this.nextId++, conn, statements, wait: false };
      this.worker.postMessage(req);
    }
    this.queued.clear();
  }

  /**
   * Postgres did not answer a call in time: later calls fail at once (the event loop would wait a
   * whole timeout on each) until the worker's probe finds it answering again.
   */
  private silent = false;

  /** Postgres did not answer in time: calls fail at once from now on, until the probe hears it. */
  private silence(): IndexDbUnavailableError {
    this.silent = true;
    this.worker.postMessage('probe');
    return new IndexDbUnavailableError(`the index database ${this.where} did not answer within ${this.o.timeoutMs} ms`);
  }

  /** Runs statements on `conn` (after any sent ahead) and returns the last one's rows. */
  query<R = Record<string, unknown>>(conn: string, statements: Statement[]): R[] {
    if (this.closed) throw new IndexDbUnavailableError(`the index database ${this.where} is closed`);
    if (this.silent)
      throw new IndexDbUnavailableError(
        `the index database ${this.where} did not answer within ${this.o.timeoutMs} ms; calls fail at once until it answers again`,
      );
    const id = this.nextId++;
    Atomics.store(this.flag, 0, 0);
    const ahead = this.queued.get(conn);
    this.queued.delete(conn);
    const req: BridgeRequest = { id, conn, statements: ahead ? [...ahead, ...statements] : statements, wait: true };
    const t0 = performance.now();
    this.worker.postMessage(req);
    // A late answer to an earlier request (one that timed out) is skipped.
    for (;;) {
      const left = this.o.timeoutMs + 1000 - (performance.now() - t0);
      if (left <= 0 || Atomics.wait(this.flag, 0, 0, left) === 'timed-out') {
        this.o.onAnswer?.(performance.now() - t0, true);
        throw this.silence();
      }
      Atomics.store(this.flag, 0, 0);
      let m: { message: BridgeReply } | undefined;
      while ((m = receiveMessageOnPort(this.port) as { message: BridgeReply } | undefined)) {
        if (m.message.id !== id) continue;
        const ms = performance.now() - t0;
        const e = m.message.error;
        this.o.onAnswer?.(ms, e !== undefined);
        if (!e) return (m.message.rows ?? []) as R[];
        if (e.timedOut) throw this.silence();
        if (e.connection)
          throw new IndexDbUnavailableError(`the index database ${this.where} is unreachable: ${e.message}`);
        throw new IndexDbError(`index database: ${e.message}`, e.code);
      }
    }
  }

  close(): void {
    if (this.closed) return;
    this.postQueued();
    this.closed = true;
    this.probePort.close();
    this.worker.postMessage('close');
  }
}
