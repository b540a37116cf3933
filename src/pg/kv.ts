// The cluster index's tables in Postgres (--index-db): the part of lmdb's API the index uses
// (openDB, get, getBinary, doesExist, put, remove, getRange, getKeys, getCount,
// transactionSync), over one table per LMDB table (`zkgate_kv_<name>`, bytea key primary key,
// bytea value). Keys are encoded as LMDB orders them (raw bytes, or `ordered-binary`, which sorts
// bytewise as bytea does), so every range the index reads is a range of the primary key's B-tree.
// So the trees, queues and account indexes are the same code over either engine.
//
// Transactions: transactionSync opens one on the writer's connection; writes are kept and sent
// with the next statement that needs them (a range read, the commit), one table's upserts and
// deletes in one statement each; a point read is answered by the kept writes or read alone. A
// nested transactionSync is a layer of kept writes, and a SAVEPOINT only once its writes are
// sent. Reads outside a transaction see one snapshot per synchronous run (REPEATABLE READ, ended
// on the event loop's next turn), as LMDB's readers do: a proof's path and root come from one
// state.
import { pack, unpack } from 'msgpackr';
import { readKey, writeKey } from 'ordered-binary';
import { MIGRATION_LOCK } from './schema.js';
import type { SyncPg } from './sync-pg.js';
import type { Statement } from './bridge.worker.js';

type Encoding = 'binary' | 'json' | 'msgpack';

export interface OpenOptions {
  name: string;
  encoding?: Encoding;
  keyEncoding?: 'binary' | 'ordered-binary';
}

export interface RangeOptions {
  start?: unknown;
  end?: unknown;
  reverse?: boolean;
  limit?: number;
}

const BINARY = '\x10binary-data\x02';
/** Rows per statement of a range read (the rest is read as iteration reaches it). */
const PAGE = 500;
const scratch = Buffer.allocUnsafe(8192);

/** bytea as the worker thread hands it back (a Uint8Array: messages lose Buffer's class), as a Buffer. */
const buf = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/**
 * A bytea[] parameter in Postgres's binary array format (ndim, flags, element type 17, length and
 * lower bound, then each element's length and bytes): sent as it is, where the text form would
 * double every byte in hex and cost Postgres more to parse than the rows cost to write.
 */
