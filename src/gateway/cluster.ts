// The follower's assembly (--cluster-rpc): the cluster's index in the data dir (`cluster/`), the
// block source over the cluster's standard JSON-RPC and the follower applying its blocks; what
// Photon's methods read from that index, and the forwarder of the Solana methods it does not hold.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RootDatabase } from 'lmdb';
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
import { migrate, PgRoot, SyncPg, WriterLease } from '../pg/index.js';
import { VERSION } from '../version.js';
import { forwardTo, upstreamCall } from '../wire/index.js';
import { Prefetcher } from '../ingest/prefetch.js';
import { bigIntToBytes32 } from '../zk/field.js';
import { encodeBase58, loadPoseidon } from '../zk/index.js';

/** Further behind than this (about an hour of slots), the backfill reads only blocks with Light's transactions. */
const SPARSE_FROM_SLOTS = 9000;

/**
 * getBlock calls made ahead of the follower: 8 under way (as many as it has itself), up to 256
 * blocks or 64 MB of answers waiting (a busy mainnet block is a few MB as base64).
 */
const PREFETCH = { concurrency: 8, maxAhead: 256, maxBytes: 64 << 20 };

/** Behind the cluster by more than this (about a minute of slots), /health says degraded. */
const CAUGHT_UP_SLOTS = 150n;

export interface FollowedCluster {
  /** simulateBundle's bank: a scratch ledger loaded with the cluster's accounts before each bundle. */
  bank: ClusterBank;
  /** The cluster's websocket, which clients' subscriptions are relayed to. */
  ws: string;
  index: ClusterIndex;
  /** Where the index is, for the start banner: the data dir's `cluster/`, or the index database (password redacted). */
  where: string;
  /** The cluster's origin (never its URL with a key). */
  origin: string;
  /** Photon's methods over the index. */
  photon: CompressionIndex;
  /** The Solana methods the index does not hold, forwarded. */
  forward: NonNullable<Backends['cluster']>;
  health(): ComponentStatus;
  /** This process's follower and monitor while it writes the index (always, without --index-db). */
  writing(): Writing | undefined;
  /** getValidityProof, refused for a tree whose history starts before the index. */
  guard(validity: Backends['validityProof']): Backends['validityProof'];
  close(): Promise<void>;
}

/** With --index-db, how often a process that does not write tries to become the writer, and the writer checks it still is. */
const LEASE_MS = 1000;

/** This process's part in writing the index: the block source, the follower applying it, the monitor. */
export interface Writing {
  follower: ClusterFollower;
  monitor: ConsistencyMonitor;
  slots: SlotWatch;
  started: Promise<void>;
  prefetch: Prefetcher;
}

/** The index database (--index-db): its connections, its schema brought up to date, the tables. */
function openIndexDb(config: Config, registry: MetricsRegistry): { sync: SyncPg; root: PgRoot } {
  const calls = registry.histogram(
    'zkgate_index_db_call_seconds',
    'Round trips to the index database waited for (reads, commits), by outcome.',
    ['outcome'],
  );
  const commits = registry.histogram(
    'zkgate_index_db_commit_seconds',
    "The writer's commits to the index database (a run of blocks, or a block, with the checkpoint).",
  );
  const sync = new SyncPg({
    url: config.indexDb,
    timeoutMs: config.indexDbTimeoutMs,
    applicationName: 'zkgate',
    onAnswer: (ms, failed) => calls.observe(ms / 1000, [failed ? 'failed' : 'ok']),
  });
  try {
    migrate(sync, VERSION);
    const root = new PgRoot(sync);
    root.onCommit = (ms) => commits.observe(ms / 1000);
    return { sync, root };
  } catch (e) {
    sync.close();
    throw e;
  }
}

