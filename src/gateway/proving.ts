// The proving side's assembly: the prover role (worker pool, gRPC services, Light's /prove), the
// Redis queue (a host's worker, a front's QueueProver and its /prove), the forester on the embedded
// chain, and the client the adapter proves through (one prover, a balanced set, or the queue).
import { availableParallelism, hostname } from 'node:os';
import { ConfigError, proverUrls, type Config } from '../config.js';
import {
  checkHealth,
  proverChannel,
  serverToken,
  startGrpcServer,
  type ChannelSecurity,
  type GrpcServer,
} from '../grpc/index.js';
import { ShippedProgram } from '../ledger/index.js';
import { isLoopback } from '../util/loopback.js';
import { startForester } from '../forester/index.js';
import { SHAPES } from '../zk/index.js';
import {
  BalancedProverClient,
  buildOnDemandShapes,
  frontBuildRights,
  ProverClient,
  RemoteWitnessProver,
  explicitShape,
  grpcWitnessProving,
  startLightHttp,
  startProver,
  type Prover,
  type ProvingClient,
  type WitnessProving,
  type WarmUpWait,
} from '../prover/index.js';
import {
  HOST_INTAKE,
  HOST_KINDS,
  hostJobProver,
  JobQueue,
  QueueMonitor,
  QueueProver,
  QueueWorker,
  reap,
} from '../queue/index.js';
import type { Logger } from '../obs/log.js';
import type { TreeStore } from '../state/index.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { Backends } from '../rpc/index.js';
import { admitProofs, type ProofAdmissionLimits } from '../rpc/proof-admission.js';
import { installKey, installKeys, queuedBatches, verifierOf, type EmbeddedChain } from './chain.js';

export interface ProvingSide {
  prover?: Prover;
  queue?: JobQueue;
  monitor?: QueueMonitor;
  /** A front without a prover of its own proves through the queue. */
  queued?: QueueProver;
  grpc: GrpcServer;
  /** The token this process's gRPC services require, when it serves them. */
  grpcToken?: string;
  channel: ChannelSecurity;
  proverAddress: string;
  /** Light's /prove on a front that proves through the queue. */
  frontHttp?: { port: number };
  balancer?: BalancedProverClient;
  client?: ProvingClient;
  /** getValidityProof as the adapter calls it, when this process can answer it. */
  validity?: NonNullable<Backends['validityProof']>;
  /** Stops every part, in order; `ms` is what in-flight gRPC calls may still take. */
  stop(ms: number): Promise<void>;
}

