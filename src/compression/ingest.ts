// Ingest of Light transactions executed on the embedded ledger, inside the LMDB transaction that
// commits them (compression-e2e.md §3): outputs appended to V1 trees or queued in V2 output
// queues, spent accounts queued for nullification (V2 with their nullifiers), new addresses
// queued, and the compressed-account index (bodies, owners, addresses, tokens, balances,
// signatures) updated. After each transaction the touched trees are checked against their ledger
// accounts. A malformed or unexpected event is skipped (its own writes rolled back), counted and
// logged; it never fails the ledger's transaction.
import type { ChainTransaction, CommittedTransaction, StoredAccount, TransactionIndexer } from '../ledger/index.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { TreeInfo, TreeStore } from '../state/index.js';
import { compressedAccountHash, compressedAccountHashes } from '../zk/account.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import { bigIntToBytes32, bytesToBigInt } from '../zk/field.js';
import type { LightEvent } from './events.js';
import type { CompressedAccountBody } from './instructions.js';
import { cpiContextOrder, lightEvents } from './events.js';
import { compareWithChain } from './self-check.js';
import { BalanceDeltas, type AccountRecord, type CompressionStore, type SigIndex } from './store.js';
import { parseTokenData } from './token-data.js';
import { treeEvents, type TreeEvent } from './tree-events.js';

/** base58 of the tree and queue pubkeys events name: a few keys, encoded over and over otherwise. */
const names = new Map<string, string>();
const toHex = (v: bigint) => encodeBase58(bigIntToBytes32(v));
function keyName(k: Uint8Array): string {
  const id = Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString('latin1');
  let v = names.get(id);
  if (v === undefined) {
    if (names.size >= 4096) names.clear();
    names.set(id, (v = encodeBase58(k)));
  }
  return v;
}

/** Why an event was not applied; the event's writes are rolled back. */
class SkipEvent extends Error {}

/**
 * What a transaction's self-check compares, captured when it was ingested: its trees as zkgate
 * holds them with the tree and queue accounts the programs left, and the bodies of its outputs with
 * the leaves the programs computed from them.
 */
interface PendingCheck {
  signature: Uint8Array;
  trees: { info: TreeInfo; accounts: Map<string, StoredAccount | undefined> }[];
  outputs: {
    index: number;
    tree: string;
    version: 1 | 2;
    leafIndex: number;
    body: CompressedAccountBody;
    leaf: bigint;
    /** The body's hash, where ingest computed it already (to order a CPI context's outputs). */
    bodyHash?: bigint;
  }[];
}

export interface IngestStats {
  transactions: number;
  lightTransactions: number;
  opened: number;
  closed: number;
  skipped: number;
}

export class CompressionIngester implements TransactionIndexer {
  /** Trees whose state differs from their ledger account: tree → what differs. */
  readonly divergent = new Map<string, string>();
  /**
   * Trees whose leaves arrive past positions this index never filled (history it did not see: a
   * follower that started after the tree was used): tree → the first slot that showed it. Their
   * paths would be wrong, so proofs for them are refused where this is known.
   */
  readonly incomplete = new Map<string, bigint>();
  readonly stats: IngestStats = { transactions: 0, lightTransactions: 0, opened: 0, closed: 0, skipped: 0 };
  /** The slot of the last transaction ingested (this run). */
  lastSlot = 0n;
  /**
   * Self-checks of ingested transactions not run yet. They run just after (next turn of the event
   * loop, or when health is asked), off the ledger's commit: two Poseidon hashes per transfer and
   * the tree-account reads would otherwise double the cost of ingesting it.
   */
  private pending: PendingCheck[] = [];
  private checkScheduled = false;
  private readonly counters;

  constructor(
    readonly store: CompressionStore,
    readonly trees: TreeStore,
    private readonly log: Logger,
    registry?: MetricsRegistry,
  ) {
    this.counters = registry && {
      txs: registry.counter('zkgate_compression_transactions_total', 'Ledger transactions seen by ingest.', ['kind']),
      accounts: registry.counter('zkgate_compression_accounts_total', 'Compressed accounts ingested.', ['change']),
      skipped: registry.counter(
        'zkgate_compression_events_skipped_total',
        'Light events ingest could not apply (logged with the reason).',
      ),
      divergences: registry.counter(
        'zkgate_compression_divergences_total',
        'Self-check failures: a tree or queue differs from its ledger account after a transaction.',
        ['tree'],
      ),
    };
    registry?.gauge(
      'zkgate_compression_last_transaction_slot',
      'Slot of the last ledger transaction ingested.',
      [],
      () => Number(this.lastSlot),
    );
  }

