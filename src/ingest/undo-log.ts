// What a block wrote, kept so it can be taken back (--cluster-commitment confirmed): while a block
// not yet finalized is applied, every put and remove on the index's tables first records the value
// it replaces (raw bytes, or none) under the block's slot, in the same LMDB transaction. A rollback
// restores those values newest first, in one transaction; once the block is finalized its records
// are dropped. The ingesters write as they always do: the log sits under them, at the tables.
import { asBinary, type Database, type RootDatabase } from 'lmdb';

type Key = string | number | Buffer | Uint8Array;

interface UndoRecord {
  /** The table's name. */
  d: string;
  k: Key;
  /** The bytes the write replaced; null where the key had no value. */
  v: Buffer | null;
}

export class UndoLog {
  /** Each watched table's own put and remove (a rollback's writes are not recorded). */
  private readonly tables = new Map<
    string,
    { put: (...a: unknown[]) => unknown; remove: (...a: unknown[]) => unknown }
  >();
  private readonly log: Database<UndoRecord, [number, number]>;
  /** The slot whose writes are being recorded; undefined while writes are final. */
  private recording: number | undefined;
  private seq = 0;

  constructor(private readonly root: RootDatabase) {
    this.log = root.openDB({ name: 'cluster-undo', encoding: 'msgpack' });
  }

  /**
   * Runs `open` (which opens tables on the root) with every table it opens watched: their writes
   * are recorded while a slot is, so everything opened so (the trees, the compressed-account
   * index, the checkpoint) can be rolled back. The root itself is left as it was.
   */
  watching<T>(open: () => T): T {
    const root = this.root;
    const own = Object.prototype.hasOwnProperty.call(root, 'openDB');
    const original = root.openDB;
    root.openDB = ((...args: Parameters<RootDatabase['openDB']>) => {
      const db = original.apply(root, args) as unknown as Database<unknown, Key>;
      const opts = args[0] as { name?: string } | string | undefined;
      const name = typeof opts === 'string' ? opts : opts?.name;
      if (!name) throw new Error('undo log: a table opened without a name cannot be rolled back');
      this.watch(name, db);
      return db;
    }) as RootDatabase['openDB'];
    try {
      return open();
    } finally {
      if (own) root.openDB = original;
      else delete (root as { openDB?: unknown }).openDB;
    }
  }

  private watch(name: string, db: Database<unknown, Key>): void {
    if (this.tables.has(name)) throw new Error(`undo log: table ${name} opened twice`);
    const put = db.put.bind(db) as (...a: unknown[]) => unknown;
    const remove = db.remove.bind(db) as (...a: unknown[]) => unknown;
    this.tables.set(name, { put, remove });
    const record = (k: Key) => {
      const raw = db.getBinary(k);
      const prev = raw === undefined ? null : Buffer.from(raw);
      if (this.recording !== undefined) void this.log.put([this.recording, this.seq++], { d: name, k, v: prev });
      this.saved?.push({ d: name, k, v: prev });
    };
    Object.assign(db, {
      put: (k: Key, ...rest: unknown[]) => {
        if (this.recording !== undefined || this.saved) record(k);
        return put(k, ...rest);
      },
      remove: (k: Key, ...rest: unknown[]) => {
        if (this.recording !== undefined || this.saved) record(k);
        return remove(k, ...rest);
      },
    });
  }

  /** What the open savepoints' writes replaced, oldest first (the innermost's). */
  private saved: UndoRecord[] | undefined;

  /**
   * Runs `fn` (inside the caller's write transaction) so that, if it throws, every write it made
   * to the watched tables is taken back before the error goes on: what an LMDB nested transaction
   * does, without one (LMDB's cost per nested transaction grows with the enclosing one's dirty
   * pages, which made them most of a backfill's time). Savepoints nest.
   */
  savepoint<T>(fn: () => T): T {
    const outer = this.saved;
    const mine: UndoRecord[] = [];
    const seq = this.seq;
    this.saved = mine;
    try {
      const r = fn();
      outer?.push(...mine);
      return r;
    } catch (e) {
      this.saved = undefined;
      this.restore(mine);
      // Its undo records went with its writes.
      if (this.recording !== undefined) {
        for (let i = seq; i < this.seq; i++) void this.log.remove([this.recording, i]);
        this.seq = seq;
      }
      throw e;
    } finally {
      this.saved = outer;
    }
  }

  /** Puts back what `records` replaced, newest first, without recording it. */
  private restore(records: readonly UndoRecord[]): void {
    for (let i = records.length - 1; i >= 0; i--) {
      const r = records[i]!;
      const table = this.tables.get(r.d);
      if (!table) throw new Error(`undo log: a record for table ${r.d}, which is not open`);
      const k = r.k instanceof Uint8Array && !Buffer.isBuffer(r.k) ? Buffer.from(r.k) : r.k;
      if (r.v === null) table.remove(k);
      else table.put(k, asBinary(r.v));
    }
  }

  /**
   * Runs `fn` (inside the caller's write transaction) with the writes it makes recorded under
   * `slot`, to be taken back by rollback().
   */
  record<T>(slot: bigint, fn: () => T): T {
    if (this.recording !== undefined) throw new Error('undo log: already recording');
    this.recording = Number(slot);
    this.seq = 0;
    try {
      return fn();
    } finally {
      this.recording = undefined;
    }
  }

  /** The oldest slot with writes recorded, if any. */
  oldest(): bigint | undefined {
    for (const { key } of this.log.getRange({ limit: 1 })) return BigInt(key[0]);
    return undefined;
  }

  /**
   * Takes back every write recorded for slots from `from` on, newest first, in the caller's write
   * transaction. Returns how many writes were taken back.
   */
  rollback(from: bigint): number {
    const entries = [...this.log.getRange({ start: [Number(from), 0] })];
    this.restore(entries.map((e) => e.value));
    for (const { key } of entries) void this.log.remove(key);
    return entries.length;
  }

  /** Drops the records of slots up to `slot` (their blocks are final). */
  forget(through: bigint): void {
    for (const key of this.log.getKeys({ end: [Number(through) + 1, 0] })) void this.log.remove(key);
  }
}