export async function startProving({
  config,
  log,
  registry,
  chain,
  trees,
  given,
  embeddedProver,
  warmAfter,
}: {
  config: Config;
  log: Logger;
  registry: MetricsRegistry;
  chain: EmbeddedChain | undefined;
  /** The trees proofs are for: the embedded chain's, or a followed cluster's index's. */
  trees: TreeStore | undefined;
  given: Backends;
  embeddedProver: boolean;
  /** See ProverHooks.warmAfter. */
  warmAfter: WarmUpWait | undefined;
}): Promise<ProvingSide> {
  // What a client's request that comes in here may have built (--build-on-demand, by where this
  // process is reachable): carried to whichever prover proves it, gRPC or queue host, which builds
  // no more than that (a prover on loopback behind a public front never decides by its own address).
  const frontLoopback = isLoopback(config.host) && isLoopback(config.proverHost || config.host);
  let requestBuilds: ReadonlySet<string>;
  let adminBuilds: ReadonlySet<string>;
  try {
    requestBuilds = buildOnDemandShapes(config.buildOnDemand, frontLoopback);
    adminBuilds = buildOnDemandShapes(config.buildOnDemand, true);
  } catch (e) {
    throw new ConfigError(`--build-on-demand: ${(e as Error).message}`);
  }
  const buildRights = frontBuildRights(config.buildOnDemand, frontLoopback);
  let prover: Prover | undefined;
  let queue: JobQueue | undefined;
  try {
    if (config.queue)
      queue = await JobQueue.open({
        url: config.queue,
        format: config.queueFormat,
        leaseMs: config.queueLeaseMs,
        maxAttempts: config.queueAttempts,
        resultTtlS: config.queueResultTtlS,
        maxDepth: config.queueMaxJobs,
        log,
      });
    prover =
      config.role !== 'rpc' && embeddedProver
        ? await startProver(config, log, registry, {
            ...(chain
              ? {
                  onKey: (k) => installKey(chain, { shape: k.shape.name, sha256: k.entry.sha256, vk: k.vk }),
                }
              : {}),
            ...(trees ? { store: trees } : {}),
            ...(warmAfter ? { warmAfter } : {}),
          })
        : undefined;
    // Keys built in earlier runs: their shapes verify on the ledger from the start.
    if (chain && prover) installKeys(chain, prover.keys.usableVerificationKeys());
    if (chain?.lightSystem instanceof ShippedProgram)
      log.info("Light's system program as shipped: these shapes' proofs verify on the ledger", {
        file: chain.lightSystem.file,
        shapes: SHAPES.map((x) => x.name).filter((n) => chain.lightSystem.keyId(n) !== undefined),
      });
    if (chain?.lightPackage && config.forester === 'on')
      log.info(
        "forester: not started: Light's programs run as shipped (--light-package), and their account-compression program verifies none of zkgate's batch keys",
        { package: chain.lightPackage },
      );
    if (chain && (prover || queue) && config.forester === 'on' && !chain.lightPackage)
      chain.forester = startForester({
        ledger: chain.ledger,
        trees: chain.compression.trees,
        ...(prover
          ? {
              prove: async (circuit, inputs) => (await prover!.service.proveBatch(circuit, inputs)).compressed,
              preload: (circuits) => prover!.service.preload(circuits, 'forester'),
            }
          : { prove: queuedBatches(chain, new QueueProver(queue!, config.proofTimeoutMs)) }),
        keypair: chain.foresterKey,
        log,
        metrics: registry,
      });
  } catch (e) {
    queue?.close();
    await prover?.close();
    throw e;
  }
  const proverHost = config.proverHost || config.host;
  const tls = config.grpcTlsCert ? { certFile: config.grpcTlsCert, keyFile: config.grpcTlsKey } : undefined;
  let grpc: GrpcServer;
  let channel: ChannelSecurity;
  // Only a process serving the prover's services has a token of its own to require.
  let grpcToken: string | undefined;
  try {
    grpcToken = prover ? await serverToken(config.grpcToken, config.dataDir) : undefined;
    grpc = await startGrpcServer(proverHost, config.grpcPort, log, prover?.grpcServices ?? [], {
      ...(tls ? { tls } : {}),
      ...(grpcToken ? { token: grpcToken } : {}),
    });
    channel = proverChannel({ ...config, grpcToken: grpcToken ?? '' });
    if (prover) await prover.startHttp(proverHost, queue);
  } catch (e) {
    await grpc!?.close(0);
    queue?.close();
    await prover?.close();
    throw e;
  }
  // The queue's sides: a host claims jobs for its prover; a front without one proves through it.
  const monitor = queue ? new QueueMonitor(queue, registry) : undefined;
  const worker =
    queue && prover
      ? new QueueWorker({
          queue,
          // The machine's name: per-host counts and metric series stay one per host across restarts
          // (each claim holds its own lease token).
          host: hostname(),
          kinds: HOST_KINDS,
          ...(queue.lightLists ? { intake: HOST_INTAKE } : {}),
          slots: config.queueSlots || prover.pool.threads + 1,
          prove: hostJobProver(prover.service, queue, config.proofTimeoutMs),
          log,
          metrics: registry,
          leaseMs: config.queueLeaseMs,
        })
      : undefined;
  const queued =
    queue && !prover
      ? new QueueProver(queue, config.proofTimeoutMs, (shape, admin) =>
          (admin ? adminBuilds : requestBuilds).has(shape.name),
        )
      : undefined;
  let reaper: NodeJS.Timeout | undefined;
  let frontHttp: Awaited<ReturnType<typeof startLightHttp>> | undefined;
  if (queue && queued) {
    reaper = setInterval(() => void reap(queue, log), Math.max(250, config.queueLeaseMs / 2));
    reaper.unref();
    if (!trees && !given.validityProof) {
      queue.close();
      await grpc.close(0);
      throw new ConfigError(
        '--role rpc --queue needs the embedded ledger (or --cluster-rpc): its trees give the witnesses the queue proves',
      );
    }
    try {
      // Light's /prove API on the front too: every proof through the queue.
      frontHttp = await startLightHttp({
        host: proverHost,
        port: config.provePort,
        prove: (req, run) => queued.prove(req, explicitShape(req), run),
        mayBuild: (shape) => requestBuilds.has(shape),
        apiKey: config.proverApiKey,
        corsOrigins: config.proveCorsOrigins,
        timeoutMs: config.proofTimeoutMs,
        log,
        jobs: queue,
      });
    } catch (e) {
      clearInterval(reaper);
      monitor?.close();
      queue.close();
      await grpc.close(0);
      throw e;
    }
  }
  const remotes = proverUrls(config.proverUrl);
  const proverAddress = remotes[0] ?? `${connectHost(proverHost)}:${grpc.port}`;
  // A call's deadline covers a wait for its key's build, the proof and the transport.
  const clientOf = (address: string) =>
    new ProverClient(address, config.keyBuildWaitMs + config.proofTimeoutMs + 1000, channel, buildRights);
  let balancer: BalancedProverClient | undefined;
  if (remotes.length > 1 && !given.validityProof) {
    // The provers' own trees are not kept alike: only proofs of witnesses built here may go to any.
    if (!trees) {
      await grpc.close(0);
      throw new ConfigError(
        'several --prover-url need the embedded ledger (or --cluster-rpc): its trees give the witnesses that any of the provers may prove',
      );
    }
    balancer = new BalancedProverClient(
      remotes.map((address) => ({ address, client: clientOf(address) })),
      { check: (address) => checkHealth(address, '', 1000, channel), log, metrics: registry },
    );
  }
  const client: ProvingClient | undefined =
    !given.validityProof && !queued && (prover || remotes.length > 0)
      ? (balancer ?? clientOf(proverAddress))
      : undefined;
  // Connected now rather than at the first request; a prover that is not up yet is reached later.
  void client?.warm().then((ok) => {
    if (!ok) log.debug('prover channel not connected at start', { proverAddress });
  });
  const validity =
    client || (queued && !given.validityProof)
      ? admitProofs(
          arrivingAt(prover, validityBackend(client, trees, chain, prover, queued)),
          proofLimits(config, prover?.pool.threads),
          registry,
        )
      : undefined;
  return {
    ...(prover ? { prover } : {}),
    ...(queue ? { queue } : {}),
    ...(monitor ? { monitor } : {}),
    ...(queued ? { queued } : {}),
    grpc,
    ...(grpcToken ? { grpcToken } : {}),
    channel,
    proverAddress,
    ...(frontHttp ? { frontHttp } : {}),
    ...(balancer ? { balancer } : {}),
    ...(client ? { client } : {}),
    ...(validity ? { validity } : {}),
    async stop(ms: number) {
      await chain?.forester?.stop();
      await frontHttp?.close();
      clearInterval(reaper);
      await worker?.stop();
      monitor?.close();
      queue?.close();
      await grpc.close(ms);
      client?.close();
      await prover?.close();
    },
  };
}

