// The tree store: registers state and address trees and hands out their views. One LMDB
// environment per data dir; see store.ts for why LMDB. Writes commit only inside the trees'
// synchronous transactions, so any synchronous run of reads (building a witness) sees one
// consistent state.
import { mkdirSync } from 'node:fs';
import type { RootDatabase } from 'lmdb';
import { toHex32 } from '../zk/field.js';
import { loadPoseidon } from '../zk/poseidon.js';
import { StateError } from './errors.js';
import { zeroValues } from './merkle.js';
import {
  applyInChunks,
  checkWrite,
  CHUNK_ITEMS,
  rollForward,
  type ChunkedResult,
  type LargeWrite,
} from './large-writes.js';
import { atomically, fieldBuf, openDbs, peekMeta, type Dbs, type TreeMetaRecord } from './store.js';
import {
  AddressTree,
  DEFAULT_CAPACITY,
  DEFAULT_HEIGHT,
  readAccountRecord,
  StateTree,
  type TreeInfo,
  type TreeSpec,
} from './trees.js';

export { StateError, type StateErrorKind } from './errors.js';
export { zeroValues } from './merkle.js';
export * from './trees.js';
export type { LargeWrite, ChunkedResult } from './large-writes.js';

const NEXT_ID = 'next-tree-id';
const MAX_HEIGHT = 40;

export class TreeStore {
  private constructor(
    private readonly dbs: Dbs,
    /** Whether closing the store closes its environment (not when it lives in the ledger's). */
    private readonly ownsEnv: boolean,
  ) {}

  /** Opens (creating if needed) the store in its own environment in `dir`. */
  static async open(dir: string): Promise<TreeStore> {
    await loadPoseidon();
    mkdirSync(dir, { recursive: true });
    return new TreeStore(openDbs(dir), true).recover();
  }

  /** A large write a crash cut short is finished before anything reads the trees. */
  private recover(): this {
    const done = rollForward(this.dbs, this, (fn) => this.transaction(fn));
    this.recovered = done;
    return this;
  }

  /** The interrupted large write finished at open, described (for the log); undefined if none. */
  recovered: string | undefined;

  /** StateSync's writes, one after another (a large one spans many event-loop turns). */
  private writes: Promise<unknown> = Promise.resolve();