  /**
   * A transaction from either source. The embedded ledger's carries the accounts as it left them,
   * and the trees it touched are checked against those; a followed cluster's has no such view (its
   * trees are compared with the cluster's accounts by the consistency monitor instead).
   */
  applyTransaction(t: ChainTransaction | CommittedTransaction): void {
    this.stats.transactions++;
    const error = t.err ? t.err.display : null;
    // Failed transactions change no compressed state.
    const found = t.err ? { events: [], skipped: [] } : lightEvents(t);
    for (const s of found.skipped) this.skip(t, s.reason);
    const forester = t.err ? { events: [], skipped: [] } : treeEvents(t);
    for (const s of forester.skipped) this.skip(t, s);
    if (forester.events.length > 0) this.applyTreeEvents(t, forester.events);
    const opened: Uint8Array[] = [];
    const closed: Uint8Array[] = [];
    const touched: [SigIndex, Uint8Array][] = [];
    const trees = new Map<string, TreeInfo>();
    const pendingOutputs: PendingCheck['outputs'] = [];
    let applied = 0;
    for (const ev of found.events) {
      const o = opened.length;
      const c = closed.length;
      const tt = touched.length;
      const po = pendingOutputs.length;
      try {
        this.trees.transaction(() =>
          this.applyEvent(ev, t, { opened, closed, touched, trees, outputs: pendingOutputs }),
        );
        applied++;
      } catch (e) {
        opened.length = o;
        closed.length = c;
        touched.length = tt;
        pendingOutputs.length = po;
        this.skip(t, (e as Error).message);
      }
    }
    this.lastSlot = t.slot;
    if (applied === 0) {
      this.store.recordTransaction(t.signature, t.slot, t.blockTime, error);
      this.counters?.txs.inc([t.err ? 'failed' : 'other']);
      return;
    }
    this.stats.lightTransactions++;
    this.stats.opened += opened.length;
    this.stats.closed += closed.length;
    this.counters?.txs.inc(['light']);
    this.counters?.accounts.inc(['opened'], opened.length);
    this.counters?.accounts.inc(['closed'], closed.length);
    this.store.recordTransaction(t.signature, t.slot, t.blockTime, null, {
      tx: { slot: t.slot, opened, closed },
      touched,
    });
    this.scheduleCheck(t, trees.values(), pendingOutputs);
  }

  /** Queues the self-check of the trees a transaction touched (run just after the commit). */
  private scheduleCheck(
    t: ChainTransaction | CommittedTransaction,
    trees: Iterable<TreeInfo>,
    outputs: PendingCheck['outputs'],
  ): void {
    if (!('account' in t) && outputs.length === 0) return;
    this.pending.push({
      signature: t.signature,
      trees: [...(!('account' in t) ? [] : trees)].map((info) => {
        const keys = [info.pubkey, ...(info.version === 2 && info.kind === 'state' && info.queue ? [info.queue] : [])];
        return { info, accounts: new Map(keys.map((k) => [k, (t as CommittedTransaction).account(decodeBase58(k))])) };
      }),
      outputs,
    });
    if (!this.checkScheduled) {
      this.checkScheduled = true;
      setImmediate(() => this.verifyPending());
    }
  }

  /** Runs the self-checks of the transactions ingested so far (health asks for them first). */
  verifyPending(): void {
    this.checkScheduled = false;
    const list = this.pending;
    this.pending = [];
    // The bodies not hashed at ingest, all of the list's at once (batches hash several times faster).
    const unhashed = list.flatMap((p) => p.outputs.filter((o) => o.bodyHash === undefined));
    const trees = new Map<string, Uint8Array>();
    const treeKey = (t: string) => trees.get(t) ?? trees.set(t, decodeBase58(t)).get(t)!;
    const computed = compressedAccountHashes(
      unhashed.map((o) => ({
        account: {
          owner: o.body.owner,
          tree: treeKey(o.tree),
          leafIndex: o.leafIndex,
          lamports: o.body.lamports,
          ...(o.body.address ? { address: o.body.address } : {}),
          ...(o.body.data
            ? { data: { discriminator: o.body.data.discriminator, dataHash: o.body.data.dataHash } }
            : {}),
        },
        version: o.version,
      })),
    );
    const hashOf = new Map(unhashed.map((o, i) => [o, computed[i]!]));
    for (const p of list) {
      // base58 only for a divergence's message: every check's would be most of this one's garbage.
      const signature = () => encodeBase58(p.signature);
      p.outputs.forEach((o) => {
        const hash = o.bodyHash ?? hashOf.get(o)!;
        if (hash !== o.leaf)
          this.diverged(
            o.tree,
            `output ${o.index} of ${signature()}: its body hashes to ${encodeBase58(bigIntToBytes32(hash))}, its leaf is ${encodeBase58(bigIntToBytes32(o.leaf))}`,
            signature(),
          );
      });
      for (const { info, accounts } of p.trees) {
        const diff = compareWithChain(info, (k) => accounts.get(k));
        if (diff.length > 0) this.diverged(info.pubkey, diff.join('; '), signature());
      }
    }
  }

