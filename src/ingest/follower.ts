// Follows a cluster into its index: binds the index to the cluster (its genesis hash), registers
// the cluster's Merkle trees (account-compression's accounts, their metadata only), then applies
// its blocks in slot order from the checkpoint on. A block that touches an account-compression
// account the index does not know is preceded by a look at those accounts, so a tree created
// while following is registered before its first leaf.
//
// Blocks not yet final (--cluster-commitment confirmed) are applied as pending (cluster-index.ts).
// Two checks take them back when the cluster went another way: a block whose parent is not the
// newest pending block (a fork seen at the tip), and, every second while any is pending, the
// finalized chain's block at the newest pending slot it covers (same hash: everything up to it is
// final, as each pending block was checked to hang from the one before; another hash or none: a
// fork). Either way every pending block is taken back and reading resumes after the last final one.
import {
  LIGHT_IDS,
  parseTreeMetadata,
  TREE_DISCRIMINATORS,
  TREE_METADATA_BYTES,
  type TreeMetadata,
} from '../ledger/index.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import type { BlockSource, SourceBlock } from './block-source.js';
import type { ClusterIndex } from './cluster-index.js';
import { sleep, type ClusterRpc } from './cluster-rpc.js';
import { sameBytes } from '../util/same-bytes.js';

/** Keys looked at and found not to be trees: remembered (bounded) so a block does not ask again. */
const NOT_TREES_MAX = 100_000;
const COMPRESSION_KEY = Buffer.from(decodeBase58(LIGHT_IDS.accountCompression));

interface AccountAnswer {
  data: [string, string];
  owner: string;
}

export interface FollowerOptions {
  rpc: ClusterRpc;
  source: BlockSource;
  index: ClusterIndex;
  /** The first slot of an empty index (default: the cluster's first available block). */
  startSlot?: bigint;
  /** How often pending blocks are looked for on the finalized chain, ms (default 1,000). */
  finalityMs?: number;
  log: Logger;
  metrics?: MetricsRegistry;
}

/**
 * A backfill's run of blocks applied in one transaction: at most this many blocks, transactions
 * (all of the blocks', held until the commit) and milliseconds collecting. One commit writes each
 * page it changed once, so larger runs write far less: a run of 8 blocks of 50 Light transactions
 * changed about as many pages as its puts (keys are hashes).
 */
const RUN_BLOCKS = 256;
const RUN_TRANSACTIONS = 5_000;
const RUN_MS = 500;

/**
 * The source's blocks in runs: final blocks go together (one commit for the run) while the source
 * is behind the cluster's tip or already holds the next; a block not yet final, or one the cluster
 * has yet to make, ends a run. At the tip every block is its own.
 */
async function* readyRuns(source: BlockSource, from: bigint, signal: AbortSignal): AsyncGenerator<SourceBlock[]> {
  const it = source.blocks(from, signal)[Symbol.asyncIterator]();
  const notYet = Symbol('not yet');
  let next = it.next();
  try {
    for (;;) {
      const first = await next;
      if (first.done) return;
      next = it.next();
      const run = [first.value];
      let txs = first.value.transactions.length;
      const until = performance.now() + RUN_MS;
      while (run.at(-1)!.final && run.length < RUN_BLOCKS && txs < RUN_TRANSACTIONS && performance.now() < until) {
        // Behind the tip the next block is on its way; at the tip, only one already fetched (it
        // settles before the event loop's next turn) joins the run.
        // Never past the run's time: a block that stalls (a slow node) leaves the rest applied first.
        let timer: NodeJS.Timeout | undefined;
        const r = await Promise.race([
          next,
          new Promise<typeof notYet>((res) =>
            source.behind
              ? (timer = setTimeout(() => res(notYet), Math.max(0, until - performance.now())))
              : setImmediate(() => res(notYet)),
          ),
        ]);
        clearTimeout(timer);
        if (r === notYet) break;
        if (r.done) {
          yield run;
          return;
        }
        next = it.next();
        if (!r.value.final) {
          yield run;
          run.length = 0;
          txs = 0;
        }
        run.push(r.value);
        txs += r.value.transactions.length;
      }
      yield run;
    }
  } finally {
    await it.return?.();
  }
}

export class ClusterFollower {
  /** The last slot applied. */
  indexedSlot = -1n;
  /** The cluster's newest slot as last seen. */
  get tipSlot(): bigint {
    const tip = this.o.source.lastTip ?? -1n;
    return tip > this.indexedSlot ? tip : this.indexedSlot;
  }
  /**
   * Accounts known not to be trees (bounded), and trees known indexed, by their keys' bytes (as
   * latin1): a transaction's keys are looked up here before the index (on Postgres, a round trip
   * each). A tree is never unregistered.
   */
  private readonly notTrees = new Set<string>();
  private readonly knownTrees = new Set<string>();
  private readonly ac = new AbortController();
  /** Rollbacks so far: a block read before one is not applied after it. */
  private epoch = 0;
  /** The current pass over the source's blocks, ended by a rollback. */
  private pass: AbortController | undefined;
  private readonly rollbacks;
  private finality: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  /** The cluster, as logs show it (its origin). */
  get name(): string {
    return this.o.source.name;
  }

