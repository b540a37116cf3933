// The front's servers: JSON-RPC over HTTP (the dispatcher over the assembled backends) and, with
// the embedded ledger, websocket PubSub on the RPC port + 1, as validators serve it.
import type { Config } from '../config.js';
import type { Ledger } from '../ledger/index.js';
import type { HealthRegistry } from '../obs/health.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import { Hub, PubSubServer } from '../pubsub/index.js';
import type { NodeEndpoints } from '../rpc/methods/solana-cluster.js';
import {
  adminRule,
  createMethodTable,
  createRpcMetrics,
  Dispatcher,
  RateLimiter,
  RpcHttpServer,
  type Backends,
  type LoadedKeys,
} from '../rpc/index.js';
import { connectHost } from './proving.js';

export interface FrontServers {
  rpcUrl: string;
  rpcPort: number;
  pubsub?: { hub?: Hub; server: PubSubServer; port: number };
  /** Stops accepting and lets in-flight requests finish within `ms`; true when they all did. */
  close(ms: number): Promise<boolean>;
}

/** Listens; on a failure, whatever of its own it started is closed again before it throws. */
export async function listenFront({
  config,
  log,
  registry,
  keys,
  backends,
  health,
  version,
  ledger,
  clusterWs,
  endpoints,
}: {
  config: Config;
  log: Logger;
  registry: MetricsRegistry;
  keys: LoadedKeys;
  backends: Backends;
  health: HealthRegistry;
  version: string;
  ledger: Ledger | undefined;
  /** Without a ledger: the followed cluster's websocket, relayed to clients. */
  clusterWs: string | undefined;
  endpoints: NodeEndpoints;
}): Promise<FrontServers> {
  const metrics = createRpcMetrics(registry);
  const rule = adminRule(config.adminKeys, config.host);
  const dispatcher = new Dispatcher(
    createMethodTable(backends, version),
    config.maxBatchSize,
    metrics,
    log,
    { maxDepth: config.maxJsonDepth, maxStringLength: config.maxStringLength },
    rule,
  );
  const server = new RpcHttpServer({
    maxBodyBytes: config.maxBodyBytes,
    requestTimeoutMs: config.requestTimeoutMs,
    keys: keys.keys,
    limiter: new RateLimiter(config.rateLimit, config.rateLimitBurst),
    dispatcher,
    health,
    registry,
    metrics,
    log,
    adminRule: rule,
  });
  const addr = await server.listen(config.rpcPort, config.host);
  const rpcUrl = `http://${connectHost(config.host)}:${addr.port}/`;
  endpoints.rpc = `${connectHost(config.host)}:${addr.port}`;

  // Websocket PubSub on the RPC port + 1, as validators: what clients' confirmation strategies use.
  let pubsub: { hub?: Hub; server: PubSubServer; port: number } | undefined;
  // The ledger's subscriptions, or a followed cluster's websocket relayed.
  const relayTo = ledger ? undefined : clusterWs;
  if (ledger || relayTo) {
    const subscriptions = registry.gauge('zkgate_ws_subscriptions', 'open websocket subscriptions, by method', [
      'method',
    ]);
    const hub = ledger
      ? new Hub(
          ledger,
          { perConnection: config.wsMaxSubscriptionsPerConnection, perKey: config.wsMaxSubscriptionsPerKey },
          { subscribed: (method, delta) => subscriptions.inc([method], delta) },
        )
      : undefined;
    const ps = new PubSubServer({
      ...(hub ? { hub } : { relayTo: relayTo! }),
      keys: keys.keys,
      maxBufferedBytes: config.wsMaxBufferedBytes,
      maxMessageBytes: config.wsMaxMessageBytes,
      maxConnectionsPerKey: config.wsMaxConnectionsPerKey,
      pingIntervalMs: config.wsPingIntervalMs,
      registry,
      log,
    });
    const wsPort = config.wsPort ?? (config.rpcPort === 0 ? 0 : addr.port + 1);
    try {
      pubsub = { ...(hub ? { hub } : {}), server: ps, port: (await ps.listen(wsPort, config.host)).port };
      endpoints.pubsub = `${connectHost(config.host)}:${pubsub.port}`;
    } catch (e) {
      hub?.close();
      await ps.close();
      await server.close(0);
      throw new Error(`cannot listen for websockets on ${config.host}:${wsPort} (--ws-port): ${(e as Error).message}`);
    }
  }

  return {
    rpcUrl,
    rpcPort: addr.port,
    ...(pubsub ? { pubsub } : {}),
    async close(ms: number) {
      const finished = await server.close(ms);
      pubsub?.hub?.close();
      await pubsub?.server.close();
      return finished;
    },
  };
}
