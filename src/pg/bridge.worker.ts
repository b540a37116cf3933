// The Postgres side of SyncPg (sync-pg.ts), on a thread of its own: it holds the connections
// (`pg` clients, by name) and runs what the main thread sends, in order per connection. A request
// the main thread waits for is answered on the reply port and signalled through the shared flag;
// one it does not wait for (writes sent ahead) keeps its error for the next request it waits for
// on that connection.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import pg from 'pg';

export interface BridgeInit {
  url: string;
  flag: SharedArrayBuffer;
  reply: MessagePort;
  /** Where a probe (see 'probe' below) says Postgres answers again. */
  probeReply: MessagePort;
  /** statement_timeout and connection timeout, ms. */
  timeoutMs: number;
  applicationName: string;
}

export interface Statement {
  sql: string;
  params?: unknown[];
}

export interface BridgeRequest {
  id: number;
  conn: string;
  statements: Statement[];
  /** Answered (with the last statement's rows); otherwise sent ahead. */
  wait: boolean;
}

export interface BridgeReply {
  id: number;
  rows?: Record<string, unknown>[];
  /** `timedOut`: the server did not answer in time (connecting, or a query), not a refusal. */
  error?: { message: string; code?: string; connection: boolean; timedOut: boolean };
}

const init = workerData as BridgeInit;
const flag = new Int32Array(init.flag);

/** Errors of the connection itself (down, refused, cut), as opposed to a statement's. */
const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
]);
const isConnectionError = (e: unknown) => {
  const err = e as { code?: string; message?: string };
  return (
    (err.code !== undefined && connectionCodes.has(err.code)) ||
    /Connection terminated|not queryable|connection timeout|timeout expired|Query read timeout|Client has encountered a connection error|transaction was lost/i.test(
      err.message ?? '',
    )
  );
};

/** One named connection: its client (replaced when it fails), its queue, and its transaction state. */
interface Conn {
  client: pg.Client | undefined;
  ready: Promise<void>;
  failed: Error | undefined;
  queue: Promise<void>;
  /** A BEGIN ran and no COMMIT or ROLLBACK since. */
  inTransaction: boolean;
  /** The connection failed inside a transaction: its statements fail until a BEGIN or ROLLBACK. */
  lost: boolean;
  /** The first error of a request sent ahead, reported with the next request waited for. */
  pending: Error | undefined;
}
const conns = new Map<string, Conn>();

function conn(name: string): Conn {
  let c = conns.get(name);
  if (!c) {
    c = {
      client: undefined,
      ready: Promise.resolve(),
      failed: undefined,
      queue: Promise.resolve(),
      inTransaction: false,
      lost: false,
      pending: undefined,
    };
    conns.set(name, c);
  }
  return c;
}

/** The connection's client, opened again after a failure. */
function client(c: Conn, name: string): pg.Client {
  if (c.client && !c.failed) return c.client;
  if (c.client) void c.client.end().catch(() => undefined);
  if (c.inTransaction) c.lost = true;
  c.inTransaction = false;
  c.failed = undefined;
  const cl = new pg.Client({
    connectionString: init.url,
    connectionTimeoutMillis: init.timeoutMs,
    statement_timeout: init.timeoutMs,
    // A server that stops answering (hung, or cut off) fails the query here too; the connection
    // is then replaced, and the queue behind it goes on.
    query_timeout: init.timeoutMs,
    application_name: `${init.applicationName} ${name}`,
  });
  cl.on('error', (e) => (c.failed ??= e));
  c.client = cl;
  c.ready = cl.connect().then(() => undefined);
  c.ready.catch(() => undefined);
  return cl;
}