  /** Why following stopped, when it did (never for the cluster's faults, which are retried). */
  failure: Error | undefined;

  /**
   * Settles the first time the index reaches the cluster's tip (nothing listed or in flight past
   * the last block applied), or following stops: what may wait for the backfill rather than
   * compete with it.
   */
  readonly caughtUp: Promise<void>;
  private reachedTip!: () => void;

  constructor(private readonly o: FollowerOptions) {
    this.caughtUp = new Promise((resolve) => (this.reachedTip = resolve));
    this.rollbacks = o.metrics?.counter(
      'zkgate_cluster_rollbacks_total',
      'Times blocks applied before they were final were taken back (the cluster went on from another fork).',
    );
    o.metrics?.gauge(
      'zkgate_cluster_pending_blocks',
      'Blocks applied before they were final, not yet found on the finalized chain.',
      [],
      () => this.o.index.pending().length,
    );
    o.metrics?.gauge(
      'zkgate_cluster_indexed_slot',
      'The last slot of the followed cluster applied to the index.',
      [],
      () => Number(this.indexedSlot),
    );
    o.metrics?.gauge('zkgate_cluster_tip_slot', "The followed cluster's newest slot, as last seen.", [], () =>
      Number(this.tipSlot),
    );
  }

  /** Binds the index, registers the trees, and starts applying blocks in the background. */
  async start(): Promise<void> {
    try {
      await this.begin();
    } catch (e) {
      if (this.ac.signal.aborted) return;
      throw e;
    }
  }

  private async begin(): Promise<void> {
    const { rpc, index, source } = this.o;
    const signal = this.ac.signal;
    const genesis = await rpc.call<unknown>('getGenesisHash', [], signal);
    if (typeof genesis !== 'string')
      throw new Error(`getGenesisHash at ${rpc.origin} answered ${JSON.stringify(genesis)}`);
    const start = index.checkpoint ? undefined : (this.o.startSlot ?? (await source.firstSlot(signal)));
    const cp = index.bind(genesis, start ?? 0n);
    this.indexedSlot = cp.slot;
    index.registerTrees(await this.allTrees(signal));
    this.o.log.info('following cluster', {
      cluster: source.name,
      genesis,
      from: String(cp.slot + 1n),
      resumed: start === undefined,
    });
    this.running = this.run(signal);
    this.finality = this.watchFinality(signal);
  }

  private async run(signal: AbortSignal): Promise<void> {
    try {
      while (!signal.aborted) {
        const pass = new AbortController();
        const end = () => pass.abort();
        signal.addEventListener('abort', end, { once: true });
        this.pass = pass;
        const epoch = this.epoch;
        try {
          const from = this.o.index.checkpoint!.slot + 1n;
          for await (const group of readyRuns(this.o.source, from, pass.signal)) {
            for (const block of group) await this.registerNewTrees(block, pass.signal);
            if (this.epoch !== epoch) break;
            if (!this.o.index.pendingHead()) {
              this.o.index.applyBlocks(group);
              this.indexedSlot = group.at(-1)!.slot;
              if (!this.o.source.behind) this.reachedTip();
              continue;
            }
            // Behind a pending block, each block must hang from the one before.
            let forked = false;
            for (const block of group) {
              const head = this.o.index.pendingHead()!;
              if (block.parentSlot !== head.slot || block.previousBlockhash !== head.blockhash) {
                this.rollback(
                  `block ${block.slot} hangs from ${block.previousBlockhash} at slot ${block.parentSlot}, not from the pending block ${head.blockhash} at slot ${head.slot}`,
                );
                forked = true;
                break;
              }
              this.o.index.applyBlock(block);
              this.indexedSlot = block.slot;
            }
            if (forked) break;
            if (!this.o.source.behind) this.reachedTip();
          }
        } catch (e) {
          if (!pass.signal.aborted) throw e;
        } finally {
          signal.removeEventListener('abort', end);
        }
      }
    } catch (e) {
      if (signal.aborted) return;
      // Not the cluster's faults (retried below this): the index's own. Serving goes on from what is indexed.
      this.failure = e as Error;
      this.reachedTip(); // what waited for the tip need not wait longer
      this.o.log.error('following the cluster stopped', { error: String((e as Error)?.stack ?? e) });
    }
  }

