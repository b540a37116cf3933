// State trees (concurrent Merkle trees) and address trees (indexed Merkle trees), persisted in the
// store. Every mutating call is one LMDB transaction: it commits whole or not at all.
import { ADDRESS_BOUND, HIGHEST_ADDRESS_PLUS_ONE, toHex32 } from '../zk/field.js';
import { poseidon } from '../zk/poseidon.js';
import { StateError } from './errors.js';
import { SparseMerkleTree } from './merkle.js';
import {
  atomically,
  bufField,
  fieldBuf,
  prefixed,
  peekMeta,
  readMeta,
  readU64,
  slotKey,
  u64Buf,
  writeMeta,
  type Dbs,
  type DeferredAppend,
  type TreeMetaRecord,
} from './store.js';

export type TreeKind = 'state' | 'address';
export type TreeVersion = 1 | 2;

export interface TreeSpec {
  /** The tree account's pubkey (base58). */
  pubkey: string;
  kind: TreeKind;
  version: TreeVersion;
  /** Defaults: state 26 (V1) / 32 (V2); address 26 (V1) / 40 (V2). */
  height?: number;
  /** Root history capacity. Defaults: 2400 (V1), 60 (V2 state), 120 (V2 address). */
  rootHistoryCapacity?: number;
  /** Queue account: nullifier queue (V1 state), output queue (V2 state), address queue (V1 address). */
  queue?: string;
  /** Fed by the embedded ledger's ingest: StateSync refuses to write it. */
  ledger?: boolean;
  /** Queue positions the tree starts with (a V2 address tree's queue starts at 1). */
  outputNext?: number;
  inputNext?: number;
  addressNext?: number;
}

export interface TreeInfo {
  pubkey: string;
  /** Fed by the embedded ledger's ingest (StateSync may not write it). */
  ledger: boolean;
  kind: TreeKind;
  version: TreeVersion;
  height: number;
  rootHistoryCapacity: number;
  queue: string;
  /** Index the next appended leaf gets. */
  nextIndex: number;
  /** Sequence number of the current root; the root index clients send is rootSeq % capacity. */
  rootSeq: bigint;
  root: bigint;
  /** Solana slot of the last change (0 before any). */
  slot: bigint;
  /** V2 state: next output-queue index; nullifier/input queue and address queue positions used. */
  outputNext: number;
  inputNext: number;
  addressNext: number;
}

export const DEFAULT_HEIGHT: Record<TreeKind, Record<TreeVersion, number>> = {
  state: { 1: 26, 2: 32 },
  address: { 1: 26, 2: 40 },
};
export const DEFAULT_CAPACITY: Record<TreeKind, Record<TreeVersion, number>> = {
  state: { 1: 2400, 2: 60 },
  address: { 1: 2400, 2: 120 },
};

/** Where a root was read from: what a proof against it must quote. */
/**
 * One chunk of a large write (see large-writes.ts): its nodes and elements are written, but the
 * root history moves only with the last chunk, by the steps of the whole write, so the result is
 * the same as one call's.
 */
export interface WritePart {
  final: boolean;
  /** V1 root sequence steps of the chunks before (V2 writes count one step in all). */
  steps: bigint;
}

export interface RootRef {
  root: bigint;
  rootSeq: bigint;
  /** rootSeq % the tree's own root history capacity. */
  rootIndex: number;
}

export interface LeafProof extends RootRef {
  leafIndex: number;
  leaf: bigint;
  pathElements: bigint[];
}

export interface IndexedElement {
  index: number;
  value: bigint;
  nextIndex: number;
  nextValue: bigint;
}

export interface NonInclusionProof extends RootRef {
  address: bigint;
  lowElement: IndexedElement;
  pathElements: bigint[];
}

/**
 * Where an account hash was appended, whether it has been spent since (nullified, or waiting in a
 * nullifier queue), and whether it still waits in a V2 output queue rather than in the tree.
 */
export interface AccountLocation {
  treeId: number;
  leafIndex: number;
  spent: boolean;
  queued: boolean;
}

function accountRecord(treeId: number, leafIndex: number, spent: boolean, queued = false): Buffer {
  const b = Buffer.allocUnsafe(14);
  b.writeUInt32BE(treeId, 0);
  u64Buf(leafIndex).copy(b, 4);
  b.writeUInt8(spent ? 1 : 0, 12);
  b.writeUInt8(queued ? 1 : 0, 13);
  return b;
}

export function readAccountRecord(b: Buffer): AccountLocation {
  return {
    treeId: b.readUInt32BE(0),
    leafIndex: readU64(b, 4),
    spent: b.readUInt8(12) === 1,
    queued: b.length > 13 && b.readUInt8(13) === 1,
  };
}