function answer(reply: BridgeReply): void {
  init.reply.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

const word = (sql: string) => sql.trimStart().split(/\s/, 1)[0]!.toUpperCase();

async function run(name: string, req: BridgeRequest): Promise<void> {
  const c = conn(name);
  const first = word(req.statements[0]?.sql ?? '');
  if (first === 'BEGIN') {
    c.lost = false;
    c.pending = undefined;
  }
  let rows: Record<string, unknown>[] | undefined;
  let failure: unknown;
  try {
    const cl = client(c, name);
    await c.ready;
    const list = req.statements;
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      const w = word(s.sql);
      // Statements without parameters (BEGIN, SAVEPOINT, RELEASE, COMMIT…) in a row go as one
      // simple query: one round trip for a transaction's bookkeeping.
      let j = i;
      if (!c.lost && !s.params?.length)
        while (j + 1 < list.length && !list[j + 1]!.params?.length && word(list[j + 1]!.sql) !== 'DO') j++;
      if (j > i && w !== 'DO') {
        const group = list.slice(i, j + 1);
        const result = (await cl.query(group.map((g) => g.sql).join(';\n'))) as unknown as
          pg.QueryResult | pg.QueryResult[];
        rows = (Array.isArray(result) ? result.at(-1)! : result).rows;
        for (const g of group) {
          const gw = word(g.sql);
          if (gw === 'BEGIN') c.inTransaction = true;
          else if (gw === 'COMMIT' || (gw === 'ROLLBACK' && !/\bTO\b/i.test(g.sql))) c.inTransaction = false;
        }
        i = j;
        continue;
      }
      if (c.lost) {
        if (w === 'ROLLBACK') {
          c.lost = false;
          continue;
        }
        if (w === 'COMMIT') c.lost = false;
        throw new Error('the connection to the index database was lost inside a transaction: the transaction was lost');
      }
      rows = (await cl.query({ text: s.sql, values: s.params ?? [] })).rows;
      if (w === 'BEGIN') c.inTransaction = true;
      else if (w === 'COMMIT' || (w === 'ROLLBACK' && !/\bTO\b/i.test(s.sql))) c.inTransaction = false;
    }
  } catch (e) {
    failure = e;
    // A connection that failed is opened again for the next request.
    if (isConnectionError(e)) c.failed ??= e as Error;
  }
  if (!req.wait) {
    if (failure !== undefined) c.pending ??= failure as Error;
    return;
  }
  const reported = c.pending ?? failure;
  c.pending = undefined;
  if (reported === undefined) return answer({ id: req.id, rows: rows ?? [] });
  const err = reported as Error & { code?: string };
  answer({
    id: req.id,
    error: {
      message: err.message,
      ...(err.code ? { code: err.code } : {}),
      connection: isConnectionError(err) || c.failed !== undefined,
      timedOut: /timeout expired|Query read timeout/.test(err.message),
    },
  });
}

/**
 * Until Postgres answers a fresh connection's `SELECT 1`, tried every half second; then says so
 * on the probe port. The main thread fails its calls at once meanwhile (sync-pg.ts).
 */
let probing = false;
async function probe(): Promise<void> {
  if (probing) return;
  probing = true;
  for (;;) {
    const cl = new pg.Client({
      connectionString: init.url,
      connectionTimeoutMillis: init.timeoutMs,
      query_timeout: init.timeoutMs,
      application_name: `${init.applicationName} probe`,
    });
    cl.on('error', () => undefined);
    try {
      await cl.connect();
      await cl.query('SELECT 1');
      void cl.end().catch(() => undefined);
      break;
    } catch {
      void cl.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  probing = false;
  init.probeReply.postMessage('answers');
}

parentPort!.on('message', (req: BridgeRequest | 'close' | 'probe') => {
  if (req === 'probe') {
    void probe();
    return;
  }
  if (req === 'close') {
    void Promise.all([...conns.values()].map((c) => c.client?.end().catch(() => undefined))).then(() =>
      process.exit(0),
    );
    return;
  }
  const c = conn(req.conn);
  c.queue = c.queue.then(() => run(req.conn, req));
});