export async function openCluster(config: Config, log: Logger, registry: MetricsRegistry): Promise<FollowedCluster> {
  await loadPoseidon();
  const url = config.clusterRpc;
  const origin = clusterOrigin(url);
  const rpc = new ClusterRpc({ url, timeoutMs: config.upstreamTimeoutMs, log, metrics: registry });
  const db = config.indexDb ? openIndexDb(config, registry) : undefined;
  const where = db ? db.sync.where : join(config.dataDir, 'cluster');
  let index: ClusterIndex;
  try {
    index = db
      ? ClusterIndex.openOn(db.root as unknown as RootDatabase, log, registry, (fn) => db.root.savepoint(fn))
      : ClusterIndex.open(where, log, registry);
  } catch (e) {
    db?.sync.close();
    throw e;
  }
  // A cache of the cluster's accounts, made again at every start.
  const bankDir = join(config.dataDir, 'cluster-bank');
  rmSync(bankDir, { recursive: true, force: true });
  const bank = new ClusterBank(() => Ledger.open({ dir: bankDir, slotMs: 0 }), url, config.upstreamTimeoutMs);
  // An index of another cluster fails the start; an unreachable cluster does not (it is retried).
  const c = index.checkpoint;
  if (c) {
    const genesis = await upstreamCall(url, 'getGenesisHash', [], config.upstreamTimeoutMs).catch(() => undefined);
    if (typeof genesis === 'string' && genesis !== c.genesisHash) {
      await index.close();
      await bank.close();
      throw new ClusterMismatchError(
        `the index in ${where} follows the cluster with genesis ${c.genesisHash}, and ${origin} has ${genesis}: use another ${db ? '--index-db' : '--data-dir'}`,
      );
    }
  }
  const ws = config.clusterWs || websocketOf(url);

  // Made again each time this process takes the lease (--index-db): its metrics are the same series.
  const writerMetrics = registry.again();
  const startWriting = (): Writing => {
    const prefetch = new Prefetcher({ url, timeoutMs: config.upstreamTimeoutMs, ...PREFETCH });
    const source = new RpcBlockSource({
      rpc,
      commitment: config.clusterCommitment,
      pollMs: Math.max(50, config.clusterPollMs),
      sparse: { programs: LIGHT_PROGRAM_IDS, sparseFromSlots: SPARSE_FROM_SLOTS },
      prefetch,
      log,
      metrics: writerMetrics,
    });
    const follower = new ClusterFollower({
      rpc,
      source,
      index,
      ...(config.startSlot > 0 ? { startSlot: BigInt(config.startSlot) } : {}),
      log,
      metrics: writerMetrics,
    });
    const monitor = new ConsistencyMonitor({
      rpc,
      index,
      follower,
      caughtUpSlots: CAUGHT_UP_SLOTS,
      commitment: config.clusterCommitment,
      intervalMs: Math.max(100, config.clusterCheckMs),
      log,
      metrics: writerMetrics,
    });
    const slots = new SlotWatch(ws, () => source.wake(), log);
    const started = follower.start().catch((e) => {
      follower.failure = e as Error;
      log.error('following the cluster did not start', { cluster: origin, error: (e as Error).message });
    });
    return { follower, monitor, slots, started, prefetch };
  };
  const stopWriting = async (w: Writing) => {
    w.slots.stop();
    await w.monitor.stop();
    await w.follower.stop();
    await w.started;
    w.prefetch.close();
  };

  // Without --index-db this process writes its own index. With it, the process holding the
  // writer's lease writes and the others serve what it wrote, each trying to take over.
  let writing: Writing | undefined = db ? undefined : startWriting();
  let closing = false;
  let leaseTimer: NodeJS.Timeout | undefined;
  let dbFailure: string | undefined;
  if (db) {
    registry.gauge(
      'zkgate_index_db_writer',
      'Whether this process writes the shared index (1) or serves it (0).',
      [],
      () => (writing ? 1 : 0),
    );
    const lease = new WriterLease(db.sync);
    const tick = async () => {
      try {
        if (!writing) {
          if (lease.tryAcquire()) {
            db.root.fenceCommits(lease.fence);
            index.reloadIncomplete();
            writing = startWriting();
            log.info('this process writes the shared index', { indexDb: db.sync.where, cluster: origin });
          }
        } else if (writing.follower.failure || !lease.held()) {
          const w = writing;
          writing = undefined;
          log.warn('this process stops writing the shared index', {
            indexDb: db.sync.where,
            reason: w.follower.failure?.message ?? 'its lease was lost (its connection to the index database was cut)',
          });
          await stopWriting(w);
          lease.release();
        }
        if (dbFailure) log.info('the index database answers again', { indexDb: db.sync.where });
        dbFailure = undefined;
      } catch (e) {
        if (!dbFailure)
          log.warn('the index database does not answer', { indexDb: db.sync.where, error: (e as Error).message });
        dbFailure = (e as Error).message;
      } finally {
        if (!closing) leaseTimer = setTimeout(() => void tick(), LEASE_MS);
      }
    };
    await tick();
  }

  // What ingest and the monitor found, both where both found something of one tree.
  const divergent = () => {
    const all = new Map(index.compression.ingester.divergent);
    for (const [tree, d] of writing?.monitor.divergent ?? [])
      all.set(tree, all.has(tree) ? `${all.get(tree)}; ${d}` : d);
    for (const tree of index.incompleteTrees().keys())
      if (!all.has(tree)) all.set(tree, 'it holds leaves this index never saw');
    return all;
  };
  const guard = (tree: string) => {
    const why = index.refusal(tree);
    if (why) throw new TreeIncompleteError(why);
  };
  const indexedSlot = () => index.checkpoint?.slot ?? -1n;
  const forward = (method: string, params: unknown[]) => forwardTo(url, method, config.upstreamTimeoutMs)(params);
  return {
    bank,
    ws,
    index,
    where,
    origin,
    photon: {
      store: index.compression.store,
      trees: index.compression.trees,
      slot: () => {
        const s = indexedSlot();
        return s < 0n ? 0n : s;
      },
      divergent,
      guard,
      transaction: (signature) =>
        forward('getTransaction', [
          encodeBase58(signature),
          { encoding: 'base64', maxSupportedTransactionVersion: 0, commitment: 'finalized' },
        ]),
    },
    forward: { forward },
    writing: () => writing,
    guard: (validity) =>
      validity && {
        async getValidityProof(req) {
          for (const h of req.hashes) {
            const account = index.compression.store.account(bigIntToBytes32(h));
            if (account) guard(account.tree);
            else {
              // Not found: where trees are known to hold leaves this index never saw, it may be one of theirs.
              const incomplete = [...index.incompleteTrees().keys()].sort();
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
      if (db) {
        try {
          db.sync.query('reader', [{ sql: 'SELECT 1' }]);
        } catch (e) {
          // Degraded, not unavailable: the cluster's own methods are still forwarded and bundles
          // simulated; the index's fail at once (-32019). Every front shares the database, so a
          // load balancer taking them out for it would take the whole service down.
          return {
            status: 'degraded',
            detail: `the index database ${db.sync.where} does not answer (the index's methods fail with -32019): ${(e as Error).message}`,
          };
        }
        if (!writing) {
          const s = indexedSlot();
          return s < 0n
            ? { status: 'unavailable', detail: `the shared index in ${db.sync.where} has nothing of ${origin} yet` }
            : {
                status: 'ready',
                detail: `serving the shared index in ${db.sync.where}, indexed through slot ${s} of ${origin} by the process that writes it`,
              };
        }
      }
      const follower = writing!.follower;
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
      closing = true;
      clearTimeout(leaseTimer);
      if (writing) await stopWriting(writing);
      await index.close();
      await bank.close();
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