  /** Checks every tree the ledger feeds against its account (at start, and whenever asked). */
  checkAll(account: (pubkey: Uint8Array) => StoredAccount | undefined): void {
    this.verifyPending();
    for (const info of this.trees.listTrees()) {
      if (!info.ledger) continue;
      const diff = compareWithChain(info, (k) => account(decodeBase58(k)));
      if (diff.length > 0) this.diverged(info.pubkey, diff.join('; '));
    }
  }

  /** Writes past a tree's (or its queue's) next position: what came before them was never ingested here. */
  private missingHistory(tree: string, first: number, next: number, t: ChainTransaction): void {
    if (!this.incomplete.has(tree)) this.incomplete.set(tree, t.slot);
    this.diverged(
      tree,
      `positions ${next}…${first - 1} were never ingested (a transaction at slot ${t.slot} writes at ${first}): its history starts before this index`,
      encodeBase58(t.signature),
    );
  }

  private diverged(tree: string, detail: string, signature?: string): void {
    if (this.divergent.get(tree) !== detail)
      this.log.error('compression self-check: indexed state differs from the ledger', { tree, signature, detail });
    this.divergent.set(tree, detail);
    this.counters?.divergences.inc([tree]);
  }

  private skip(t: ChainTransaction, reason: string): void {
    this.stats.skipped++;
    this.counters?.skipped.inc();
    this.log.warn('compression ingest skipped an event', { signature: encodeBase58(t.signature), reason });
  }

  private treeInfo(pubkey: string, what: string): TreeInfo {
    if (!this.trees.has(pubkey)) throw new SkipEvent(`${what} ${pubkey} is not a tree zkgate knows`);
    return this.trees.info(pubkey);
  }

