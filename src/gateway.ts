// The composition root: builds the adapter, the prover role (gRPC services, worker pool, Light's
// /prove API) and the backends from a Config, and stops them in order. `--role` picks the parts:
// all (default), rpc (adapter only, prover elsewhere via --prover-url) or prover (no JSON-RPC).
// Each part is its own assembly (gateway/): the embedded chain, the proving side, the backends,
// health, the front's servers. Tests start whole gateways through here on ephemeral ports.
import { mkdir } from 'node:fs/promises';
import type { Config } from './config.js';
import { closeHealthClients } from './grpc/index.js';
import type { HealthRegistry } from './obs/health.js';
import type { Logger } from './obs/log.js';
import { MetricsRegistry, registerProcessMetrics } from './obs/metrics.js';
import type { Prover } from './prover/index.js';
import type { Hub } from './pubsub/index.js';
import { loadApiKeys, type Backends, type LoadedKeys } from './rpc/index.js';
import type { NodeEndpoints } from './rpc/methods/solana-cluster.js';
import { assembleBackends } from './gateway/backends.js';
import { openLedger, type EmbeddedChain } from './gateway/chain.js';
import { openCluster, type FollowedCluster } from './gateway/cluster.js';
import { frontHealth, proverHealth } from './gateway/health.js';
import { connectHost as connectHostOf, startProving, type ProvingSide } from './gateway/proving.js';
import { listenFront } from './gateway/serve.js';

export type { EmbeddedChain } from './gateway/chain.js';
export { warmUpHealth } from './gateway/health.js';

export interface GatewayOptions {
  config: Config;
  log: Logger;
  version: string;
  backends?: Backends;
  /**
   * Whether role all/prover runs the prover here (default true). Adapter-only tests turn it off,
   * leaving getValidityProof unconfigured unless `backends` provides one.
   */
  embeddedProver?: boolean;
  /** Whether role all/rpc opens the embedded ledger (simulateBundle, Solana RPC subset); default true. */
  embeddedLedger?: boolean;
}

export interface Gateway {
  /** Base URL of the JSON-RPC endpoint, without the key. */
  readonly rpcUrl: string;
  readonly rpcPort: number;
  /** Base URL of the websocket PubSub endpoint (with the embedded ledger), without the key. */
  readonly wsUrl?: string;
  /** The websocket subscriptions, with the embedded ledger. */
  readonly pubsub?: Hub;
  readonly grpcAddress: string;
  /** The token this process's gRPC services require (--grpc-token or the data dir's), when it serves them. */
  readonly grpcToken?: string;
  readonly proverAddress: string;
  /** The prover role when this process runs it. */
  readonly prover?: Prover;
  /** The embedded ledger with what it feeds, when this process runs it. */
  readonly chain?: EmbeddedChain;
  /** The followed cluster's index, follower and consistency monitor (--cluster-rpc). */
  readonly cluster?: FollowedCluster;
  /** Port of Light's /prove API when this process serves it. */
  readonly provePort?: number;
  readonly keys: LoadedKeys;
  readonly health: HealthRegistry;
  /** Graceful stop; resolves true when every in-flight request finished within the shutdown timeout. */
  stop(): Promise<boolean>;
}

export async function startGateway({
  config,
  log,
  version,
  backends: given = {},
  embeddedProver = true,
  embeddedLedger = true,
}: GatewayOptions): Promise<Gateway> {
  await mkdir(config.dataDir, { recursive: true });
  const keys = await loadApiKeys(config.apiKeys, config.dataDir, config.adminKeys);
  const registry = new MetricsRegistry();
  registerProcessMetrics(registry);

  // Opened first: a bad fixture fails the start before any server is up. A follower of a cluster
  // indexes that cluster instead of running a ledger.
  const cluster = config.clusterRpc && config.role !== 'prover' ? await openCluster(config, log, registry) : undefined;
  const chain =
    config.role !== 'prover' && embeddedLedger && !given.chain && !cluster
      ? await openLedger(config, log, registry)
      : undefined;
  const trees = chain?.compression.trees ?? cluster?.index.compression.trees;
  let proving: ProvingSide;
  try {
    // A follower's preloads wait for its backfill: keys and their trial proofs would take its
    // cores, and no proof of the cluster's current state can be made before it ends anyway.
    const caughtUp = cluster?.writing()?.follower.caughtUp;
    const warmAfter = caughtUp && {
      until: caughtUp,
      what: "the index to reach the cluster's tip (the backfill has the cores first)",
    };
    proving = await startProving({ config, log, registry, chain, trees, given, embeddedProver, warmAfter });
  } catch (e) {
    await chain?.ledger.close();
    await cluster?.close();
    throw e;
  }
  const stopParts = async (ms: number) => {
    await proving.stop(ms);
    chain?.fetcher.close();
    await chain?.ledger.close();
    await cluster?.close();
    closeHealthClients();
  };
  const { prover, grpc, grpcToken, proverAddress } = proving;

  if (config.role === 'prover') {
    log.info('prover role started', { grpc: grpc.address, provePort: prover?.provePort });
    let stopping: Promise<boolean> | undefined;
    return {
      rpcUrl: '',
      rpcPort: 0,
      grpcAddress: grpc.address,
      ...(grpcToken ? { grpcToken } : {}),
      proverAddress,
      ...(prover ? { prover, provePort: prover.provePort! } : {}),
      keys,
      health: proverHealth(proving.monitor),
      stop: () => (stopping ??= stopParts(config.shutdownTimeoutMs).then(() => true)),
    };
  }

  const endpoints: NodeEndpoints = {};
  const validity = cluster ? cluster.guard(proving.validity) : proving.validity;
  const backends = assembleBackends({ config, version, chain, cluster, given, validity, endpoints });
  const health = frontHealth(proving, backends, chain, cluster);
  let front;
  try {
    front = await listenFront({
      config,
      log,
      registry,
      keys,
      backends,
      health,
      version,
      ledger: chain?.ledger,
      clusterWs: cluster?.ws,
      endpoints,
    });
  } catch (e) {
    await stopParts(0);
    throw e;
  }

  let stopping: Promise<boolean> | undefined;
  const stop = (): Promise<boolean> =>
    (stopping ??= (async () => {
      const started = Date.now();
      const finished = await front.close(config.shutdownTimeoutMs);
      await stopParts(Math.max(0, config.shutdownTimeoutMs - (Date.now() - started)));
      return finished;
    })());

  const { pubsub } = front;
  return {
    rpcUrl: front.rpcUrl,
    rpcPort: front.rpcPort,
    ...(pubsub ? { wsUrl: `ws://${connectHostOf(config.host)}:${pubsub.port}/` } : {}),
    ...(pubsub?.hub ? { pubsub: pubsub.hub } : {}),
    grpcAddress: grpc.address,
    ...(grpcToken ? { grpcToken } : {}),
    proverAddress,
    ...(prover ? { prover, provePort: prover.provePort! } : {}),
    ...(proving.frontHttp ? { provePort: proving.frontHttp.port } : {}),
    ...(chain ? { chain } : {}),
    ...(cluster ? { cluster } : {}),
    keys,
    health,
    stop,
  };
}
