// The index of a followed cluster (--cluster-rpc): the trees and the compressed-account index in
// an LMDB environment of their own (data dir `cluster/`), fed by the same ingester as the embedded
// ledger's, a block (or a backfill's run of final blocks) per LMDB transaction together with the
// checkpoint (the slot indexed through). A crash loses at most the blocks being applied, which the next start applies again from the
// checkpoint. The cluster is named by its genesis hash: an index of another cluster is refused.
// A block not yet final (--cluster-commitment confirmed) is applied with its writes recorded in
// the undo log and listed as pending; once the finalized chain holds it, both are dropped; when it
// does not, every pending block is taken back, newest write first, in one transaction.
import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { AppError } from '../errors.js';
import { openCompression, type Compression } from '../compression/index.js';
import { encodeBase58 } from '../zk/base58.js';
import { LIGHT_IDS, type TreeMetadata } from '../ledger/index.js';
import { decodeBase58 } from '../zk/base58.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { SourceBlock } from './block-source.js';
import { UndoLog } from './undo-log.js';
import { sameBytes } from '../util/same-bytes.js';

/** A block applied before it was final: where it hangs in the chain. */
export interface PendingBlock {
  slot: bigint;
  blockhash: string;
  parentSlot: bigint;
  previousBlockhash: string;
}

interface StoredPending {
  blockhash: string;
  parentSlot: string;
  previousBlockhash: string;
}

/** Where the index stands: the cluster it follows and the last block applied. */
export interface Checkpoint {
  genesisHash: string;
  /** The slot the index started from (earlier history is not in it). */
  startSlot: bigint;
  /** The last slot applied (startSlot - 1 before the first block). */
  slot: bigint;
  blockhash: string;
}

interface StoredCheckpoint {
  genesisHash: string;
  startSlot: string;
  slot: string;
  blockhash: string;
}

/** Trees found incomplete (tree → slot), as stored. */
const incompleteOf = (meta: Database<unknown, string>) => (meta.get('incomplete') ?? {}) as Record<string, string>;

/**
 * A proof asked for a tree whose history starts before the index (leaves it never saw): its paths
 * would be wrong, so it is refused, naming the tree and what to do.
 */
export class TreeIncompleteError extends AppError {
  readonly kind = 'tree_incomplete';
}

/** The data dir's index is another cluster's: refused at start, naming both. */
export class ClusterMismatchError extends AppError {
  readonly kind = 'cluster_mismatch';
}

/** Light's programs: a cluster's transactions that load none of them are not indexed (a cluster has millions). */
export const LIGHT_PROGRAM_IDS = [
  LIGHT_IDS.system,
  LIGHT_IDS.accountCompression,
  LIGHT_IDS.compressedToken,
  LIGHT_IDS.registry,
] as const;
const LIGHT_PROGRAMS = LIGHT_PROGRAM_IDS.map((k) => Buffer.from(decodeBase58(k)));
const touchesLight = (keys: readonly Uint8Array[]) => keys.some((k) => LIGHT_PROGRAMS.some((p) => sameBytes(p, k)));

export class ClusterIndex {
  private constructor(
    private readonly root: RootDatabase,
    private readonly meta: Database<unknown, string>,
    private readonly pendingDb: Database<StoredPending, number>,
    private readonly undo: UndoLog,
    readonly compression: Compression,
    private readonly log: Logger,
    private readonly failures?: ReturnType<MetricsRegistry['counter']>,
  ) {}

  static open(dir: string, log: Logger, metrics?: MetricsRegistry): ClusterIndex {
    mkdirSync(dir, { recursive: true });
    return ClusterIndex.openOn(open({ path: dir, maxDbs: 64, compression: false }), log, metrics);
  }

  /**
   * The index in `root`: an LMDB environment, or Postgres's tables in LMDB's shape (pg/kv.ts),
   * whose own savepoints `savepoint` then gives (the undo log's otherwise).
   */
  static openOn(
    root: RootDatabase,
    log: Logger,
    metrics?: MetricsRegistry,
    savepoint?: <T>(fn: () => T) => T,
  ): ClusterIndex {
    const undo = new UndoLog(root);
    const { meta, pending, compression } = undo.watching(() => ({
      meta: root.openDB<unknown, string>({ name: 'cluster-meta', encoding: 'json' }),
      pending: root.openDB<StoredPending, number>({ name: 'cluster-pending', encoding: 'json' }),
      compression: openCompression(root, log, metrics),
    }));
    const failures = metrics?.counter(
      'zkgate_cluster_transactions_failed_total',
      'Transactions of a followed cluster that ingest failed on (their writes dropped, logged with the signature).',
    );
    compression.trees.useSavepoints(savepoint ?? ((fn) => undo.savepoint(fn)));
    const index = new ClusterIndex(root, meta, pending, undo, compression, log, failures);
    index.reloadIncomplete();
    return index;
  }

