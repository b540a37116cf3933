// The follower's assembly (--cluster-rpc): the cluster's index in the data dir (`cluster/`), the
// block source over the cluster's standard JSON-RPC and the follower applying its blocks; what
// Photon's methods read from that index, and the forwarder of the Solana methods it does not hold.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import {
  ClusterFollower,
  ClusterIndex,
  ClusterMismatchError,
  ConsistencyMonitor,
  LIGHT_PROGRAM_IDS,
  ClusterRpc,
  clusterOrigin,
  RpcBlockSource,
  SlotWatch,
  TreeIncompleteError,
} from '../ingest/index.js';
import { ClusterBank, Ledger } from '../ledger/index.js';
import type { ComponentStatus } from '../obs/health.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { Backends, CompressionIndex } from '../rpc/index.js';
import { forwardTo, upstreamCall } from '../wire/index.js';
import { bigIntToBytes32 } from '../zk/field.js';
import { encodeBase58, loadPoseidon } from '../zk/index.js';

/** Further behind than this (about an hour of slots), the backfill reads only blocks with Light's transactions. */
const SPARSE_FROM_SLOTS = 9000;

/** Behind the cluster by more than this (about a minute of slots), /health says degraded. */
const CAUGHT_UP_SLOTS = 150n;

export interface FollowedCluster {
  /** simulateBundle's bank: a scratch ledger loaded with the cluster's accounts before each bundle. */
  bank: ClusterBank;
  /** The cluster's websocket, which clients' subscriptions are relayed to. */
  ws: string;
  index: ClusterIndex;
  follower: ClusterFollower;
  monitor: ConsistencyMonitor;
  /** Photon's methods over the index. */
  photon: CompressionIndex;
  /** The Solana methods the index does not hold, forwarded. */
  forward: NonNullable<Backends['cluster']>;
  health(): ComponentStatus;
  /** getValidityProof, refused for a tree whose history starts before the index. */
  guard(validity: Backends['validityProof']): Backends['validityProof'];
  close(): Promise<void>;
}