/** The queues in front of a tree, as Light's programs keep them until a forester moves them in. */
export const QUEUE = { output: 0x6f, nullifier: 0x6e, address: 0x61 } as const;
export type QueueKind = keyof typeof QUEUE;

/** A V2 leaf's nullifier: Poseidon(account hash, leaf index, transaction hash). */
export const v2Nullifier = (hash: bigint, leafIndex: number, txHash: bigint): bigint =>
  poseidon([hash, BigInt(leafIndex), txHash]);

/** One spent account waiting to be nullified in its tree. */
export interface NullifierEntry {
  position: number;
  hash: bigint;
  leafIndex: number;
  /** V2: Poseidon(hash, leafIndex, txHash), what the tree's leaf becomes. */
  nullifier?: bigint;
  txHash?: bigint;
}

const queueKey = (tree: number, kind: QueueKind, position: number) =>
  prefixed(tree, Buffer.of(QUEUE[kind]), u64Buf(position));
const queuedKey = (tree: number, kind: QueueKind, value: bigint) =>
  prefixed(tree, Buffer.of(QUEUE[kind]), fieldBuf(value));

function toInfo(pubkey: string, m: TreeMetaRecord): TreeInfo {
  return {
    pubkey,
    kind: m.kind,
    version: m.version,
    height: m.height,
    rootHistoryCapacity: m.capacity,
    queue: m.queue,
    nextIndex: m.nextIndex,
    rootSeq: BigInt(m.rootSeq),
    root: BigInt(m.root),
    slot: BigInt(m.slot),
    ledger: m.ledger === true,
    outputNext: m.outputNext ?? 0,
    inputNext: m.inputNext ?? 0,
    addressNext: m.addressNext ?? 0,
  };
}

abstract class Tree {
  protected readonly merkle: SparseMerkleTree;

  constructor(
    protected readonly dbs: Dbs,
    readonly pubkey: string,
    protected readonly id: number,
    height: number,
  ) {
    this.merkle = new SparseMerkleTree(dbs, id, height);
  }

  /** The tree's metadata, with any deferred appends hashed in first (its root current). */
  protected meta(): TreeMetaRecord {
    this.dbs.deferred?.get(this.id)?.settle();
    return this.metaAsIs();
  }

  /**
   * The metadata without hashing deferred appends: next indices and queues are current, the root
   * and its sequence number may lag (for writes that change neither: append, spend).
   */
  protected metaAsIs(): TreeMetaRecord {
    const m = readMeta(this.dbs, this.pubkey);
    if (!m) throw new StateError('tree_not_found', `tree ${this.pubkey} is not registered`);
    return m;
  }

  info(): TreeInfo {
    const m = peekMeta(this.dbs, this.pubkey);
    if (!m) throw new StateError('tree_not_found', `tree ${this.pubkey} is not registered`);
    return toInfo(this.pubkey, m);
  }

  /** A node of the Merkle tree: level 0 = leaves. */
  node(level: number, index: number): bigint {
    return this.merkle.node(level, index);
  }

  /** The node if it was ever written (not the empty subtree of its level). */
  storedNode(level: number, index: number): bigint | undefined {
    return this.merkle.stored(level, index);
  }

  /** The filled subtrees for the next append (see SparseMerkleTree.subtrees). */
  subtrees(): bigint[] {
    return this.merkle.subtrees(this.meta().nextIndex);
  }

  /** The queued value at a position of one of the tree's queues. */
  protected queueEntry(kind: QueueKind, position: number): Buffer | undefined {
    return this.dbs.queues.get(queueKey(this.id, kind, position));
  }

  /** Queues an entry; address queues also index it by value (has() looks addresses up there). */
  protected putQueueEntry(kind: QueueKind, position: number, value: bigint, entry: Buffer): void {
    this.dbs.queues.put(queueKey(this.id, kind, position), entry);
    if (kind === 'address') this.dbs.queued.put(queuedKey(this.id, kind, value), u64Buf(position));
  }

  /** Takes an entry off a queue (a forester moved it into the tree). */
  protected removeQueueEntry(kind: QueueKind, position: number, value?: bigint): void {
    this.dbs.queues.remove(queueKey(this.id, kind, position));
    if (kind === 'address' && value !== undefined) this.dbs.queued.remove(queuedKey(this.id, kind, value));
  }

  /** The first `count` entries of a queue; fails unless there are that many, at consecutive positions. */
  protected queueHead(kind: QueueKind, count: number): { position: number; entry: Buffer }[] {
    const head = [...this.queueEntries(kind, 0, count)];
    const first = head[0]?.position ?? 0;
    if (head.length !== count || head.some((e, i) => e.position !== first + i))
      throw new StateError(
        'invalid_argument',
        `the ${kind} queue of ${this.pubkey} holds ${head.length} consecutive entries from position ${first}, not ${count}`,
      );
    return head;
  }