  /**
   * Trees found incomplete stay so across restarts (their missing leaves never come), and after a
   * rollback are as stored; a process that takes over writing a shared index loads them again.
   */
  reloadIncomplete(): void {
    const { incomplete, divergent } = this.compression.ingester;
    incomplete.clear();
    for (const [tree, slot] of Object.entries(incompleteOf(this.meta))) incomplete.set(tree, BigInt(slot));
    // A follower's ingest finds a tree divergent only where its history is missing.
    for (const tree of divergent.keys()) if (!incomplete.has(tree)) divergent.delete(tree);
  }

  /** The blocks applied before they were final, oldest first. */
  pending(): PendingBlock[] {
    return [...this.pendingDb.getRange()].map(({ key, value }) => ({
      slot: BigInt(key),
      blockhash: value.blockhash,
      parentSlot: BigInt(value.parentSlot),
      previousBlockhash: value.previousBlockhash,
    }));
  }

  /** The newest block applied before it was final, if one still is not. */
  pendingHead(): PendingBlock | undefined {
    for (const { key, value } of this.pendingDb.getRange({ reverse: true, limit: 1 }))
      return {
        slot: BigInt(key),
        blockhash: value.blockhash,
        parentSlot: BigInt(value.parentSlot),
        previousBlockhash: value.previousBlockhash,
      };
    return undefined;
  }

  /** The pending blocks up to `slot` are on the finalized chain: what they wrote is final. */
  finalize(through: bigint): void {
    this.root.transactionSync(() => {
      this.undo.forget(through);
      for (const k of this.pendingDb.getKeys({ end: Number(through) + 1 })) void this.pendingDb.remove(k);
    });
  }

  /**
   * A pending block is not on the chain the cluster went on with: everything every pending block
   * wrote is taken back, in one transaction, back to the last final block. Returns the slots
   * taken back.
   */
  rollback(): bigint[] {
    const slots = this.pending().map((p) => p.slot);
    const from = this.undo.oldest();
    if (from === undefined) return slots;
    this.root.transactionSync(() => this.undo.rollback(from));
    this.reloadIncomplete();
    return slots;
  }

  /** Why a proof of `tree` may not be made from this index; undefined when it may. */
  refusal(tree: string): string | undefined {
    const since = this.incompleteTrees().get(tree);
    if (since === undefined) return undefined;
    const c = this.checkpoint;
    return `tree ${tree} holds leaves this index never saw (its history starts before slot ${c?.startSlot ?? '?'}, where this index starts; found at slot ${since}): its proofs would be wrong. Follow the cluster from an earlier --start-slot (at or before the tree's first leaf) with an empty data dir`;
  }

  /**
   * Trees holding leaves this index never saw → the slot that showed it: as stored with the last
   * block (what a process reading an index another writes knows), with this process's ingest's.
   */
  incompleteTrees(): Map<string, bigint> {
    const out = new Map(Object.entries(incompleteOf(this.meta)).map(([t, s]) => [t, BigInt(s)] as const));
    for (const [t, s] of this.compression.ingester.incomplete) if (!out.has(t)) out.set(t, s);
    return out;
  }

  get checkpoint(): Checkpoint | undefined {
    const c = this.meta.get('checkpoint') as StoredCheckpoint | undefined;
    return c && { ...c, startSlot: BigInt(c.startSlot), slot: BigInt(c.slot) };
  }