/**
 * The prover as the adapter uses it. Here (role all) the prover reads the trees itself; with a
 * remote prover and trees here (role rpc), witnesses are built from these trees and proved
 * remotely. On the embedded ledger, the remote key's verification key is installed into its Light
 * program before the proof is returned; a followed cluster's programs hold their own keys.
 */
function validityBackend(
  client: ProvingClient | undefined,
  trees: TreeStore | undefined,
  chain: EmbeddedChain | undefined,
  prover: Prover | undefined,
  queued: QueueProver | undefined,
): NonNullable<Backends['validityProof']> {
  if (client && (!trees || prover)) return client;
  const remote: WitnessProving = queued ?? grpcWitnessProving(client!);
  return new RemoteWitnessProver(trees!, remote, async (circuit, keySha256, fetchVk) => {
    if (chain && verifierOf(chain, circuit).keyId(circuit) !== keySha256)
      installKey(chain, { shape: circuit, sha256: keySha256, vk: await fetchVk() });
  });
}

/**
 * With the prover in this process, a client's proof request is the prover's work from its arrival
 * here: background key builds stand still from then, not only from the gRPC hop's far end.
 */
function arrivingAt(
  prover: Prover | undefined,
  backend: NonNullable<Backends['validityProof']>,
): NonNullable<Backends['validityProof']> {
  if (!prover) return backend;
  return {
    async getValidityProof(req) {
      const done = prover.pool.incoming();
      try {
        return await backend.getValidityProof(req);
      } finally {
        done();
      }
    },
  };
}

/**
 * What the prover admits at most (its workers, plus its queue or one key's share of it), as this
 * process's options say: the adapter sheds the rest before calling it (proof-admission.ts).
 */
function proofLimits(config: Config, localWorkers: number | undefined): ProofAdmissionLimits {
  const workers = localWorkers ?? (config.proverThreads || availableParallelism());
  const share = config.proverQueuePerKey || Math.ceil(config.proverQueue / 2);
  return { perCaller: workers + Math.max(1, share), total: workers + config.proverQueue };
}

/** Where a client on this machine reaches a server bound to `host`. */
export function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