  /** Where an address waits in the tree's address queue. */
  queuePosition(kind: 'address', value: bigint): number | undefined {
    const v = this.dbs.queued.get(queuedKey(this.id, kind, value));
    return v ? readU64(v) : undefined;
  }

  /** How many entries wait in one of the tree's queues. */
  queueSize(kind: QueueKind): number {
    return this.dbs.queues.getCount({
      start: queueKey(this.id, kind, 0),
      end: queueKey(this.id, kind, Number.MAX_SAFE_INTEGER),
    });
  }

  /** Entries of a queue in position order, from `start`. */
  *queueEntries(kind: QueueKind, start = 0, limit = Infinity): Generator<{ position: number; entry: Buffer }> {
    let n = 0;
    for (const { key, value } of this.dbs.queues.getRange({
      start: queueKey(this.id, kind, start),
      end: queueKey(this.id, kind, Number.MAX_SAFE_INTEGER),
    })) {
      if (n++ >= limit) return;
      yield { position: readU64(key, 5), entry: value };
    }
  }

  /** For settleRoot: commit a root, or write the metadata alone (a chunk that is not the last). */
  protected readonly rootSink = {
    commit: (m: TreeMetaRecord, root: bigint, steps: bigint, slot: bigint | undefined) =>
      this.commitRoot(m, root, steps, slot),
    persist: (m: TreeMetaRecord) => writeMeta(this.dbs, this.pubkey, m),
  };

  /** The tree's current root (deferred appends hashed in first), or the one `m` records. */
  rootRef(m?: TreeMetaRecord): RootRef {
    m ??= this.meta();
    const rootSeq = BigInt(m.rootSeq);
    return { root: BigInt(m.root), rootSeq, rootIndex: Number(rootSeq % BigInt(m.capacity)) };
  }

  /** The ring buffer, oldest to newest: [rootSeq, root] for each slot that holds a committed root. */
  rootHistory(): { rootSeq: bigint; root: bigint }[] {
    const m = this.meta();
    const seq = BigInt(m.rootSeq);
    const cap = BigInt(m.capacity);
    const out: { rootSeq: bigint; root: bigint }[] = [];
    for (let s = seq - cap + 1n; s <= seq; s++) {
      if (s < 0n) continue;
      const v = this.dbs.roots.get(slotKey(this.id, Number(s % cap)));
      if (v && v.length === 40 && readU64(v, 32) === Number(s)) out.push({ rootSeq: s, root: bufField(v) });
    }
    return out;
  }

  /**
   * Records a new root: `steps` sequence numbers are consumed (on chain, one per leaf change for
   * V1 trees, one per batch for V2). Only the batch's final root is materialised; slots of roots
   * inside the batch are cleared rather than left holding roots of an older cycle.
   */
  protected commitRoot(m: TreeMetaRecord, root: bigint, steps: bigint, slot: bigint | undefined): void {
    const cap = BigInt(m.capacity);
    const from = BigInt(m.rootSeq);
    const to = from + steps;
    // Below `cap` a slot has never been written (no earlier sequence number falls on it): a tree's
    // first lap round its ring has nothing to clear.
    for (let s = to - 1n; s > from && s > to - cap && s >= cap; s--)
      this.dbs.roots.remove(slotKey(this.id, Number(s % cap)));
    const entry = Buffer.concat([fieldBuf(root), u64Buf(Number(to))]);
    this.dbs.roots.put(slotKey(this.id, Number(to % cap)), entry);
    m.rootSeq = to.toString();
    m.root = toHex32(root);
    if (slot !== undefined && slot > BigInt(m.slot)) m.slot = slot.toString();
    writeMeta(this.dbs, this.pubkey, m);
  }
}

/** A write's new root: committed now, or (a chunk of a larger write) once its last chunk lands. */
function settleRoot(
  tree: {
    commit(m: TreeMetaRecord, root: bigint, steps: bigint, slot: bigint | undefined): void;
    persist(m: TreeMetaRecord): void;
  },
  m: TreeMetaRecord,
  root: bigint,
  steps: bigint,
  slot: bigint | undefined,
  part: WritePart | undefined,
): void {
  if (!part) return tree.commit(m, root, steps, slot);
  if (m.version === 1) part.steps += steps;
  if (part.final) tree.commit(m, root, m.version === 1 ? part.steps : 1n, slot);
  else tree.persist(m);
}

export class StateTree extends Tree {
  /** Records the empty tree's root at sequence 0 (inside the registering transaction). */
  initialise(m: TreeMetaRecord): void {
    this.commitRoot(m, this.merkle.root(), 0n, undefined);
  }