  private applyEvent(
    ev: LightEvent,
    t: ChainTransaction,
    out: {
      opened: Uint8Array[];
      closed: Uint8Array[];
      touched: [SigIndex, Uint8Array][];
      trees: Map<string, TreeInfo>;
      outputs: PendingCheck['outputs'];
    },
  ): void {
    const { queues } = ev;
    const deltas = new BalanceDeltas();
    const touchedTrees = new Set<string>();
    const at = (i: number, what: string) => {
      const k = ev.accounts[i];
      if (!k)
        throw new SkipEvent(`${what} refers to account ${i} of insert_into_queues, which has ${ev.accounts.length}`);
      return keyName(k);
    };
    const txHash = bytesToBigInt(queues.txHash);

    // Outputs: a V1 tree takes them in the transaction; a V2 output queue keeps them for a forester.
    const runs = new Map<string, { info: TreeInfo; target: string; first: number; leaves: bigint[] }>();
    const targets = new Map<number, { target: string; tree: string; info: TreeInfo }>();
    // Bodies hashed to find their order, by output: the self-check reuses those hashes.
    const hashed = new Map<number, { body: CompressedAccountBody; hash: bigint }>();
    const bodies = cpiContextOrder(ev, (o, i) => {
      const target = at(queues.leaves[i]!.accountIndex, `output ${i}`);
      const tree = this.trees.has(target) ? target : this.trees.treeOfQueue(target);
      if (!tree) return -1n;
      const { address, data } = o.account;
      const hash = compressedAccountHash(
        {
          owner: o.account.owner,
          lamports: o.account.lamports,
          tree: decodeBase58(tree),
          leafIndex: queues.outputLeafIndices[i]!,
          ...(address ? { address } : {}),
          ...(data ? { data } : {}),
        },
        this.trees.info(tree).version,
      );
      hashed.set(i, { body: o.account, hash });
      return hash;
    });
    queues.leaves.forEach((leaf, i) => {
      let dest = targets.get(leaf.accountIndex);
      if (!dest) {
        const target = at(leaf.accountIndex, `output ${i}`);
        const tree = this.trees.has(target) ? target : this.trees.treeOfQueue(target);
        if (!tree) throw new SkipEvent(`output ${i} goes to ${target}, not a tree or queue zkgate knows`);
        targets.set(leaf.accountIndex, (dest = { target, tree, info: this.trees.info(tree) }));
      }
      const { target, tree, info } = dest;
      if (info.kind !== 'state' || (info.version === 2) === (tree === target))
        throw new SkipEvent(`output ${i} goes to ${target}, which takes no outputs`);
      const leafIndex = queues.outputLeafIndices[i]!;
      const hash = bytesToBigInt(leaf.leaf);
      const body = bodies[i]!.account;
      // Checked after the commit, with the tree's other self-checks (verifyPending).
      const known = hashed.get(i);
      out.outputs.push({
        index: i,
        tree,
        version: info.version,
        leafIndex,
        body,
        leaf: hash,
        ...(known?.body === body ? { bodyHash: known.hash } : {}),
      });
      let run = runs.get(tree);
      if (!run) runs.set(tree, (run = { info, target, first: leafIndex, leaves: [] }));
      if (leafIndex !== run.first + run.leaves.length)
        throw new SkipEvent(`output ${i}: leaf index ${leafIndex} does not follow the tree's run`);
      run.leaves.push(hash);
      const seqEntry = queues.outputSequences.find((s) => keyName(s.tree) === tree);
      const token = parseTokenData(body) ?? null;
      const record: AccountRecord = {
        hash: leaf.leaf,
        owner: body.owner,
        lamports: body.lamports,
        address: body.address,
        data: body.data,
        tree,
        queue: info.version === 1 ? info.queue : target,
        treeType: info.version === 1 ? 1 : 3,
        leafIndex,
        seq: info.version === 1 && seqEntry ? seqEntry.seq + BigInt(run.leaves.length - 1) : null,
        slotCreated: t.slot,
        inOutputQueue: info.version === 2,
        spent: false,
        nullifierQueueIndex: null,
        txHash: null,
        token,
      };
      this.store.addAccount(record, deltas);
      out.opened.push(leaf.leaf);
      this.touch(out.touched, record);
    });
    for (const [tree, run] of runs) {
      const next = run.info.version === 1 ? run.info.nextIndex : run.info.outputNext;
      if (run.first > next) this.missingHistory(tree, run.first, next, t);
      if (run.info.version === 1) {
        if (run.first !== run.info.nextIndex)
          throw new SkipEvent(
            `outputs of ${tree} start at leaf ${run.first}; zkgate's tree is at ${run.info.nextIndex}`,
          );
        this.trees.stateTree(tree).append(run.leaves, t.slot);
      } else this.trees.stateTree(tree).enqueue(run.first, run.leaves, t.slot);
      touchedTrees.add(tree);
    }

    // Spent accounts: queued for nullification; V2 with Poseidon(hash, leafIndex, txHash).
    const perTree = new Map<string, number>();
    const inputTrees = new Map<number, { tree: string; info: TreeInfo }>();
    queues.nullifiers.forEach((n, i) => {
      let src = inputTrees.get(n.treeIndex);
      if (!src) {
        const t = at(n.treeIndex, `input ${i}`);
        inputTrees.set(n.treeIndex, (src = { tree: t, info: this.treeInfo(t, `input ${i}'s tree`) }));
      }
      const { tree, info } = src;
      const hash = bytesToBigInt(n.accountHash);
      if (!this.store.has(n.accountHash))
        throw new SkipEvent(`input ${i} spends ${encodeBase58(n.accountHash)}, an account zkgate never saw`);
      const [position] = this.trees.stateTree(tree).spend([{ hash, leafIndex: n.leafIndex, txHash }]);
      if (info.version === 2) {
        const seq = queues.inputSequences.find((s) => keyName(s.tree) === tree);
        const k = perTree.get(tree) ?? 0;
        perTree.set(tree, k + 1);
        const expected = seq ? Number(seq.seq) + k : undefined;
        if (expected !== position)
          throw new SkipEvent(`input ${i}: queued at ${position}, the program queued it at ${expected}`);
      }
      const rec = this.store.spendAccount(
        n.accountHash,
        {
          nullifierQueueIndex: info.version === 2 ? position! : null,
          txHash: info.version === 2 ? queues.txHash : null,
        },
        deltas,
      );
      out.closed.push(n.accountHash);
      if (rec) this.touch(out.touched, rec);
      touchedTrees.add(tree);
    });

    this.store.applyBalances(deltas);

    // New addresses: queued in the address queue (V1: the queue account; V2: the tree's own).
    const perAddressTree = new Map<string, number>();
    queues.addresses.forEach((a, i) => {
      const tree = at(a.treeIndex, `address ${i}`);
      const info = this.treeInfo(tree, `address ${i}'s tree`);
      if (info.kind !== 'address') throw new SkipEvent(`address ${i} goes to ${tree}, a state tree`);
      let position: number | undefined;
      if (info.version === 2) {
        const seq = queues.addressSequences.find((s) => keyName(s.tree) === tree);
        const k = perAddressTree.get(tree) ?? 0;
        perAddressTree.set(tree, k + 1);
        if (!seq) throw new SkipEvent(`address ${i}: no address sequence number for ${tree}`);
        position = Number(seq.seq) + k;
        if (position > info.addressNext) this.missingHistory(tree, position, info.addressNext, t);
      }
      this.trees.addressTree(tree).enqueue([bytesToBigInt(a.address)], position);
      out.touched.push(['address', a.address]);
      touchedTrees.add(tree);
    });
    // The trees as this event left them, for the self-check (their metadata is cached here).
    for (const tree of touchedTrees) out.trees.set(tree, this.trees.info(tree));
  }