  /**
   * Runs `fn` after every write queued before it has finished: StateSync's writes go through
   * here, so a large write's chunks never interleave with another write.
   */
  exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    const run = this.writes.then(fn, fn);
    this.writes = run.catch(() => undefined);
    return run;
  }

  /**
   * Resolves once the writes queued so far have landed. Readers that need one consistent tree
   * (witnesses) wait here: between a large write's chunks the nodes are ahead of the root.
   */
  settled(): Promise<void> {
    return this.writes.then(() => undefined);
  }

  /**
   * A write of any size (StateSync's): small ones in one transaction; above one chunk, checked
   * whole, then applied in chunks with the event loop served between them (large-writes.ts).
   * Call it inside exclusive(). `onChunk` hears of each chunk committed before the last.
   */
  async write(w: LargeWrite, onChunk?: (done: number, total: number) => void): Promise<ChunkedResult> {
    const count = w.op === 'append' ? w.leaves.length : w.op === 'insert' ? w.addresses.length : w.entries.length;
    if (count <= CHUNK_ITEMS[w.op]) {
      if (w.op === 'append') return this.stateTree(w.tree).append(w.leaves, w.slot);
      if (w.op === 'nullify') return this.stateTree(w.tree).nullify(w.entries, w.slot);
      return this.addressTree(w.tree).insert(w.addresses, w.slot);
    }
    const pause = () => new Promise<void>((r) => setImmediate(r));
    await checkWrite(this, w, pause);
    return applyInChunks(this.dbs, this, (fn) => this.transaction(fn), w, pause, onChunk);
  }

  /**
   * The store inside another LMDB environment (the embedded ledger's), its tables named `state-…`;
   * synchronous (it opens inside the ledger's start-up), so Poseidon must be loaded already.
   */
  static attach(root: RootDatabase): TreeStore {
    return new TreeStore(openDbs(root, 'state-'), false).recover();
  }

  /**
   * Runs `fn` in one write transaction of the store's environment (nested when the environment
   * has one open, as the ledger's): the store's own writes inside join it instead of opening more.
   */
  transaction<T>(fn: () => T): T {
    const nested = this.dbs.depth.n > 0 && this.dbs.savepoint;
    return (nested || ((f: () => T) => this.dbs.root.transactionSync(f)))(() => {
      const outer = { cache: this.dbs.metaCache, dirty: this.dbs.metaDirty };
      // Deferred appends as they stand: a failure here takes back the leaves it deferred (and
      // restores runs it hashed in, whose writes it also loses).
      const deferred = this.dbs.deferred && [...this.dbs.deferred].map(([id, d]) => [id, d, d.leaves.length] as const);
      this.dbs.depth.n++;
      this.dbs.metaCache = new Map(outer.cache);
      this.dbs.metaDirty = new Set();
      try {
        const r = fn();
        // Changed metadata goes to the enclosing transaction, and is written once by the outermost:
        // a backfill's run of thousands of transactions writes each tree's once, not once each.
        // (Readers inside take it from the cache; listings read only what never changes.)
        if (outer.dirty) for (const k of this.dbs.metaDirty) outer.dirty.add(k);
        else for (const k of this.dbs.metaDirty) this.dbs.trees.put(k, this.dbs.metaCache.get(k)!);
        if (outer.cache) for (const [k, v] of this.dbs.metaCache) outer.cache.set(k, v);
        return r;
      } catch (e) {
        if (deferred && this.dbs.deferred)
          this.dbs.deferred = new Map(
            deferred.map(([id, d, n]) => {
              d.leaves.length = n;
              return [id, d];
            }),
          );
        throw e;
      } finally {
        this.dbs.depth.n--;
        this.dbs.metaCache = outer.cache;
        this.dbs.metaDirty = outer.dirty;
      }
    });
  }

  /**
   * Nested transactions (a transaction inside the store's) run through `savepoint` instead of LMDB
   * nested transactions: it must take back every write of a nested run that throws (the followed
   * cluster's index does so with its undo log).
   */
  useSavepoints(savepoint: <T>(fn: () => T) => T): void {
    this.dbs.savepoint = savepoint;
  }

  /**
   * Runs `fn` in one transaction with V1 appends deferred: each tree's leaves appended in it are
   * hashed in together when it ends (each level once for all of them, not once per append), or
   * earlier, before anything reads that tree's nodes or root. Meanwhile info() shows the trees'
   * next indices but their roots as they were. For a followed cluster's blocks, whose
   * transactions' roots in between are never served.
   */
  deferringAppends<T>(fn: () => T): T {
    if (this.dbs.deferred) return fn();
    return this.transaction(() => {
      this.dbs.deferred = new Map();
      try {
        const r = fn();
        for (const d of [...this.dbs.deferred.values()]) d.settle();
        return r;
      } finally {
        this.dbs.deferred = undefined;
      }
    });
  }

  registerTree(spec: TreeSpec): TreeInfo {
    const height = spec.height ?? DEFAULT_HEIGHT[spec.kind][spec.version];
    const capacity = spec.rootHistoryCapacity ?? DEFAULT_CAPACITY[spec.kind][spec.version];
    if (!Number.isInteger(height) || height < 1 || height > MAX_HEIGHT) {
      throw new StateError('invalid_tree', `tree height must be 1 to ${MAX_HEIGHT}, got ${height}`);
    }
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 1_000_000) {
      throw new StateError('invalid_tree', `root history capacity must be 1 to 1000000, got ${capacity}`);
    }
    if (spec.version !== 1 && spec.version !== 2) throw new StateError('invalid_tree', `tree version must be 1 or 2`);
    atomically(this.dbs, () => {
      if (this.dbs.trees.get(spec.pubkey))
        throw new StateError('tree_exists', `tree ${spec.pubkey} is already registered`);
      const id = ((this.dbs.meta.get(NEXT_ID) as number | undefined) ?? 1) as number;
      this.dbs.meta.put(NEXT_ID, id + 1);
      const m: TreeMetaRecord = {
        id,
        kind: spec.kind,
        version: spec.version,
        height,
        capacity,
        queue: spec.queue ?? '',
        nextIndex: 0,
        rootSeq: '0',
        root: toHex32(zeroValues(height)[height]!),
        slot: '0',
        ...(spec.ledger ? { ledger: true } : {}),
        ...(spec.outputNext ? { outputNext: spec.outputNext } : {}),
        ...(spec.inputNext ? { inputNext: spec.inputNext } : {}),
        ...(spec.addressNext ? { addressNext: spec.addressNext } : {}),
      };
      this.dbs.trees.put(spec.pubkey, m);
      if (spec.kind === 'address') new AddressTree(this.dbs, spec.pubkey, id, height).initialise(m);
      else new StateTree(this.dbs, spec.pubkey, id, height).initialise(m);
    });
    this.treeIds = undefined;
    return this.info(spec.pubkey);
  }

  /**
   * The state tree and leaf an account hash was appended at (or queued for), across all trees;
   * spent once nullified or queued for nullification; queued while in a V2 output queue.
   */
  locateAccount(hash: bigint): { tree: string; leafIndex: number; spent: boolean; queued: boolean } | undefined {
    const v = this.dbs.accounts.get(fieldBuf(hash));
    if (!v) return undefined;
    const loc = readAccountRecord(v);
    const tree = this.treeById(loc.treeId);
    return tree === undefined ? undefined : { tree, leafIndex: loc.leafIndex, spent: loc.spent, queued: loc.queued };
  }

  private treeIds?: Map<number, string>;
  private queueTrees?: Map<string, string>;

  private treeById(id: number): string | undefined {
    if (!this.treeIds?.has(id)) this.indexTrees();
    return this.treeIds!.get(id);
  }

  private indexTrees(): void {
    this.treeIds = new Map();
    this.queueTrees = new Map();
    for (const { key, value } of this.dbs.trees.getRange()) {
      this.treeIds.set(value.id, key);
      if (value.queue) this.queueTrees.set(value.queue, key);
    }
  }

  /** The tree a queue account belongs to (V1 nullifier/address queue, V2 output queue). */
  treeOfQueue(queue: string): string | undefined {
    if (!this.queueTrees?.has(queue)) this.indexTrees();
    return this.queueTrees!.get(queue);
  }

  has(pubkey: string): boolean {
    return peekMeta(this.dbs, pubkey) !== undefined;
  }

  info(pubkey: string): TreeInfo {
    return this.tree(pubkey).info();
  }

  listTrees(): TreeInfo[] {
    const out: TreeInfo[] = [];
    for (const { key } of this.dbs.trees.getRange()) out.push(this.info(key));
    return out;
  }

  private tree(pubkey: string): StateTree | AddressTree {
    const m = peekMeta(this.dbs, pubkey);
    if (!m) throw new StateError('tree_not_found', `tree ${pubkey} is not registered`);
    return m.kind === 'state'
      ? new StateTree(this.dbs, pubkey, m.id, m.height)
      : new AddressTree(this.dbs, pubkey, m.id, m.height);
  }

  stateTree(pubkey: string): StateTree {
    const t = this.tree(pubkey);
    if (!(t instanceof StateTree))
      throw new StateError('invalid_tree', `tree ${pubkey} is an address tree, not a state tree`);
    return t;
  }

  addressTree(pubkey: string): AddressTree {
    const t = this.tree(pubkey);
    if (!(t instanceof AddressTree))
      throw new StateError('invalid_tree', `tree ${pubkey} is a state tree, not an address tree`);
    return t;
  }

  async close(): Promise<void> {
    if (this.ownsEnv) await this.dbs.root.close();
  }
}