  /** Appends leaves at the next indices; one atomic batch. Returns the first index used. */
  append(leaves: readonly bigint[], slot?: bigint, part?: WritePart): { firstIndex: number } & RootRef {
    return atomically(this.dbs, () => {
      const m = this.metaAsIs();
      const first = m.nextIndex;
      if (first + leaves.length > this.merkle.capacity) {
        throw new StateError(
          'tree_full',
          `state tree ${this.pubkey} is full: ${m.nextIndex} of ${this.merkle.capacity} leaves used, ${leaves.length} more requested`,
        );
      }
      if (leaves.length === 0) return { firstIndex: first, ...this.rootRef(m) };
      const updates = new Map<number, bigint>();
      leaves.forEach((leaf, i) => {
        updates.set(first + i, leaf);
        this.dbs.leaves.put(prefixed(this.id, fieldBuf(leaf)), u64Buf(first + i));
        this.dbs.accounts.put(fieldBuf(leaf), accountRecord(this.id, first + i, false));
      });
      m.nextIndex = first + leaves.length;
      if (this.dbs.deferred && !part && m.version === 1) {
        // The root is left as it was until the deferred leaves are hashed (see Dbs.deferred).
        if (slot !== undefined && slot > BigInt(m.slot)) m.slot = slot.toString();
        writeMeta(this.dbs, this.pubkey, m);
        this.defer(first, leaves);
        return { firstIndex: first, ...this.rootRef(m) };
      }
      const root = this.merkle.update(updates);
      settleRoot(this.rootSink, m, root, m.version === 1 ? BigInt(leaves.length) : 1n, slot, part);
      return { firstIndex: first, ...this.rootRef(m) };
    });
  }

  /** Adds appended leaves to the tree's deferred run (one run per tree: V1 appends are consecutive). */
  private defer(first: number, leaves: readonly bigint[]): void {
    const deferred = this.dbs.deferred!;
    const d = deferred.get(this.id);
    if (d && d.first + d.leaves.length === first) {
      d.leaves.push(...leaves);
      return;
    }
    d?.settle();
    const run: DeferredAppend = {
      first,
      leaves: [...leaves],
      settle: () => {
        if (this.dbs.deferred?.get(this.id) === run) this.dbs.deferred.delete(this.id);
        if (run.leaves.length === 0) return;
        const root = this.merkle.update(new Map(run.leaves.map((l, i) => [run.first + i, l])));
        // V1: one sequence number per leaf, as the program's append consumed them.
        this.commitRoot(this.metaAsIs(), root, BigInt(run.leaves.length), undefined);
      },
    };
    deferred.set(this.id, run);
  }

  /** What append() would refuse, checked without writing (a large write is checked whole first). */
  checkAppend(count: number): void {
    const m = this.meta();
    if (m.nextIndex + count > this.merkle.capacity)
      throw new StateError(
        'tree_full',
        `state tree ${this.pubkey} is full: ${m.nextIndex} of ${this.merkle.capacity} leaves used, ${count} more requested`,
      );
  }

  /** What nullify() would refuse for these entries taken together (slices share `seen`), without writing. */
  checkNullify(entries: readonly { leafIndex: number; txHash?: bigint }[], seen = new Set<number>()): void {
    const m = this.meta();
    for (const { leafIndex, txHash } of entries) {
      if (!Number.isInteger(leafIndex) || leafIndex < 0 || leafIndex >= m.nextIndex)
        throw new StateError(
          'leaf_not_found',
          `leaf index ${leafIndex} is not in state tree ${this.pubkey} (next index ${m.nextIndex})`,
        );
      if ((m.version === 1 && seen.has(leafIndex)) || this.merkle.leaf(leafIndex) === 0n)
        throw new StateError('leaf_not_found', `leaf ${leafIndex} of state tree ${this.pubkey} is already nullified`);
      if (m.version === 2 && txHash === undefined)
        throw new StateError('invalid_argument', 'nullifying a V2 leaf needs the transaction hash');
      seen.add(leafIndex);
    }
  }

  /**
   * Nullifies leaves: V1 overwrites them with zero; V2 replaces each with its nullifier
   * Poseidon3(leaf, leafIndex, txHash). The leaves are no longer found by hash.
   */
  nullify(entries: readonly { leafIndex: number; txHash?: bigint }[], slot?: bigint, part?: WritePart): RootRef {
    return atomically(this.dbs, () => {
      const m = this.meta();
      const updates = new Map<number, bigint>();
      for (const { leafIndex, txHash } of entries) {
        if (!Number.isInteger(leafIndex) || leafIndex < 0 || leafIndex >= m.nextIndex) {
          throw new StateError(
            'leaf_not_found',
            `leaf index ${leafIndex} is not in state tree ${this.pubkey} (next index ${m.nextIndex})`,
          );
        }
        const leaf = updates.get(leafIndex) ?? this.merkle.leaf(leafIndex);
        if (leaf === 0n)
          throw new StateError('leaf_not_found', `leaf ${leafIndex} of state tree ${this.pubkey} is already nullified`);
        this.dbs.leaves.remove(prefixed(this.id, fieldBuf(leaf)));
        this.dbs.accounts.put(fieldBuf(leaf), accountRecord(this.id, leafIndex, true));
        if (m.version === 1) updates.set(leafIndex, 0n);
        else {
          if (txHash === undefined)
            throw new StateError('invalid_argument', 'nullifying a V2 leaf needs the transaction hash');
          updates.set(leafIndex, poseidon([leaf, BigInt(leafIndex), txHash]));
        }
      }
      if (updates.size === 0) return this.rootRef(m);
      const root = this.merkle.update(updates);
      settleRoot(this.rootSink, m, root, m.version === 1 ? BigInt(updates.size) : 1n, slot, part);
      return this.rootRef(m);
    });
  }