  /** Takes back every pending block; the pass reading blocks starts again after the last final one. */
  private rollback(reason: string): void {
    const slots = this.o.index.rollback();
    this.epoch++;
    this.pass?.abort();
    this.indexedSlot = this.o.index.checkpoint!.slot;
    this.rollbacks?.inc();
    this.o.log.warn('cluster fork: blocks applied before they were final are taken back', {
      cluster: this.name,
      reason,
      slots: slots.map(String),
      resumeFrom: String(this.indexedSlot + 1n),
    });
  }

  /** Looks for the pending blocks on the finalized chain while there are any. */
  private async watchFinality(signal: AbortSignal): Promise<void> {
    const { index, source } = this.o;
    while (!signal.aborted) {
      try {
        await sleep(this.o.finalityMs ?? 1000, signal);
        if (!index.pendingHead()) continue;
        const finalized = await source.finalizedTip(signal);
        const newest = index
          .pending()
          .filter((p) => p.slot <= finalized)
          .at(-1);
        if (!newest) continue;
        const hash = await source.finalizedBlockhash(newest.slot, signal);
        // The pending blocks may have changed while the cluster was asked (a rollback at the tip).
        if (!index.pending().some((p) => p.slot === newest.slot && p.blockhash === newest.blockhash)) continue;
        if (hash === newest.blockhash) index.finalize(newest.slot);
        else
          this.rollback(
            `the finalized chain has ${hash === null ? 'no block' : `block ${hash}`} at slot ${newest.slot}, where block ${newest.blockhash} was applied`,
          );
      } catch (e) {
        if (signal.aborted) return;
        this.o.log.warn('cluster: looking for pending blocks on the finalized chain failed; trying again', {
          cluster: this.name,
          error: (e as Error).message,
        });
      }
    }
  }

  /** Every Merkle tree account of account-compression, by its metadata. */
  private async allTrees(signal: AbortSignal): Promise<TreeMetadata[]> {
    const out: TreeMetadata[] = [];
    for (const disc of TREE_DISCRIMINATORS) {
      const list = await this.o.rpc.call<{ pubkey: string; account: AccountAnswer }[]>(
        'getProgramAccounts',
        [
          LIGHT_IDS.accountCompression,
          {
            encoding: 'base64',
            dataSlice: { offset: 0, length: TREE_METADATA_BYTES },
            filters: [{ memcmp: { offset: 0, bytes: encodeBase58(disc) } }],
          },
        ],
        signal,
      );
      for (const { pubkey, account } of Array.isArray(list) ? list : []) {
        const t = this.treeOf(pubkey, account);
        if (t) out.push(t);
      }
    }
    return out;
  }

  private treeOf(pubkey: string, account: AccountAnswer | null | undefined): TreeMetadata | undefined {
    if (!account || account.owner !== LIGHT_IDS.accountCompression || !Array.isArray(account.data)) return undefined;
    try {
      return parseTreeMetadata(pubkey, Buffer.from(account.data[0], 'base64'));
    } catch (e) {
      this.o.log.warn('cluster index: an account-compression account did not read as a tree', {
        pubkey,
        error: (e as Error).message,
      });
      return undefined;
    }
  }

  /** The writable keys of a block's account-compression transactions that may be new trees. */
  private async registerNewTrees(block: SourceBlock, signal: AbortSignal): Promise<void> {
    const unknown = new Map<string, string>();
    for (const t of block.transactions) {
      if (t.err || !t.accountKeys.some((k) => sameBytes(COMPRESSION_KEY, k))) continue;
      for (const k of t.accountKeys) {
        // Looked up by the key's bytes: base58 only for keys not seen before.
        const id = Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString('latin1');
        if (unknown.has(id) || this.notTrees.has(id) || this.knownTrees.has(id)) continue;
        const name = encodeBase58(k);
        if (this.o.index.compression.trees.has(name)) this.knownTrees.add(id);
        else unknown.set(id, name);
      }
    }
    if (unknown.size === 0) return;
    const ids = [...unknown.keys()];
    const found: TreeMetadata[] = [];
    for (let i = 0; i < ids.length; i += 100) {
      const chunk = ids.slice(i, i + 100).map((id) => unknown.get(id)!);
      const r = await this.o.rpc.call<{ value: (AccountAnswer | null)[] }>(
        'getMultipleAccounts',
        [chunk, { encoding: 'base64', dataSlice: { offset: 0, length: TREE_METADATA_BYTES } }],
        signal,
      );
      chunk.forEach((k, j) => {
        const t = this.treeOf(k, r?.value?.[j]);
        if (t) found.push(t);
        else {
          if (this.notTrees.size >= NOT_TREES_MAX) this.notTrees.clear();
          this.notTrees.add(ids[i + j]!);
        }
      });
    }
    if (found.length > 0) this.o.index.registerTrees(found);
  }

  async stop(): Promise<void> {
    this.ac.abort();
    await this.running;
    await this.finality;
  }
}
