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

/** A write kept in a savepoint's layer: the value's stored bytes, or null for a removal. */
interface KeptWrite {
  d: string;
  k: Key;
  v: Buffer | null;
}

/**
 * An open savepoint. It starts as a layer of kept writes (nothing sent to LMDB); a range read, or
 * a write that must go to LMDB now, sends it (and every layer below it), after which its writes
 * go to LMDB as they come, each recording the value it replaced so a throw can put it back.
 */
interface Level {
  layer: Map<string, KeptWrite> | undefined;
  records: UndoRecord[];
  /** The undo log's sequence number when its writes first went to LMDB (recorded slots only). */
  seq: number;
}

/** A key as a map key, by its type and value, as LMDB tells keys apart. */
function keyId(d: string, k: Key): string {
  if (typeof k === 'string') return `${d}\0s${k}`;
  if (typeof k === 'number') return `${d}\0n${k}`;
  if (k instanceof Uint8Array) return `${d}\0b${Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString('latin1')}`;
  return `${d}\0j${JSON.stringify(k)}`;
}

type Encoding = 'binary' | 'json' | 'other';

export class UndoLog {
  /** Each watched table's own methods (a rollback's writes are not recorded) and its encoding. */
  private readonly tables = new Map<
    string,
    {
      put: (...a: unknown[]) => unknown;
      remove: (...a: unknown[]) => unknown;
      getBinary: (k: Key) => Buffer | undefined;
      encoding: Encoding;
    }
  >();
  private readonly log: Database<UndoRecord, [number, number]>;
  /** The slot whose writes are being recorded; undefined while writes are final. */
  private recording: number | undefined;
  private seq = 0;
  /** The open savepoints, innermost last: those below `sent` send their writes to LMDB, the rest keep them. */
  private levels: Level[] = [];
  private sent = 0;

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
      const opts = args[0] as { name?: string; encoding?: string } | string | undefined;
      const name = typeof opts === 'string' ? opts : opts?.name;
      if (!name) throw new Error('undo log: a table opened without a name cannot be rolled back');
      const enc = typeof opts === 'object' ? opts.encoding : undefined;
      this.watch(name, db, enc === 'binary' ? 'binary' : enc === 'json' ? 'json' : 'other');
      return db;
    }) as RootDatabase['openDB'];
    try {
      return open();
    } finally {
      if (own) root.openDB = original;
      else delete (root as { openDB?: unknown }).openDB;
    }
  }

  private watch(name: string, db: Database<unknown, Key>, encoding: Encoding): void {
    if (this.tables.has(name)) throw new Error(`undo log: table ${name} opened twice`);
    const bound = <F>(f: F) => (f as (...a: unknown[]) => unknown).bind(db);
    const put = bound(db.put);
    const remove = bound(db.remove);
    const getBinary = bound(db.getBinary) as (k: Key) => Buffer | undefined;
    const get = bound(db.get);
    const doesExist = bound(db.doesExist);
    const ranges = { getRange: bound(db.getRange), getKeys: bound(db.getKeys), getCount: bound(db.getCount) };
    this.tables.set(name, { put, remove, getBinary, encoding });
    // A value in a layer is stored as LMDB stores it; tables of other encodings are not layered.
    const encode = (v: unknown): Buffer | undefined =>
      encoding === 'binary' && v instanceof Uint8Array
        ? Buffer.from(v)
        : encoding === 'json' && v !== undefined
          ? Buffer.from(JSON.stringify(v))
          : undefined;
    const kept = (k: Key) => this.kept(name, k);
    Object.assign(db, {
      put: (k: Key, v: unknown, ...rest: unknown[]) => {
        const layer = this.topLayer();
        if (layer) {
          const bytes = rest.length === 0 ? encode(v) : undefined;
          if (bytes) {
            layer.set(keyId(name, k), { d: name, k, v: bytes });
            return true;
          }
          this.send();
        }
        this.recordPrior(name, k);
        return put(k, v, ...rest);
      },
      remove: (k: Key, ...rest: unknown[]) => {
        const layer = this.topLayer();
        if (layer && rest.length === 0) {
          layer.set(keyId(name, k), { d: name, k, v: null });
          return true;
        }
        if (layer) this.send();
        this.recordPrior(name, k);
        return remove(k, ...rest);
      },
      getBinary: (k: Key) => {
        const w = kept(k);
        return w === undefined ? getBinary(k) : w.v === null ? undefined : Buffer.from(w.v);
      },
      get: (k: Key, ...rest: unknown[]) => {
        const w = rest.length === 0 ? kept(k) : undefined;
        if (w === undefined) return get(k, ...rest);
        if (w.v === null) return undefined;
        return encoding === 'json' ? JSON.parse(w.v.toString('utf8')) : Buffer.from(w.v);
      },
      doesExist: (k: Key, ...rest: unknown[]) => {
        const w = rest.length === 0 ? kept(k) : undefined;
        return w === undefined ? doesExist(k, ...rest) : w.v !== null;
      },
      // A range read sees LMDB only: the kept writes go there first.
      ...Object.fromEntries(
        Object.entries(ranges).map(([m, f]) => [
          m,
          (...a: unknown[]) => {
            if (this.sent < this.levels.length) this.send();
            return f(...a);
          },
        ]),
      ),
    });
  }

  /** The innermost savepoint's layer, when it still keeps its writes. */
  private topLayer(): Map<string, KeptWrite> | undefined {
    return this.levels.length > this.sent ? this.levels.at(-1)!.layer : undefined;
  }

  /** The newest kept write of a key, innermost layer first; undefined when none keeps one. */
  private kept(name: string, k: Key): KeptWrite | undefined {
    if (this.levels.length === this.sent) return undefined;
    const id = keyId(name, k);
    for (let i = this.levels.length - 1; i >= this.sent; i--) {
      const w = this.levels[i]!.layer!.get(id);
      if (w) return w;
    }
    return undefined;
  }

  /**
   * Records the value a write to `name`'s `k` replaces, where anything may take it back: in the
   * slot's log (a recorded slot) and the innermost savepoint (one whose writes went to LMDB).
   */
  private recordPrior(name: string, k: Key): void {
    if (this.recording === undefined && this.levels.length === 0) return;
    const raw = this.tables.get(name)!.getBinary(k);
    const prev = raw === undefined ? null : Buffer.from(raw);
    if (this.recording !== undefined) void this.log.put([this.recording, this.seq++], { d: name, k, v: prev });
    this.levels.at(-1)?.records.push({ d: name, k, v: prev });
  }

  /** A kept write to LMDB, recorded as the levels below it (and the slot) require. */
  private apply(w: KeptWrite): void {
    const t = this.tables.get(w.d)!;
    this.recordPrior(w.d, w.k);
    if (w.v === null) t.remove(w.k);
    else t.put(w.k, asBinary(w.v));
  }

  /** Sends every layer's writes to LMDB, oldest layer first; from then on, those savepoints record. */
  private send(): void {
    const all = this.levels;
    while (this.sent < all.length) {
      const level = all[this.sent]!;
      const layer = level.layer!;
      level.layer = undefined;
      level.seq = this.seq;
      // Recorded into this level: the levels above it are set aside meanwhile.
      this.levels = all.slice(0, this.sent + 1);
      for (const w of layer.values()) this.apply(w);
      this.levels = all;
      this.sent++;
    }
  }

  /**
   * Runs `fn` (inside the caller's write transaction) so that, if it throws, every write it made
   * to the watched tables is taken back before the error goes on: what an LMDB nested transaction
   * does, without one (LMDB's cost per nested transaction grows with the enclosing one's dirty
   * pages, which made them most of a backfill's time). Its writes are kept in memory until it
   * returns, so a throw costs nothing to take back and a write reads no value to record; a range
   * read inside it sends them to LMDB first, recording what they replace. Savepoints nest.
   */
  savepoint<T>(fn: () => T): T {
    const level: Level = { layer: new Map(), records: [], seq: this.seq };
    this.levels.push(level);
    let ok = false;
    let r: T;
    try {
      r = fn();
      ok = true;
    } finally {
      this.levels.pop();
      if (this.sent > this.levels.length) this.sent = this.levels.length;
      if (ok) this.merge(level);
      else if (!level.layer) this.takeBack(level);
    }
    return r!;
  }

  /** A savepoint that returned: its writes join the level below (or LMDB, under none). */
  private merge(level: Level): void {
    const below = this.levels.at(-1);
    if (level.layer) {
      const layer = this.topLayer();
      if (layer) for (const [id, w] of level.layer) layer.set(id, w);
      else for (const w of level.layer.values()) this.apply(w);
    } else below?.records.push(...level.records);
  }

  /** A savepoint that threw after its writes went to LMDB: they are put back, their undo records dropped. */
  private takeBack(level: Level): void {
    this.restore(level.records);
    if (this.recording !== undefined) {
      for (let i = level.seq; i < this.seq; i++) void this.log.remove([this.recording, i]);
      this.seq = level.seq;
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