  /**
   * V2: outputs enter the output queue at `firstIndex` (the queue's next index, which is also the
   * leaf index they get in the tree): provable by index, not in the tree until a batch append.
   */
  enqueue(firstIndex: number, leaves: readonly bigint[], slot?: bigint): void {
    atomically(this.dbs, () => {
      const m = this.meta();
      if (m.version !== 2) throw new StateError('invalid_tree', `state tree ${this.pubkey} has no output queue (V1)`);
      const next = m.outputNext ?? 0;
      if (firstIndex !== next)
        throw new StateError(
          'invalid_argument',
          `output queue of ${this.pubkey}: outputs start at ${firstIndex}, the queue's next index is ${next}`,
        );
      if (firstIndex + leaves.length > this.merkle.capacity)
        throw new StateError('tree_full', `state tree ${this.pubkey} is full`);
      leaves.forEach((leaf, i) => {
        const index = firstIndex + i;
        this.putQueueEntry('output', index, leaf, fieldBuf(leaf));
        this.dbs.accounts.put(fieldBuf(leaf), accountRecord(this.id, index, false, true));
      });
      m.outputNext = firstIndex + leaves.length;
      if (slot !== undefined && slot > BigInt(m.slot)) m.slot = slot.toString();
      writeMeta(this.dbs, this.pubkey, m);
    });
  }

  /**
   * V2 batch append (a forester's, as the program applied it): the next `count` output-queue
   * entries become leaves at the tree's next index, except where a batch update already wrote the
   * leaf's nullifier there. Returns the queued hashes and the new root.
   */
  batchAppend(count: number, slot?: bigint): { startIndex: number; leaves: bigint[] } & RootRef {
    return atomically(this.dbs, () => {
      const m = this.meta();
      if (m.version !== 2) throw new StateError('invalid_tree', `state tree ${this.pubkey} has no output queue (V1)`);
      const start = m.nextIndex;
      const head = this.queueHead('output', count);
      if (head[0]!.position !== start)
        throw new StateError(
          'invalid_argument',
          `output queue of ${this.pubkey} starts at ${head[0]!.position}, the tree's next index is ${start}`,
        );
      const updates = new Map<number, bigint>();
      const leaves: bigint[] = [];
      for (const { position, entry } of head) {
        const hash = bufField(entry);
        leaves.push(hash);
        const key = fieldBuf(hash);
        const rec = this.dbs.accounts.get(key);
        const loc = rec ? readAccountRecord(rec) : undefined;
        if (this.merkle.leaf(position) === 0n) {
          updates.set(position, hash);
          this.dbs.leaves.put(prefixed(this.id, key), u64Buf(position));
        }
        this.dbs.accounts.put(key, accountRecord(this.id, position, loc?.spent ?? false, false));
        this.removeQueueEntry('output', position);
      }
      const root = updates.size > 0 ? this.merkle.update(updates) : this.merkle.root();
      m.nextIndex = start + count;
      this.commitRoot(m, root, 1n, slot);
      return { startIndex: start, leaves, ...this.rootRef(m) };
    });
  }

  /**
   * V2 batch update (nullify): the first `count` input-queue entries' leaves become their
   * nullifiers, whether the account was appended already or still waits in the output queue.
   */
  batchNullify(count: number, slot?: bigint): { entries: NullifierEntry[] } & RootRef {
    return atomically(this.dbs, () => {
      const m = this.meta();
      if (m.version !== 2) throw new StateError('invalid_tree', `state tree ${this.pubkey} is not a V2 tree`);
      const entries = [...this.nullifierQueue(0, count)];
      this.queueHead('nullifier', count);
      const updates = new Map<number, bigint>();
      for (const e of entries) {
        const current = updates.get(e.leafIndex) ?? this.merkle.leaf(e.leafIndex);
        if (current !== 0n && current !== e.hash)
          throw new StateError(
            'leaf_not_found',
            `leaf ${e.leafIndex} of ${this.pubkey} holds neither account ${toHex32(e.hash)} nor zero`,
          );
        updates.set(e.leafIndex, e.nullifier!);
        this.dbs.leaves.remove(prefixed(this.id, fieldBuf(e.hash)));
        this.removeQueueEntry('nullifier', e.position);
      }
      const root = this.merkle.update(updates);
      this.commitRoot(m, root, 1n, slot);
      return { entries, ...this.rootRef(m) };
    });
  }