  /**
   * Ties the index to a cluster on its first start (from `startSlot`); later starts must follow the
   * same cluster. Returns the checkpoint to resume after.
   */
  bind(genesisHash: string, startSlot: bigint): Checkpoint {
    const c = this.checkpoint;
    if (c) {
      if (c.genesisHash !== genesisHash)
        throw new ClusterMismatchError(
          `the index in this data dir follows the cluster with genesis ${c.genesisHash}, not ${genesisHash}: use another --data-dir`,
        );
      return c;
    }
    const fresh = { genesisHash, startSlot: String(startSlot), slot: String(startSlot - 1n), blockhash: '' };
    this.meta.putSync('checkpoint', fresh);
    return this.checkpoint!;
  }

  /**
   * Registers trees not indexed yet, as they were made: empty, or with the elements an empty tree
   * of their kind holds (an address tree's first), their queues at their first position.
   */
  registerTrees(trees: readonly TreeMetadata[]): string[] {
    const added: string[] = [];
    this.root.transactionSync(() => {
      for (const t of trees) {
        if (this.compression.trees.has(t.pubkey)) continue;
        this.compression.trees.registerTree({
          pubkey: t.pubkey,
          kind: t.kind,
          version: t.version,
          height: t.height,
          rootHistoryCapacity: t.rootHistoryCapacity,
          ...(t.queue ? { queue: t.queue } : {}),
          ledger: true,
        });
        added.push(t.pubkey);
      }
    });
    if (added.length > 0) this.log.info('cluster index: trees registered', { trees: added });
    return added;
  }

  /**
   * One block: its transactions that load a Light program through the ingester, then the
   * checkpoint, in one LMDB transaction. A transaction ingest fails on loses its own writes (a
   * nested transaction, its undo records with them), never the block's.
   */
  applyBlock(block: SourceBlock): void {
    this.applyBlocks([block]);
  }

  /**
   * Consecutive blocks in one LMDB transaction, the checkpoint at the last (one commit, one disk
   * sync, for a backfill's run of blocks). Blocks not yet final, or any while one is pending, are
   * applied one to a transaction: each is taken back on its own.
   */
  applyBlocks(blocks: readonly SourceBlock[]): void {
    const c = this.checkpoint;
    if (!c) throw new Error('cluster index: bind() before applying blocks');
    const fresh = blocks.filter((b) => b.slot > c.slot);
    if (fresh.length === 0) return;
    // Behind a pending block every block is recorded too: taking that one back takes back all after it.
    if (fresh.length === 1 && (!fresh[0]!.final || this.undo.oldest() !== undefined)) {
      const block = fresh[0]!;
      this.root.transactionSync(() =>
        this.undo.record(block.slot, () => this.deferring(() => this.write(block, c, true))),
      );
      return;
    }
    if (fresh.some((b) => !b.final) || this.undo.oldest() !== undefined) {
      for (const b of fresh) this.applyBlocks([b]);
      return;
    }
    this.root.transactionSync(() =>
      this.deferring(() => {
        for (const block of fresh) this.write(block, c, false);
      }),
    );
  }

  /** `fn` with V1 appends and balance changes written once for all its transactions, as it returns. */
  private deferring(fn: () => void): void {
    this.compression.trees.deferringAppends(() => this.compression.store.deferringBalances(fn));
  }

  private write(block: SourceBlock, c: Checkpoint, pending: boolean): void {
    if (pending)
      void this.pendingDb.put(Number(block.slot), {
        blockhash: block.blockhash,
        parentSlot: String(block.parentSlot),
        previousBlockhash: block.previousBlockhash,
      });
    for (const t of block.transactions) {
      if (!touchesLight(t.accountKeys)) continue;
      try {
        // The trees' transaction (a savepoint): a failure takes back its writes and the appends it deferred.
        this.compression.trees.transaction(() =>
          this.compression.store.balancesTransaction(() => this.compression.ingester.applyTransaction(t)),
        );
      } catch (e) {
        this.failures?.inc();
        this.log.error('cluster index: ingest failed on a transaction; its writes are dropped', {
          signature: encodeBase58(t.signature),
          slot: String(block.slot),
          error: String((e as Error)?.stack ?? e),
        });
      }
    }
    const incomplete = this.compression.ingester.incomplete;
    if (incomplete.size !== Object.keys(incompleteOf(this.meta)).length)
      this.meta.put('incomplete', Object.fromEntries([...incomplete].map(([t, s]) => [t, String(s)])));
    this.meta.put('checkpoint', {
      genesisHash: c.genesisHash,
      startSlot: String(c.startSlot),
      slot: String(block.slot),
      blockhash: block.blockhash,
    });
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
