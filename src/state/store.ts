// The embedded on-disk store of the trees: LMDB (npm `lmdb`, prebuilt binaries, no build step).
// Chosen because it is copy-on-write with atomic, durable transactions: a batch either commits
// whole or not at all, a kill -9 at any point leaves the last committed state, and readers get a
// consistent snapshot without locks. Keys are ordered bytes, which the indexed trees use to find
// the low element of an address with one reverse range read.
import { open, type Database, type RootDatabase } from 'lmdb';

export interface Dbs {
  root: RootDatabase;
  /** Write transactions of the store open on this thread (see atomically). */
  depth: { n: number };
  /**
   * Tree metadata read or written during the store's open transaction (TreeStore.transaction):
   * one JSON read per tree per transaction instead of one per call; dropped when it ends.
   */
  metaCache: Map<string, TreeMetaRecord> | undefined;
  /** Trees whose metadata changed in that transaction: written once, when it ends. */
  metaDirty: Set<string> | undefined;
  /**
   * V1 appends not hashed into their trees yet, by tree id (TreeStore.deferringAppends): each
   * tree's are hashed together, level by level, before anything reads its nodes or when the scope
   * ends. Undefined outside that scope.
   */
  deferred: Map<number, DeferredAppend> | undefined;
  /**
   * Runs a nested write atomically inside the open transaction without an LMDB nested transaction
   * (TreeStore.useSavepoints); undefined: nested writes are LMDB nested transactions.
   */
  savepoint: (<T>(fn: () => T) => T) | undefined;
  /** Where the next tree id is kept: the root itself in the store's own environment. */
  meta: Database;
  /** tree pubkey (base58) → TreeMeta (JSON) */
  trees: Database<TreeMetaRecord, string>;
  /** [treeId u32][level u8][index u64] → 32-byte node; nodes equal to the empty subtree are absent. */
  nodes: Database<Buffer, Buffer>;
  /** [treeId u32][slot u32] → 32-byte root: the root history ring buffer. */
  roots: Database<Buffer, Buffer>;
  /** [treeId u32][leaf hash 32] → leaf index (u64 BE): state-tree leaf lookup by hash. */
  leaves: Database<Buffer, Buffer>;
  /** [treeId u32][index u64] → value 32 ‖ nextIndex u64 ‖ nextValue 32: indexed-tree elements. */
  elements: Database<Buffer, Buffer>;
  /** [treeId u32][value 32] → index u64: indexed-tree elements ordered by value. */
  values: Database<Buffer, Buffer>;
  /**
   * [leaf hash 32] → treeId u32 ‖ leaf index u64 ‖ spent u8 ‖ queued u8: where an account hash
   * lives across trees; queued while it waits in a V2 output queue (not in the tree yet).
   */
  accounts: Database<Buffer, Buffer>;
  /** [treeId u32][queue kind u8][position u64] → entry: the queues in front of a tree (queues.ts). */
  queues: Database<Buffer, Buffer>;
  /** [treeId u32][queue kind u8][value 32] → position u64: queued values by value. */
  queued: Database<Buffer, Buffer>;
}

/** A V1 tree's leaves appended at `first` on, whose nodes and root are not written yet. */
export interface DeferredAppend {
  first: number;
  leaves: bigint[];
  /** Hashes them in and commits the root (removing this entry first). */
  settle(): void;
}

/** Numbers are decimal strings where they may exceed 2^53; roots are 0x-hex. */
export interface TreeMetaRecord {
  id: number;
  kind: 'state' | 'address';
  version: 1 | 2;
  height: number;
  capacity: number;
  queue: string;
  nextIndex: number;
  rootSeq: string;
  root: string;
  slot: string;
  /** Fed by the embedded ledger's ingest: external writes (StateSync) are refused. */
  ledger?: boolean;
  /** V2 state: the output queue's next index (= the leaf index the next queued output gets). */
  outputNext?: number;
  /** Nullifier queue (V1) / input queue (V2) positions used; for V2 the on-chain next index. */
  inputNext?: number;
  /** Address queue positions used; for V2 the on-chain next index (amt2 starts at 1). */
  addressNext?: number;
}

/**
 * The tables in their own environment at `path` (the prover role's store), or inside another
 * environment (the embedded ledger's, so ingest writes trees in the ledger's transaction), with
 * their names prefixed there.
 */