  /**
   * V1 nullification (a forester's): the queued spends of these leaves leave the nullifier queue
   * and the leaves become zero.
   */
  nullifyQueued(leafIndices: readonly number[], slot?: bigint): RootRef {
    return atomically(this.dbs, () => {
      const wanted = new Set(leafIndices);
      for (const e of this.nullifierQueue()) {
        if (!wanted.delete(e.leafIndex)) continue;
        this.removeQueueEntry('nullifier', e.position);
        if (wanted.size === 0) break;
      }
      if (wanted.size > 0)
        throw new StateError(
          'leaf_not_found',
          `leaves ${[...wanted].join(', ')} of ${this.pubkey} are not in its nullifier queue`,
        );
      return this.nullify(
        leafIndices.map((leafIndex) => ({ leafIndex })),
        slot,
      );
    });
  }

  /** The account hash queued at an output-queue index, and whether it has been spent since. */
  queuedOutput(index: number): { hash: bigint; spent: boolean } | undefined {
    const e = this.queueEntry('output', index);
    if (!e) return undefined;
    const rec = this.dbs.accounts.get(e.subarray(0, 32));
    return { hash: bufField(e), spent: rec ? readAccountRecord(rec).spent : false };
  }

  /**
   * Spends accounts as Light's programs do for user transactions: each goes into the tree's
   * nullifier queue (V1) or input queue (V2, with the transaction hash its nullifier needs). The
   * tree itself is unchanged until a forester nullifies the batch. Returns the queue positions.
   */
  spend(entries: readonly { hash: bigint; leafIndex: number; txHash?: bigint }[]): number[] {
    return atomically(this.dbs, () => {
      const m = this.metaAsIs();
      let position = m.inputNext ?? 0;
      const out: number[] = [];
      for (const { hash, leafIndex, txHash } of entries) {
        const key = fieldBuf(hash);
        const rec = this.dbs.accounts.get(key);
        const loc = rec ? readAccountRecord(rec) : undefined;
        if (!loc || loc.treeId !== this.id || loc.leafIndex !== leafIndex)
          throw new StateError('leaf_not_found', `account ${toHex32(hash)} is not leaf ${leafIndex} of ${this.pubkey}`);
        if (loc.spent) throw new StateError('leaf_not_found', `account ${toHex32(hash)} is already spent`);
        const entry = Buffer.alloc(m.version === 2 ? 72 : 40);
        key.copy(entry, 0);
        u64Buf(leafIndex).copy(entry, 32);
        if (m.version === 2) fieldBuf(txHash ?? 0n).copy(entry, 40);
        this.putQueueEntry('nullifier', position, hash, entry);
        this.dbs.accounts.put(key, accountRecord(this.id, leafIndex, true, loc.queued));
        out.push(position++);
      }
      m.inputNext = position;
      writeMeta(this.dbs, this.pubkey, m);
      return out;
    });
  }

  /**
   * The spent accounts waiting in the nullifier / input queue, in order; V2 entries with their
   * nullifier, computed here (ingest keeps the transaction hash, not the hash it would cost).
   */
  *nullifierQueue(start = 0, limit = Infinity): Generator<NullifierEntry> {
    for (const { position, entry } of this.queueEntries('nullifier', start, limit)) {
      const hash = bufField(entry, 0);
      const leafIndex = readU64(entry, 32);
      if (entry.length < 72) {
        yield { position, hash, leafIndex };
        continue;
      }
      const txHash = bufField(entry, 40);
      yield { position, hash, leafIndex, nullifier: v2Nullifier(hash, leafIndex, txHash), txHash };
    }
  }

  /** Index of a live leaf by its hash. */
  findLeaf(hash: bigint): number | undefined {
    const v = this.dbs.leaves.get(prefixed(this.id, fieldBuf(hash)));
    return v ? readU64(v) : undefined;
  }

  leaf(index: number): bigint {
    return this.merkle.leaf(index);
  }

  /** Merkle proof of the leaf at `index` against the current root (one consistent read). */
  proofByIndex(index: number): LeafProof {
    const m = this.meta();
    if (!Number.isInteger(index) || index < 0 || index >= m.nextIndex) {
      throw new StateError(
        'leaf_not_found',
        `leaf index ${index} is not in state tree ${this.pubkey} (next index ${m.nextIndex})`,
      );
    }
    return {
      leafIndex: index,
      leaf: this.merkle.leaf(index),
      pathElements: this.merkle.siblings(index),
      ...this.rootRef(m),
    };
  }