  /**
   * A forester's updates: queued leaves, nullifiers and addresses moved into their trees as the
   * program did it. The tree must land on the root the event names; the self-check then compares
   * it with the tree account.
   */
  private applyTreeEvents(t: ChainTransaction | CommittedTransaction, events: TreeEvent[]): void {
    const trees = new Map<string, TreeInfo>();
    for (const ev of events) {
      const tree = keyName(ev.tree);
      try {
        this.trees.transaction(() => {
          const info = this.treeInfo(tree, 'the event’s tree');
          if (ev.kind === 'v1-nullify') {
            if (info.version !== 1 || info.kind !== 'state') throw new SkipEvent(`${tree} is not a V1 state tree`);
            this.trees.stateTree(tree).nullifyQueued(ev.leafIndices, t.slot);
          } else if (ev.kind === 'v1-address') {
            if (info.version !== 1 || info.kind !== 'address') throw new SkipEvent(`${tree} is not a V1 address tree`);
            this.trees.addressTree(tree).insertQueued(
              ev.updates.map((u) => u.high.value),
              t.slot,
            );
          } else {
            if (info.version !== 2) throw new SkipEvent(`${tree} is not a V2 tree`);
            if (ev.kind !== 'batch-nullify' && ev.oldNextIndex !== info.nextIndex)
              throw new SkipEvent(`${ev.kind} from leaf ${ev.oldNextIndex}; zkgate's tree is at ${info.nextIndex}`);
            let root: bigint;
            if (ev.kind === 'batch-append') {
              const r = this.trees.stateTree(tree).batchAppend(ev.zkpBatchSize, t.slot);
              for (const leaf of r.leaves) this.store.markAppended(bigIntToBytes32(leaf));
              root = r.root;
            } else if (ev.kind === 'batch-nullify')
              root = this.trees.stateTree(tree).batchNullify(ev.zkpBatchSize, t.slot).root;
            else root = this.trees.addressTree(tree).batchInsert(ev.zkpBatchSize, t.slot).root;
            if (root !== ev.newRoot)
              throw new SkipEvent(
                `${ev.kind} of ${tree}: zkgate's tree has root ${toHex(root)}, the program recorded ${toHex(ev.newRoot)}`,
              );
          }
          trees.set(tree, this.trees.info(tree));
        });
      } catch (e) {
        this.skip(t, (e as Error).message);
        this.diverged(
          tree,
          `a forester update could not be applied: ${(e as Error).message}`,
          encodeBase58(t.signature),
        );
      }
    }
    this.counters?.txs.inc(['forester']);
    if (trees.size > 0) this.scheduleCheck(t, trees.values(), []);
  }

  private touch(touched: [SigIndex, Uint8Array][], a: AccountRecord): void {
    touched.push(['account', a.hash], ['owner', a.owner]);
    if (a.address) touched.push(['address', a.address]);
    if (a.token) touched.push(['tokenOwner', a.token.owner]);
  }
}