export function openDbs(where: string | RootDatabase, prefix = ''): Dbs {
  const root = typeof where === 'string' ? open({ path: where, maxDbs: 16, compression: false }) : where;
  const bin = { keyEncoding: 'binary', encoding: 'binary' } as const;
  const name = (n: string) => prefix + n;
  return {
    root,
    depth: { n: 0 },
    metaCache: undefined,
    metaDirty: undefined,
    deferred: undefined,
    savepoint: undefined,
    meta: typeof where === 'string' ? root : root.openDB({ name: name('meta'), encoding: 'json' }),
    trees: root.openDB<TreeMetaRecord, string>({ name: name('trees'), encoding: 'json' }),
    nodes: root.openDB<Buffer, Buffer>({ name: name('nodes'), ...bin }),
    roots: root.openDB<Buffer, Buffer>({ name: name('roots'), ...bin }),
    leaves: root.openDB<Buffer, Buffer>({ name: name('leaves'), ...bin }),
    elements: root.openDB<Buffer, Buffer>({ name: name('elements'), ...bin }),
    values: root.openDB<Buffer, Buffer>({ name: name('values'), ...bin }),
    accounts: root.openDB<Buffer, Buffer>({ name: name('accounts'), ...bin }),
    queues: root.openDB<Buffer, Buffer>({ name: name('queues'), ...bin }),
    queued: root.openDB<Buffer, Buffer>({ name: name('queued'), ...bin }),
  };
}

/**
 * Runs `fn` atomically: in a write transaction of its own, or as part of the store's transaction
 * already open (TreeStore.transaction), whose commit or rollback then covers it: a nested LMDB
 * transaction per call would cost about 20 µs each on the ingest path for nothing.
 */
export function atomically<T>(dbs: Dbs, fn: () => T): T {
  if (dbs.depth.n > 0) return fn();
  return dbs.root.transactionSync(fn);
}

/** A tree's metadata (a copy: callers change it and write it back with writeMeta). */
export function readMeta(dbs: Dbs, pubkey: string): TreeMetaRecord | undefined {
  const m = peekMeta(dbs, pubkey);
  return m && { ...m };
}

/** A tree's metadata for reading only: possibly the cached object itself, never to be changed. */
export function peekMeta(dbs: Dbs, pubkey: string): Readonly<TreeMetaRecord> | undefined {
  const cached = dbs.metaCache?.get(pubkey);
  if (cached) return cached;
  const m = dbs.trees.get(pubkey);
  if (m && dbs.metaCache) dbs.metaCache.set(pubkey, m);
  return m;
}

export function writeMeta(dbs: Dbs, pubkey: string, m: TreeMetaRecord): void {
  if (dbs.metaCache && dbs.metaDirty) {
    dbs.metaCache.set(pubkey, { ...m });
    dbs.metaDirty.add(pubkey);
  } else dbs.trees.put(pubkey, m);
}

// Key builders. Indices go up to 2^40, so they are written as two 32-bit halves.
export function nodeKey(tree: number, level: number, index: number): Buffer {
  const k = Buffer.allocUnsafe(13);
  k.writeUInt32BE(tree, 0);
  k.writeUInt8(level, 4);
  k.writeUInt32BE(Math.floor(index / 0x100000000), 5);
  k.writeUInt32BE(index >>> 0, 9);
  return k;
}

export function u64Buf(v: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32BE(Math.floor(v / 0x100000000), 0);
  b.writeUInt32BE(v >>> 0, 4);
  return b;
}

export const readU64 = (b: Buffer, offset = 0): number =>
  b.readUInt32BE(offset) * 0x100000000 + b.readUInt32BE(offset + 4);

export function prefixed(tree: number, ...parts: (Buffer | Uint8Array)[]): Buffer {
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(tree, 0);
  return Buffer.concat([head, ...parts]);
}

export function slotKey(tree: number, slot: number): Buffer {
  const k = Buffer.allocUnsafe(8);
  k.writeUInt32BE(tree, 0);
  k.writeUInt32BE(slot, 4);
  return k;
}

export function fieldBuf(v: bigint): Buffer {
  return Buffer.from(v.toString(16).padStart(64, '0'), 'hex');
}

export const bufField = (b: Buffer | Uint8Array, offset = 0): bigint =>
  BigInt('0x' + Buffer.from(b.buffer, b.byteOffset + offset, 32).toString('hex'));