  /** The path at any index below the capacity (a queued V2 leaf's future position reads as zero). */
  pathAt(index: number): LeafProof {
    if (!Number.isInteger(index) || index < 0 || index >= this.merkle.capacity)
      throw new StateError('leaf_not_found', `leaf index ${index} is outside state tree ${this.pubkey}`);
    return {
      leafIndex: index,
      leaf: this.merkle.leaf(index),
      pathElements: this.merkle.siblings(index),
      ...this.rootRef(),
    };
  }

  proofByHash(hash: bigint): LeafProof {
    const index = this.findLeaf(hash);
    if (index === undefined)
      throw new StateError('leaf_not_found', `leaf ${toHex32(hash)} is not in state tree ${this.pubkey}`);
    return this.proofByIndex(index);
  }
}

const ELEMENT_SIZE = 72;

function encodeElement(e: IndexedElement): Buffer {
  return Buffer.concat([fieldBuf(e.value), u64Buf(e.nextIndex), fieldBuf(e.nextValue)]);
}

export class AddressTree extends Tree {
  element(index: number): IndexedElement | undefined {
    const v = this.dbs.elements.get(prefixed(this.id, u64Buf(index)));
    if (!v || v.length !== ELEMENT_SIZE) return undefined;
    return { index, value: bufField(v, 0), nextIndex: readU64(v, 32), nextValue: bufField(v, 40) };
  }

  /** Leaf hash of an element: V1 Poseidon3(value, nextIndex, nextValue), V2 Poseidon2(value, nextValue). */
  leafHash(e: IndexedElement, version: TreeVersion): bigint {
    return version === 1 ? poseidon([e.value, BigInt(e.nextIndex), e.nextValue]) : poseidon([e.value, e.nextValue]);
  }

  /** The element with the largest value <= `value` (equal means the value is present). */
  private floor(value: bigint): IndexedElement | undefined {
    for (const { value: idx } of this.dbs.values.getRange({
      start: prefixed(this.id, fieldBuf(value)),
      end: prefixed(this.id),
      reverse: true,
      limit: 1,
    })) {
      return this.element(readU64(idx));
    }
    return undefined;
  }

  private checkRange(address: bigint): void {
    if (address < 0n || address >= ADDRESS_BOUND) {
      throw new StateError('address_out_of_range', `address ${toHex32(address)} is not below 2^248`);
    }
    // 2^248 - 1 is the trees' upper sentinel: an element in V1 trees, the bound in V2 trees.
    if (address === HIGHEST_ADDRESS_PLUS_ONE) {
      throw new StateError(
        'address_exists',
        `address ${toHex32(address)} already exists in address tree ${this.pubkey}`,
      );
    }
  }

  /** Whether the address is in the tree or waits in its address queue. */
  has(address: bigint): boolean {
    return this.floor(address)?.value === address || this.queuePosition('address', address) !== undefined;
  }

  /**
   * New addresses of a user transaction: they wait in the address queue (V1: the address queue
   * account; V2: the tree's own queue) until a forester inserts them. Returns their positions.
   */
  enqueue(addresses: readonly bigint[], firstPosition?: number): number[] {
    return atomically(this.dbs, () => {
      const m = this.meta();
      let position = firstPosition ?? m.addressNext ?? 0;
      const out: number[] = [];
      for (const address of addresses) {
        this.checkRange(address);
        if (this.has(address))
          throw new StateError(
            'address_exists',
            `address ${toHex32(address)} already exists in address tree ${this.pubkey}`,
          );
        this.putQueueEntry('address', position, address, fieldBuf(address));
        out.push(position++);
      }
      m.addressNext = position;
      writeMeta(this.dbs, this.pubkey, m);
      return out;
    });
  }

  /** Queued addresses in position order. */
  *addressQueue(start = 0, limit = Infinity): Generator<{ position: number; address: bigint }> {
    for (const { position, entry } of this.queueEntries('address', start, limit))
      yield { position, address: bufField(entry) };
  }

  /** Writes the initial elements of an empty tree (inside the registering transaction). */
  initialise(m: TreeMetaRecord): void {
    const initial: IndexedElement[] =
      m.version === 1
        ? [
            { index: 0, value: 0n, nextIndex: 1, nextValue: HIGHEST_ADDRESS_PLUS_ONE },
            { index: 1, value: HIGHEST_ADDRESS_PLUS_ONE, nextIndex: 0, nextValue: 0n },
          ]
        : [{ index: 0, value: 0n, nextIndex: 0, nextValue: HIGHEST_ADDRESS_PLUS_ONE }];
    const updates = new Map<number, bigint>();
    for (const e of initial) {
      this.putElement(e);
      updates.set(e.index, this.leafHash(e, m.version));
    }
    const root = this.merkle.update(updates);
    m.nextIndex = initial.length;
    // V1 trees start at root sequence 3 (genesis writes three roots after the empty one); V2 at 0.
    this.commitRoot(m, root, m.version === 1 ? 3n : 0n, undefined);
  }

