// The consistency monitor of a followed cluster (issue 50 §6, as Photon's monitor): once the index
// is caught up, each tree as indexed is compared with the cluster's tree account (and a V2 state
// tree's output queue). The cluster's account is read at the commitment the index follows, whose
// newest slot the index reaches a moment later, so its counters (root sequence, next index, queue positions) may
// be ahead of the index's, never behind: one behind is a difference, one ahead leaves the tree
// for the next round, and at the same root sequence the roots must be equal. A difference is
// logged with both sides and the slots, counted, and shown by /health and getIndexerHealth naming
// the tree; serving and ingest go on (a wrong root fails on chain, visibly). A later check that
// agrees clears it.
import { parseOutputQueue, parseTreeAccount } from '../ledger/index.js';
import type { TreeInfo } from '../state/index.js';
import { toHex32 } from '../zk/field.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import { sleep, type ClusterRpc } from './cluster-rpc.js';
import type { ClusterIndex } from './cluster-index.js';
import type { ClusterFollower } from './follower.js';

interface AccountsAnswer {
  context: { slot: number };
  value: ({ data: [string, string] } | null)[];
}

export interface ConsistencyOptions {
  rpc: ClusterRpc;
  index: ClusterIndex;
  follower: ClusterFollower;
  /** Within this many slots of the cluster's tip, the index counts as caught up. */
  caughtUpSlots: bigint;
  /** The commitment the index follows: the accounts are read at it. */
  commitment: 'finalized' | 'confirmed';
  /** Time between two rounds, ms. */
  intervalMs: number;
  log: Logger;
  metrics?: MetricsRegistry;
}

export class ConsistencyMonitor {
  /** Trees that differ from the cluster's accounts, with what differs. */
  readonly divergent = new Map<string, string>();
  /** Rounds run, and trees compared in all. */
  readonly stats = { rounds: 0, compared: 0 };
  private readonly ac = new AbortController();
  private readonly running: Promise<void>;
  private readonly counter;

  constructor(private readonly o: ConsistencyOptions) {
    this.counter = o.metrics?.counter(
      'zkgate_cluster_divergences_total',
      "Consistency checks in which an indexed tree differed from the cluster's tree account.",
      ['tree'],
    );
    this.running = this.loop();
  }

  private async loop(): Promise<void> {
    const signal = this.ac.signal;
    try {
      for (;;) {
        await sleep(this.o.intervalMs, signal);
        const { follower } = this.o;
        if (follower.indexedSlot < 0n || follower.tipSlot - follower.indexedSlot > this.o.caughtUpSlots) continue;
        await this.round(signal);
      }
    } catch (e) {
      if (!signal.aborted) this.o.log.error('consistency monitor stopped', { error: String((e as Error)?.stack ?? e) });
    }
  }

  /** One comparison of every indexed tree with its account. */
  async round(signal?: AbortSignal): Promise<void> {
    const trees = this.o.index.compression.trees;
    for (const info of trees.listTrees()) {
      const keys = [info.pubkey, ...(info.version === 2 && info.kind === 'state' && info.queue ? [info.queue] : [])];
      const r = await this.o.rpc.call<AccountsAnswer>(
        'getMultipleAccounts',
        [keys, { encoding: 'base64', commitment: this.o.commitment }],
        signal,
      );
      const data = r.value.map((a) => (a ? Buffer.from(a.data[0], 'base64') : undefined));
      const diff = differences(trees.info(info.pubkey), data[0], data[1]);
      if (diff === undefined) continue; // the cluster is ahead of the index for this tree: nothing to say yet
      this.stats.compared++;
      if (diff.length === 0) {
        if (this.divergent.delete(info.pubkey))
          this.o.log.info('consistency monitor: tree agrees with the cluster again', { tree: info.pubkey });
        continue;
      }
      const detail = `${diff.join('; ')} (cluster at slot ${r.context.slot}, index at slot ${this.o.follower.indexedSlot})`;
      if (this.divergent.get(info.pubkey) !== detail)
        this.o.log.error("consistency monitor: indexed tree differs from the cluster's account", {
          tree: info.pubkey,
          detail,
        });
      this.divergent.set(info.pubkey, detail);
      this.counter?.inc([info.pubkey]);
    }
    this.stats.rounds++;
  }

  async stop(): Promise<void> {
    this.ac.abort();
    await this.running;
  }
}

/**
 * What differs between a tree as indexed and its accounts on the cluster: a list (empty when they
 * agree), or undefined when the cluster is ahead and nothing can be said yet.
 */
export function differences(
  info: TreeInfo,
  tree: Buffer | undefined,
  outputQueue: Buffer | undefined,
): string[] | undefined {
  let chain: ReturnType<typeof parseTreeAccount>;
  try {
    chain = tree ? parseTreeAccount('', info.pubkey, tree) : undefined;
  } catch (e) {
    return [`its account does not parse as a Light tree: ${(e as Error).message}`];
  }
  if (!chain) return ['no Light tree account on the cluster'];
  const counters: [string, number | bigint, number | bigint | undefined][] = [
    ['root sequence', info.rootSeq, chain.rootSeq],
    ['next index', info.nextIndex, chain.nextIndex],
  ];
  if (info.version === 2) {
    if (info.kind === 'state') {
      counters.push(['input queue next index', info.inputNext, chain.queueNext]);
      const oq = outputQueue ? parseOutputQueue(outputQueue) : undefined;
      if (!oq) return [`output queue ${info.queue || '(none)'}: no Light queue account on the cluster`];
      counters.push(['output queue next index', info.outputNext, oq.nextIndex]);
    } else counters.push(['address queue next index', info.addressNext, chain.queueNext]);
  }
  const diff: string[] = [];
  let ahead = false;
  for (const [what, ours, theirs] of counters) {
    if (theirs === undefined || BigInt(theirs) === BigInt(ours)) continue;
    if (BigInt(theirs) > BigInt(ours)) ahead = true;
    else diff.push(`${what}: zkgate ${ours}, cluster ${theirs}`);
  }
  if (diff.length === 0 && ahead) return undefined;
  if (chain.rootSeq === info.rootSeq && chain.root !== info.root)
    diff.unshift(`root at sequence ${info.rootSeq}: zkgate ${toHex32(info.root)}, cluster ${toHex32(chain.root)}`);
  return diff;
}