export async function openCluster(config: Config, log: Logger, registry: MetricsRegistry): Promise<FollowedCluster> {
  await loadPoseidon();
  const url = config.clusterRpc;
  const origin = clusterOrigin(url);
  const rpc = new ClusterRpc({ url, timeoutMs: config.upstreamTimeoutMs, log, metrics: registry });
  const index = ClusterIndex.open(join(config.dataDir, 'cluster'), log, registry);
  // A cache of the cluster's accounts, made again at every start.
  const bankDir = join(config.dataDir, 'cluster-bank');
  rmSync(bankDir, { recursive: true, force: true });
  const bank = new ClusterBank(Ledger.open({ dir: bankDir, slotMs: 0 }), url, config.upstreamTimeoutMs);
  const source = new RpcBlockSource({
    rpc,
    commitment: config.clusterCommitment,
    pollMs: Math.max(50, config.clusterPollMs),
    sparse: { programs: LIGHT_PROGRAM_IDS, sparseFromSlots: SPARSE_FROM_SLOTS },
    log,
    metrics: registry,
  });
  const follower = new ClusterFollower({
    rpc,
    source,
    index,
    ...(config.startSlot > 0 ? { startSlot: BigInt(config.startSlot) } : {}),
    log,
    metrics: registry,
  });
  // A data dir of another cluster fails the start; an unreachable cluster does not (it is retried).
  const c = index.checkpoint;
  if (c) {
    const genesis = await upstreamCall(url, 'getGenesisHash', [], config.upstreamTimeoutMs).catch(() => undefined);
    if (typeof genesis === 'string' && genesis !== c.genesisHash) {
      await index.close();
      throw new ClusterMismatchError(
        `the index in ${join(config.dataDir, 'cluster')} follows the cluster with genesis ${c.genesisHash}, and ${origin} has ${genesis}: use another --data-dir`,
      );
    }
  }
  const monitor = new ConsistencyMonitor({
    rpc,
    index,
    follower,
    caughtUpSlots: CAUGHT_UP_SLOTS,
    commitment: config.clusterCommitment,
    intervalMs: Math.max(100, config.clusterCheckMs),
    log,
    metrics: registry,
  });
  const ws = config.clusterWs || websocketOf(url);
  const slots = new SlotWatch(ws, () => source.wake(), log);
  const started = follower.start().catch((e) => {
    follower.failure = e as Error;
    log.error('following the cluster did not start', { cluster: origin, error: (e as Error).message });
  });
  // What ingest and the monitor found, both where both found something of one tree.
  const divergent = () => {
    const all = new Map(index.compression.ingester.divergent);
    for (const [tree, d] of monitor.divergent) all.set(tree, all.has(tree) ? `${all.get(tree)}; ${d}` : d);
    return all;
  };
  const guard = (tree: string) => {
    const why = index.refusal(tree);
    if (why) throw new TreeIncompleteError(why);
  };
  const forward = (method: string, params: unknown[]) => forwardTo(url, method, config.upstreamTimeoutMs)(params);
  return {
    bank,
    ws,
    index,
    follower,
    monitor,
    photon: {
      store: index.compression.store,
      trees: index.compression.trees,
      slot: () => (follower.indexedSlot < 0n ? 0n : follower.indexedSlot),
      divergent,
      guard,
      transaction: (signature) =>
        forward('getTransaction', [
          encodeBase58(signature),
          { encoding: 'base64', maxSupportedTransactionVersion: 0, commitment: 'finalized' },
        ]),
    },
    forward: { forward },
    guard: (validity) =>
      validity && {
        async getValidityProof(req) {
          for (const h of req.hashes) {
            const account = index.compression.store.account(bigIntToBytes32(h));
            if (account) guard(account.tree);
            else {
              // Not found: where trees are known to hold leaves this index never saw, it may be one of theirs.
              const incomplete = [...index.compression.ingester.incomplete.keys()].sort();
              if (incomplete.length > 0)
                throw new TreeIncompleteError(
                  `account ${encodeBase58(bigIntToBytes32(h))} is not in this index, which starts at slot ${index.checkpoint?.startSlot ?? '?'}; trees ${incomplete.join(', ')} hold leaves it never saw, and the account may be one of those. Follow the cluster from an earlier --start-slot with an empty data dir`,
                );
            }
          }
          for (const a of req.addresses) guard(a.tree);
          return validity.getValidityProof(req);
        },
      },
    health: () => {
      if (follower.failure)
        return { status: 'unavailable', detail: `not following ${origin}: ${follower.failure.message}` };
      if (follower.indexedSlot < 0n)
        return { status: 'unavailable', detail: `connecting to ${origin}: nothing indexed yet` };
      const lag = follower.tipSlot - follower.indexedSlot;
      const detail = `indexed through slot ${follower.indexedSlot} of ${origin}, ${lag} slots behind its newest ${config.clusterCommitment} slot`;
      const bad = divergent();
      if (bad.size > 0)
        return {
          status: 'degraded',
          detail: `${detail}; indexed trees differ from the cluster's accounts: ${[...bad].map(([t, d]) => `${t} (${d})`).join('; ')}`,
        };
      const failing = rpc.failing;
      if (failing)
        return { status: 'degraded', detail: `${detail}; its RPC is failing (${failing}), retried with backoff` };
      return lag > CAUGHT_UP_SLOTS ? { status: 'degraded', detail } : { status: 'ready', detail };
    },
    async close() {
      slots.stop();
      await monitor.stop();
      await follower.stop();
      await started;
      await index.close();
      await bank.ledger.close();
    },
  };
}

/** The websocket of an RPC URL as web3.js derives it: ws(s), the port + 1 where one is given. */
export function websocketOf(rpc: string): string {
  const u = new URL(rpc);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  if (u.port) u.port = String(Number(u.port) + 1);
  return u.toString();
}