  private putElement(e: IndexedElement): void {
    this.dbs.elements.put(prefixed(this.id, u64Buf(e.index)), encodeElement(e));
    this.dbs.values.put(prefixed(this.id, fieldBuf(e.value)), u64Buf(e.index));
  }

  /**
   * Inserts addresses in order, as one atomic batch: each updates its low element to point at it
   * and is appended after it in the value order. Fails whole if any address is present already.
   */
  insert(addresses: readonly bigint[], slot?: bigint, part?: WritePart): RootRef {
    return atomically(this.dbs, () => {
      const m = this.meta();
      if (m.nextIndex + addresses.length > this.merkle.capacity) {
        throw new StateError('tree_full', `address tree ${this.pubkey} is full`);
      }
      if (addresses.length === 0) return this.rootRef(m);
      const touched = new Map<number, IndexedElement>();
      for (const address of addresses) {
        this.checkRange(address);
        const low = this.floor(address);
        if (!low || low.value === address || low.nextValue === address) {
          throw new StateError(
            'address_exists',
            `address ${toHex32(address)} already exists in address tree ${this.pubkey}`,
          );
        }
        const added: IndexedElement = {
          index: m.nextIndex++,
          value: address,
          nextIndex: low.nextIndex,
          nextValue: low.nextValue,
        };
        const updatedLow: IndexedElement = { ...low, nextIndex: added.index, nextValue: address };
        this.putElement(updatedLow);
        this.putElement(added);
        touched.set(updatedLow.index, updatedLow);
        touched.set(added.index, added);
      }
      const updates = new Map<number, bigint>();
      for (const [index, e] of touched) updates.set(index, this.leafHash(e, m.version));
      const root = this.merkle.update(updates);
      // On chain a V1 insert is two tree operations (update the low leaf, append); V2 is batched.
      settleRoot(this.rootSink, m, root, m.version === 1 ? 2n * BigInt(addresses.length) : 1n, slot, part);
      return this.rootRef(m);
    });
  }

  /**
   * What insert() would refuse for these addresses taken together, checked without writing; a
   * large write checks its slices in turn, sharing `seen` and counting its `total` against capacity.
   */
  checkInsert(addresses: readonly bigint[], seen = new Set<bigint>(), total = addresses.length): void {
    const m = this.meta();
    if (m.nextIndex + total > this.merkle.capacity)
      throw new StateError('tree_full', `address tree ${this.pubkey} is full`);
    for (const address of addresses) {
      this.checkRange(address);
      if (seen.has(address) || this.floor(address)?.value === address)
        throw new StateError(
          'address_exists',
          `address ${toHex32(address)} already exists in address tree ${this.pubkey}`,
        );
      seen.add(address);
    }
  }

  /** The element with the largest value below `value` (the low element a new value would get). */
  lowElement(value: bigint): IndexedElement | undefined {
    const low = this.floor(value);
    return low && low.value === value ? undefined : low;
  }

  /** V2 batch address append: the first `count` queued addresses go into the tree, in queue order. */
  batchInsert(count: number, slot?: bigint): { addresses: bigint[] } & RootRef {
    return atomically(this.dbs, () => {
      const head = this.queueHead('address', count);
      const addresses = head.map((e) => bufField(e.entry));
      head.forEach((e, i) => this.removeQueueEntry('address', e.position, addresses[i]));
      return { addresses, ...this.insert(addresses, slot) };
    });
  }

  /** V1: queued addresses a forester inserted, one update each, taken off the address queue. */
  insertQueued(addresses: readonly bigint[], slot?: bigint): RootRef {
    return atomically(this.dbs, () => {
      for (const a of addresses) {
        const position = this.queuePosition('address', a);
        if (position === undefined)
          throw new StateError('leaf_not_found', `address ${toHex32(a)} is not in the address queue of ${this.pubkey}`);
        this.removeQueueEntry('address', position, a);
      }
      return this.insert(addresses, slot);
    });
  }

  /** Non-inclusion witness of `address` against the current root (one consistent read). */
  nonInclusionProof(address: bigint): NonInclusionProof {
    this.checkRange(address);
    const m = this.meta();
    const low = this.floor(address);
    if (!low || low.value === address) {
      throw new StateError(
        'address_exists',
        `address ${toHex32(address)} already exists in address tree ${this.pubkey}`,
      );
    }
    return { address, lowElement: low, pathElements: this.merkle.siblings(low.index), ...this.rootRef(m) };
  }
}