export function byteaArray(items: readonly Uint8Array[]): Buffer {
  if (items.length === 0) return Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 17]);
  let n = 20;
  for (const b of items) n += 4 + b.length;
  const out = Buffer.allocUnsafe(n);
  out.writeInt32BE(1, 0);
  out.writeInt32BE(0, 4);
  out.writeInt32BE(17, 8);
  out.writeInt32BE(items.length, 12);
  out.writeInt32BE(1, 16);
  let at = 20;
  for (const b of items) {
    at = out.writeInt32BE(b.length, at);
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/** A table's SQL name: the LMDB name, lowercased, with anything else than [a-z0-9_] as `_`. */
export const tableName = (name: string) => `zkgate_kv_${name.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;

export class PgTable {
  readonly sql: string;

  constructor(
    private readonly root: PgRoot,
    readonly name: string,
    private readonly encoding: Encoding,
    private readonly binaryKeys: boolean,
  ) {
    this.sql = tableName(name);
  }

  key(k: unknown): Buffer {
    if (this.binaryKeys) return Buffer.from(k as Uint8Array);
    const end = writeKey(k as never, scratch, 0);
    return Buffer.from(scratch.subarray(0, end));
  }

  private fromKey(b: Buffer): unknown {
    return this.binaryKeys ? b : readKey(b, 0, b.length);
  }

  encode(v: unknown): Buffer {
    if (v && typeof v === 'object' && BINARY in v) return Buffer.from((v as Record<string, Uint8Array>)[BINARY]!);
    if (this.encoding === 'binary') return Buffer.from(v as Uint8Array);
    if (this.encoding === 'json') return Buffer.from(JSON.stringify(v));
    return pack(v);
  }

  decode(b: Buffer): unknown {
    if (this.encoding === 'binary') return b;
    if (this.encoding === 'json') return JSON.parse(b.toString('utf8'));
    return unpack(b);
  }

  /** Reads these keys ahead, in one statement (see PgRoot.prefetch). */
  prefetch(keys: unknown[]): void {
    this.root.prefetch(
      this,
      keys.map((k) => this.key(k)),
    );
  }

  getBinary(k: unknown): Buffer | undefined {
    return this.root.read(this, this.key(k));
  }

  get(k: unknown): unknown {
    const b = this.getBinary(k);
    return b === undefined ? undefined : this.decode(b);
  }

  doesExist(k: unknown): boolean {
    return this.getBinary(k) !== undefined;
  }

  put(k: unknown, v: unknown): Promise<boolean> {
    this.root.write(this, this.key(k), this.encode(v));
    return Promise.resolve(true);
  }

  putSync(k: unknown, v: unknown): boolean {
    this.root.transactionSync(() => this.root.write(this, this.key(k), this.encode(v)));
    return true;
  }

  remove(k: unknown): Promise<boolean> {
    this.root.write(this, this.key(k), null);
    return Promise.resolve(true);
  }

  /** The bounds of a range as SQL, with its parameters (LMDB's: start inclusive, end exclusive; reversed, start is the top). */
  private bounds(o: RangeOptions): { where: string; params: Buffer[] } {
    const parts: string[] = [];
    const params: Buffer[] = [];
    const lo = o.reverse ? o.end : o.start;
    const hi = o.reverse ? o.start : o.end;
    if (lo !== undefined) {
      params.push(this.key(lo));
      parts.push(o.reverse ? `k > $${params.length}` : `k >= $${params.length}`);
    }
    if (hi !== undefined) {
      params.push(this.key(hi));
      parts.push(o.reverse ? `k <= $${params.length}` : `k < $${params.length}`);
    }
    return { where: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
  }

  *getRange(o: RangeOptions = {}): Generator<{ key: any; value: any }> {
    let left = o.limit ?? Infinity;
    let after: Buffer | undefined;
    const order = o.reverse ? 'DESC' : 'ASC';
    while (left > 0) {
      const { where, params } = this.bounds(o);
      const clauses = where ? [where] : [];
      if (after) {
        params.push(after);
        clauses.push(`${where ? 'AND' : 'WHERE'} k ${o.reverse ? '<' : '>'} $${params.length}`);
      }
      const n = Math.min(PAGE, left);
      const rows = this.root.rows<{ k: Uint8Array; v: Uint8Array }>({
        sql: `SELECT k, v FROM ${this.sql} ${clauses.join(' ')} ORDER BY k ${order} LIMIT ${n}`,
        params,
      });
      for (const r of rows) yield { key: this.fromKey(buf(r.k)), value: this.decode(buf(r.v)) };
      if (rows.length < n) return;
      left -= rows.length;
      after = buf(rows.at(-1)!.k);
    }
  }

  *getKeys(o: RangeOptions = {}): Generator<any> {
    for (const { key } of this.getRange(o)) yield key;
  }

  getCount(o: RangeOptions = {}): number {
    const { where, params } = this.bounds(o);
    const [r] = this.root.rows<{ n: string }>({ sql: `SELECT count(*) AS n FROM ${this.sql} ${where}`, params });
    return Number(r?.n ?? 0);
  }
}

type Layer = Map<PgTable, Map<string, [Buffer, Buffer | null]>>;
/** Values known of a table's keys (hex → value, null: none), as read or sent. */
type Cache = Map<PgTable, Map<string, Buffer | null>>;
const cacheOf = (c: Cache, t: PgTable) => {
  let m = c.get(t);
  if (!m) c.set(t, (m = new Map()));
  return m;
};

export class PgRoot {
  private readonly tables = new Map<string, PgTable>();
  /**
   * The open transaction's writes not sent yet, one layer per open transactionSync (0: the
   * transaction; i: its i-th nested one): table → key (hex) → [key, value or null for a removal].
   * A nested transaction is a layer here until a statement needs its writes in Postgres (a range
   * read, the commit): ingest takes one per Light transaction, and almost never needs one there.
   */
  private layers: Layer[] = [];
  /** Nested levels that have a SAVEPOINT in Postgres (1…materialized), their lower layers sent. */
  private materialized = 0;
  private snapshot = false;
  /** Run before every COMMIT (the writer's lease check, lease.ts); none by default. */
  private fence: Statement | undefined;

  constructor(readonly db: SyncPg) {}

  /** Hears of each commit's time, ms (its last round trip: the kept writes, the fence, COMMIT). */
  onCommit: ((ms: number) => void) | undefined;

  /** Commits from now on run `fence` first: a transaction it fails does not commit. */
  fenceCommits(fence: Statement | undefined): void {
    this.fence = fence;
  }

  openDB(o: OpenOptions | string): PgTable {
    const opts = typeof o === 'string' ? { name: o } : o;
    let t = this.tables.get(opts.name);
    if (t) return t;
    const binaryKeys = opts.keyEncoding === 'binary';
    t = new PgTable(this, opts.name, opts.encoding ?? 'msgpack', binaryKeys);
    // Under the migration lock: two processes opening the index at once create each table once.
    try {
      this.db.query('writer', [
        { sql: 'BEGIN' },
        { sql: 'SELECT pg_advisory_xact_lock($1)', params: [MIGRATION_LOCK] },
        { sql: `CREATE TABLE IF NOT EXISTS ${t.sql} (k bytea PRIMARY KEY, v bytea NOT NULL)` },
        { sql: 'COMMIT' },
      ]);
    } catch (e) {
      this.db.send('writer', [{ sql: 'ROLLBACK' }]);
      throw e;
    }
    this.tables.set(opts.name, t);
    return t;
  }

  /** Inside a transaction: the writer's connection, with the kept writes first; outside: this run's snapshot. */
  rows<R>(s: Statement): R[] {
    if (this.layers.length > 0) return this.db.query<R>('writer', [...this.flush(), s]);
    return this.readerRows(s);
  }

  private readerRows<R>(s: Statement): R[] {
    const begin = this.snapshot ? [] : [{ sql: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' }];
    if (!this.snapshot) {
      this.snapshot = true;
      setImmediate(() => this.endSnapshot());
    }
    return this.db.query<R>('reader', [...begin, s]);
  }

  /** Ends the readers' snapshot: on the event loop's next turn, and after this process commits (as LMDB renews its readers). */
  private endSnapshot(): void {
    if (!this.snapshot) return;
    this.snapshot = false;
    this.snapshotSeen = new Map();
    this.db.send('reader', [{ sql: 'COMMIT' }]);
  }

  read(t: PgTable, key: Buffer): Buffer | undefined {
    const sql = `SELECT v FROM ${t.sql} WHERE k = $1`;
    const hex = key.toString('hex');
    if (this.layers.length === 0) {
      // One snapshot answers a key the same each time: a request reading it again (a tree's
      // metadata, the checkpoint) makes one round trip for it.
      const known = cacheOf(this.snapshotSeen, t);
      const ahead = known.get(hex);
      if (ahead !== undefined) return ahead ?? undefined;
      const [r] = this.readerRows<{ v: Uint8Array }>({ sql, params: [key] });
      const v = r && buf(r.v);
      known.set(hex, v ?? null);
      return v;
    }
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const w = this.layers[i]!.get(t)?.get(hex);
      if (w) return w[1] ?? undefined;
    }
    // A key no kept write holds is as Postgres has it in this transaction: read without sending
    // the kept writes, once per transaction (the writer is the only process writing; its commits
    // are fenced).
    const seen = cacheOf(this.seen, t);
    if (seen.has(hex)) return seen.get(hex) ?? undefined;
    const [r] = this.db.query<{ v: Uint8Array }>('writer', [{ sql, params: [key] }]);
    const v = r && buf(r.v);
    seen.set(hex, v ?? null);
    return v;
  }

  /**
   * Reads `keys` of `t` in one statement, for reads about to come: into the open transaction's
   * view, or outside one into the readers' snapshot's (valid as long as it is).
   */
  prefetch(t: PgTable, keys: Buffer[]): void {
    const inTransaction = this.layers.length > 0;
    const seen = cacheOf(inTransaction ? this.seen : this.snapshotSeen, t);
    const want = new Map<string, Buffer>();
    for (const k of keys) {
      const hex = k.toString('hex');
      if (!seen.has(hex) && !this.layers.some((l) => l.get(t)?.has(hex))) want.set(hex, k);
    }
    if (want.size === 0) return;
    const s = { sql: `SELECT k, v FROM ${t.sql} WHERE k = ANY($1::bytea[])`, params: [byteaArray([...want.values()])] };
    const rows = inTransaction
      ? this.db.query<{ k: Uint8Array; v: Uint8Array }>('writer', [s])
      : this.readerRows<{ k: Uint8Array; v: Uint8Array }>(s);
    for (const hex of want.keys()) seen.set(hex, null);
    for (const r of rows) seen.set(buf(r.k).toString('hex'), buf(r.v));
  }

  /** Values read (or read ahead) in the readers' snapshot, by table and key (null: none); dropped with it. */
  private snapshotSeen: Cache = new Map();

  /** Values Postgres holds in the open transaction, by table and key (null: none), as read or sent. */
  private seen: Cache = new Map();

  write(t: PgTable, key: Buffer, value: Buffer | null): void {
    if (this.layers.length === 0) {
      this.transactionSync(() => this.write(t, key, value));
      return;
    }
    const layer = this.layers.at(-1)!;
    let m = layer.get(t);
    if (!m) layer.set(t, (m = new Map()));
    m.set(key.toString('hex'), [key, value]);
  }

  /**
   * Every kept write as statements (one upsert and one delete per table and layer), each nested
   * layer after a SAVEPOINT of its own, so that taking one back stays possible; forgets them.
   */
  private flush(): Statement[] {
    const out: Statement[] = [];
    for (let i = 0; i < this.layers.length; i++) {
      if (i > this.materialized) {
        out.push({ sql: `SAVEPOINT sp${i}` });
        this.materialized = i;
      }
      out.push(...this.statements(this.layers[i]!));
      this.layers[i] = new Map();
    }
    return out;
  }

  /** A layer's writes: an upsert and a delete per table; what they send is what Postgres then holds. */
  private statements(layer: Layer): Statement[] {
    const out: Statement[] = [];
    for (const [t, m] of layer) {
      const seen = cacheOf(this.seen, t);
      const puts: Buffer[] = [];
      const values: Buffer[] = [];
      const dels: Buffer[] = [];
      for (const [hex, [k, v]] of m) {
        seen.set(hex, v);
        if (v === null) dels.push(k);
        else {
          puts.push(k);
          values.push(v);
        }
      }
      if (puts.length > 0)
        out.push({
          sql: `INSERT INTO ${t.sql} (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[]) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v`,
          params: [byteaArray(puts), byteaArray(values)],
        });
      if (dels.length > 0)
        out.push({ sql: `DELETE FROM ${t.sql} WHERE k = ANY($1::bytea[])`, params: [byteaArray(dels)] });
    }
    return out;
  }

  /**
   * `fn` in one transaction (nested in another: taken back alone): committed when it returns,
   * taken back whole when it throws.
   */
  transactionSync<T>(fn: () => T): T {
    if (this.layers.length === 0) {
      this.layers = [new Map()];
      this.materialized = 0;
      this.db.send('writer', [{ sql: 'BEGIN' }]);
      try {
        const r = fn();
        const t0 = performance.now();
        this.db.query('writer', [...this.flush(), ...(this.fence ? [this.fence] : []), { sql: 'COMMIT' }]);
        this.onCommit?.(performance.now() - t0);
        this.endSnapshot();
        return r;
      } catch (e) {
        this.db.send('writer', [{ sql: 'ROLLBACK' }]);
        throw e;
      } finally {
        this.layers = [];
        this.seen = new Map();
      }
    }
    const level = this.layers.length;
    this.layers.push(new Map());
    let ok = false;
    try {
      const r = fn();
      ok = true;
      return r;
    } finally {
      const top = this.layers.pop()!;
      if (this.materialized >= level) {
        this.materialized = level - 1;
        if (ok) this.db.send('writer', [{ sql: `RELEASE SAVEPOINT sp${level}` }]);
        else {
          this.db.send('writer', [
            { sql: `ROLLBACK TO SAVEPOINT sp${level}` },
            { sql: `RELEASE SAVEPOINT sp${level}` },
          ]);
          // What Postgres held of the keys sent since the savepoint is taken back with it.
          this.seen = new Map();
        }
      }
      if (ok) {
        // Its writes are the enclosing transaction's now.
        const below = this.layers.at(-1)!;
        for (const [t, m] of top) {
          const into = below.get(t);
          if (!into) below.set(t, m);
          else for (const [hex, w] of m) into.set(hex, w);
        }
      }
    }
  }

  /** A savepoint for TreeStore.useSavepoints: a nested transaction here. */
  savepoint<T>(fn: () => T): T {
    return this.transactionSync(fn);
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}
