// The composition root: builds the adapter, the prover role (gRPC services, worker pool, Light's
// /prove API) and the backends from a Config, and stops them in order. `--role` picks the parts:
// all (default), rpc (adapter only, prover elsewhere via --prover-url) or prover (no JSON-RPC).
// Tests start whole gateways through here on ephemeral ports.
import { mkdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { availableParallelism, hostname } from 'node:os';
import { ConfigError, proverUrls, type Config } from './config.js';
import {
  checkHealth,
  closeHealthClients,
  proverChannel,
  serverToken,
  startGrpcServer,
  type ChannelSecurity,
  type GrpcServer,
} from './grpc/index.js';
import { HealthRegistry, type ComponentStatus } from './obs/health.js';
import { join, resolve } from 'node:path';
import {
  bootstrapLocalnetTrees,
  checkLightPackage,
  ForkSource,
  genesisAccountsDir,
  LIGHT_IDS,
  ACCOUNT_COMPRESSION_PROGRAM_FILE,
  accountCompressionProgram,
  LIGHT_SYSTEM_PROGRAM_FILE,
  Ledger,
  lightLocalnet,
  lightSystemProgram,
  readAccountDir,
  readProgramSpec,
  LIGHT_SYSTEM_PROGRAM_ID,
  ShippedProgram,
  type ProgramFixture,
  type VerifierProgram,
} from './ledger/index.js';
import { writeFileAtomicSync } from './util/atomic-file.js';
import { isLoopback } from './util/loopback.js';
import {
  alignRegistryEpochs,
  foresterGenesisAccounts,
  foresterKeypair,
  queueStatuses,
  startForester,
  type Forester,
} from './forester/index.js';
import type { Keypair } from './ledger/tx-build.js';
import { openCompression, type Compression } from './compression/index.js';
import {
  BATCH_SHAPES,
  decodeBase58,
  encodeBase58,
  loadPoseidon,
  SHAPES,
  solanaVerifyingKeyBytes,
  type SnarkjsVerificationKey,
} from './zk/index.js';
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
  type WarmUpState,
  type WitnessProving,
} from './prover/index.js';
import { AssetIndex, AssetQueries, AssetSignatures, getAsset, MetadataFetcher, PriceSource } from './das/index.js';
import {
  HOST_INTAKE,
  HOST_KINDS,
  hostJobProver,
  JobQueue,
  QueueMonitor,
  QueueProver,
  QueueWorker,
  reap,
} from './queue/index.js';
import { compressProof, type CompressedProof } from './zk/proof-format.js';
import type { GetAssetParams } from './rpc/methods/get-asset.js';
import { BundleSimulator } from './sim/index.js';
import { forwardTo } from './wire/index.js';
import { Hub, PubSubServer } from './pubsub/index.js';
import type { NodeEndpoints } from './rpc/methods/solana-cluster.js';
import type { Logger } from './obs/log.js';
import { MetricsRegistry, registerProcessMetrics } from './obs/metrics.js';
import {
  createMethodTable,
  createRpcMetrics,
  adminRule,
  Dispatcher,
  loadApiKeys,
  RateLimiter,
  RpcHttpServer,
  type Backends,
  type CompressionIndex,
  type LoadedKeys,
} from './rpc/index.js';
import { admitProofs, type ProofAdmissionLimits } from './rpc/proof-admission.js';
import { transactionJson } from './rpc/methods/transaction-json.js';

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
  /** Port of Light's /prove API when this process serves it. */
  readonly provePort?: number;
  readonly keys: LoadedKeys;
  readonly health: HealthRegistry;
  /** Graceful stop; resolves true when every in-flight request finished within the shutdown timeout. */
  stop(): Promise<boolean>;
}

/**
 * The embedded ledger with Light's localnet and the configured fixtures (fixtures win on
 * conflicts), and the DAS asset index kept in step with its accounts.
 */
export interface EmbeddedChain {
  ledger: Ledger;
  assets: AssetIndex;
  /** Transactions by the assets they touched (getSignaturesForAsset). */
  signatures: AssetSignatures;
  fetcher: MetadataFetcher;
  /** Light's system program as deployed: it verifies proofs with zkgate's keys once they are installed. */
  lightSystem: VerifierProgram;
  /** Light's account-compression program as deployed: it verifies a forester's batch proofs the same way. */
  accountCompression: VerifierProgram;
  /** --light-package: the ledger runs that package's programs as shipped (no forester). */
  lightPackage?: string;
  /** The trees and compressed-account index its Light transactions feed. */
  compression: Compression;
  /** The key zkgate's forester signs with (registered in the genesis). */
  foresterKey: Keypair;
  /** The forester, when it runs (--forester on, with the embedded prover). */
  forester?: Forester;
}

/**
 * --light-system-program: Light's system program from that file, as shipped; it joins the ledger's
 * programs last, so it is the one loaded under the system program's id.
 */
function shippedSystemProgram(file: string, programs: ProgramFixture[]): ShippedProgram {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new ConfigError(`--light-system-program: cannot read ${file} (${(e as Error).message})`);
  }
  programs.push({ id: LIGHT_SYSTEM_PROGRAM_ID, bytes, file });
  const validity = SHAPES.map((s) => s.name);
  return new ShippedProgram(LIGHT_SYSTEM_PROGRAM_ID, file, bytes, validity);
}

/**
 * --light-package: every Light program of that package as shipped. Nothing is patched: the system
 * program verifies the proofs of the keys it holds (that release's), account-compression none of
 * zkgate's batch keys (so no forester runs).
 */
function shippedPrograms(root: string, programs: ProgramFixture[]): [VerifierProgram, VerifierProgram] {
  const of = (id: Uint8Array) => programs.filter((p) => Buffer.from(p.id).equals(id)).pop()!;
  const system = of(LIGHT_SYSTEM_PROGRAM_ID);
  const compression = of(decodeBase58(LIGHT_IDS.accountCompression));
  return [
    new ShippedProgram(
      system.id,
      join(root, 'bin', system.file),
      system.bytes,
      SHAPES.map((s) => s.name),
    ),
    new ShippedProgram(
      compression.id,
      join(root, 'bin', compression.file),
      compression.bytes,
      BATCH_SHAPES.map((s) => s.name),
    ),
  ];
}

async function openLedger(config: Config, log: Logger, registry: MetricsRegistry): Promise<EmbeddedChain> {
  await loadPoseidon();
  const packageRoot = config.lightPackage ? resolve(config.lightPackage) : undefined;
  let light: ReturnType<typeof lightLocalnet>;
  try {
    light = lightLocalnet(packageRoot);
  } catch (e) {
    if (!packageRoot) throw e;
    throw new ConfigError(`--light-package ${config.lightPackage}: ${(e as Error).message}`);
  }
  const accountsDir = genesisAccountsDir(packageRoot);
  checkLightPackage(config.dataDir, join(config.dataDir, 'ledger'), accountsDir);
  // zkgate's forester is registered in the genesis whether it runs or not: turned on later, it can work.
  const forester = foresterKeypair(config);
  const programs = [...light.programs, ...config.program.map(readProgramSpec)];
  // Located before the ledger opens: a system program without the expected key records fails the start.
  const programsDir = join(config.dataDir, 'programs');
  let ledger: Ledger | undefined;
  const writeOut = (file: string) => (bytes: Uint8Array) => {
    mkdirSync(programsDir, { recursive: true });
    writeFileAtomicSync(join(programsDir, file), bytes);
  };
  const deploy = (id: Uint8Array, bytes: Uint8Array) => ledger!.deployProgram(id, bytes);
  const [lightSystem, accountCompression] = packageRoot
    ? shippedPrograms(packageRoot, programs)
    : [
        config.lightSystemProgram
          ? shippedSystemProgram(config.lightSystemProgram, programs)
          : lightSystemProgram(programs, deploy, writeOut(LIGHT_SYSTEM_PROGRAM_FILE)),
        accountCompressionProgram(programs, deploy, writeOut(ACCOUNT_COMPRESSION_PROGRAM_FILE)),
      ];
  let assets: AssetIndex | undefined;
  let fetcher: MetadataFetcher | undefined;
  let compression: Compression | undefined;
  let signatures: AssetSignatures | undefined;
  ledger = Ledger.open({
    dir: join(config.dataDir, 'ledger'),
    slotMs: Math.max(10, config.slotTimeMs),
    accounts: [
      ...config.accountDir.flatMap(readAccountDir),
      ...light.accounts,
      ...foresterGenesisAccounts(forester.publicKey, accountsDir),
    ],
    programs,
    indexers: [
      (root) => {
        fetcher = new MetadataFetcher(root, {
          timeoutMs: config.metadataTimeoutMs,
          maxBytes: config.metadataMaxBytes,
          allowPrivate: config.offchainAllowPrivate === 'on',
          metrics: registry,
        });
        assets = new AssetIndex(root);
        assets.onUri = (uri) => fetcher!.want(uri);
        return assets;
      },
    ],
    transactionIndexers: [
      (root) => {
        compression = openCompression(root, log, registry);
        bootstrapLocalnetTrees(compression.trees, log, { ledger: true, dir: accountsDir });
        return compression.ingester;
      },
      (root) =>
        (signatures = new AssetSignatures(
          root,
          () => assets,
          (s) => ledger?.placeOf(s),
        )),
    ],
    onIndexerError: (e, t) =>
      log.error('transaction indexer failed; its writes for the transaction are dropped', {
        signature: encodeBase58(t.signature),
        error: String((e as Error)?.stack ?? e),
      }),
  });
  fetcher!.resume();
  if (alignRegistryEpochs(ledger, forester.publicKey))
    log.info("ledger genesis: Light's registry epochs start at the ledger's first slot", {
      slot: ledger.slot.toString(),
    });
  // A ledger whose Light transactions were not ingested (or a tampered store) shows up here.
  compression!.ingester.checkAll((k) => ledger!.getAccount(k));
  return {
    ledger,
    assets: assets!,
    signatures: signatures!,
    fetcher: fetcher!,
    lightSystem,
    accountCompression,
    compression: compression!,
    foresterKey: forester,
    ...(packageRoot ? { lightPackage: packageRoot } : {}),
  };
}

/** Wrapped SOL's mint: the price source's price of SOL (Helius' nativeBalance). */
const WRAPPED_SOL = 'So11111111111111111111111111111111111111112';

/** What Photon's methods read: the index and trees ingest keeps, at the ledger's slot. */
function compressionIndex(chain: EmbeddedChain): CompressionIndex {
  const { ledger, compression } = chain;
  return {
    store: compression.store,
    trees: compression.trees,
    slot: () => ledger.slot,
    divergent: () => {
      compression.ingester.verifyPending();
      return compression.ingester.divergent;
    },
    transaction: (signature) =>
      transactionJson(ledger, signature, { encoding: 'base64', maxSupportedTransactionVersion: 0, rewards: true }),
  };
}

/**
 * The prover as the adapter uses it. Here (role all) the prover reads the ledger's trees itself;
 * with a remote prover and the embedded ledger (role rpc), witnesses are built from the ledger's
 * trees and proved remotely, and the remote key's verification key is installed into the ledger's
 * Light system program before the proof is returned.
 */
function validityBackend(
  client: ProvingClient | undefined,
  chain: EmbeddedChain | undefined,
  prover: Prover | undefined,
  queued: QueueProver | undefined,
): NonNullable<Backends['validityProof']> {
  if (client && (!chain || prover)) return client;
  const remote: WitnessProving = queued ?? grpcWitnessProving(client!);
  return new RemoteWitnessProver(chain!.compression.trees, remote, async (circuit, keySha256, fetchVk) => {
    if (verifierOf(chain!, circuit).keyId(circuit) !== keySha256)
      installKey(chain!, { shape: circuit, sha256: keySha256, vk: await fetchVk() });
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

/** The Light program that verifies a shape's proofs: account-compression for batch circuits. */
const verifierOf = (chain: EmbeddedChain, shape: string): VerifierProgram =>
  chain.accountCompression.shapes.includes(shape) ? chain.accountCompression : chain.lightSystem;

type VerifiedKey = { shape: string; sha256: string; vk: SnarkjsVerificationKey };

/** Installs a proving key's verifying key into the ledger's Light program that verifies its proofs. */
function installKey(chain: EmbeddedChain, key: VerifiedKey): void {
  installKeys(chain, [key]);
}

/**
 * Installs verifying keys, one patch and deploy per program: at start-up every key built earlier
 * goes in, and patching (with its program file written and synced) once per key cost ~40 ms each.
 */
function installKeys(chain: EmbeddedChain, keys: readonly VerifiedKey[]): void {
  const byProgram = new Map<VerifierProgram, VerifiedKey[]>();
  for (const k of keys) {
    const program = verifierOf(chain, k.shape);
    byProgram.set(program, [...(byProgram.get(program) ?? []), k]);
  }
  for (const [program, ks] of byProgram)
    program.install(ks.map((k) => ({ shape: k.shape, keyId: k.sha256, vk: solanaVerifyingKeyBytes(k.vk) })));
}

/** Where a client on this machine reaches a server bound to `host`. */
function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
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
  const registry = new MetricsRegistry();
  registerProcessMetrics(registry);

  // Opened first: a bad fixture fails the start before any server is up.
  const chain =
    config.role !== 'prover' && embeddedLedger && !given.chain ? await openLedger(config, log, registry) : undefined;
  const ledger = chain?.ledger;
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
                  store: chain.compression.trees,
                }
              : {}),
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
    await ledger?.close();
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
    await ledger?.close();
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
    if (!chain && !given.validityProof) {
      queue.close();
      await grpc.close(0);
      throw new ConfigError(
        '--role rpc --queue needs the embedded ledger: its trees give the witnesses the queue proves',
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
    if (!chain) {
      await grpc.close(0);
      throw new ConfigError(
        'several --prover-url need the embedded ledger: its trees give the witnesses that any of the provers may prove',
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
  const prices = config.priceSource
    ? new PriceSource(config.priceSource, { timeoutMs: config.upstreamTimeoutMs })
    : undefined;
  // Filled in once the servers listen (getClusterNodes).
  const endpoints: NodeEndpoints = {};
  const fork = ledger && config.forkUrl ? new ForkSource(ledger, config.forkUrl, config.upstreamTimeoutMs) : undefined;
  const simulator: Backends['bundleSimulator'] = config.simulateUpstream
    ? {
        forwardsRaw: true,
        simulateBundle: forwardTo(config.simulateUpstream, 'simulateBundle', config.upstreamTimeoutMs),
      }
    : ledger
      ? new BundleSimulator(ledger, version, fork)
      : undefined;
  const backends: Backends = {
    ...(ledger
      ? {
          chain: {
            ledger,
            endpoints,
            ...(fork ? { fork } : {}),
            queueRoom: (ms: number) => chain?.forester?.nextUpdate(ms) ?? Promise.resolve(false),
          },
        }
      : {}),
    ...(simulator ? { bundleSimulator: simulator } : {}),
    ...(config.dasUpstream
      ? {
          assets: {
            forwardsRaw: true,
            getAsset: forwardTo(config.dasUpstream, 'getAsset', config.upstreamTimeoutMs),
            call: (method: string, params: unknown) =>
              forwardTo(config.dasUpstream, method, config.upstreamTimeoutMs)(params),
          },
        }
      : chain
        ? {
            assets: {
              queries: new AssetQueries(
                chain.assets,
                () => ({ fetcher: chain.fetcher, cdnPrefix: config.cdnPrefix }),
                chain.signatures,
                undefined,
                (address) => chain.ledger.getAccount(decodeBase58(address))?.lamports ?? 0n,
              ),
              ...(prices ? { solPrice: () => prices.priceOf(WRAPPED_SOL) } : {}),
              getAsset: async (p: GetAssetParams) => {
                const price = prices ? await prices.priceOf(p.id) : undefined;
                return getAsset(chain.assets, p.id, p.options, {
                  fetcher: chain.fetcher,
                  cdnPrefix: config.cdnPrefix,
                  ...(price !== undefined ? { price } : {}),
                });
              },
            },
          }
        : {}),
    ...(config.validityProofUpstream
      ? {
          photon: {
            forwardsRaw: true,
            call: (method: string, params: unknown) =>
              forwardTo(config.validityProofUpstream, method, config.upstreamTimeoutMs)(params),
          },
        }
      : chain
        ? { photon: { index: compressionIndex(chain) } }
        : {}),
    ...(chain
      ? {
          forester: {
            status: () => chain.forester?.status(),
            queues: () => queueStatuses(chain.ledger, chain.compression.trees),
          },
        }
      : {}),
    ...given,
    ...(client || (queued && !given.validityProof)
      ? {
          validityProof: admitProofs(
            arrivingAt(prover, validityBackend(client, chain, prover, queued)),
            proofLimits(config, prover?.pool.threads),
            registry,
          ),
        }
      : {}),
  };
  const stopProverParts = async (ms: number) => {
    await chain?.forester?.stop();
    await frontHttp?.close();
    clearInterval(reaper);
    await worker?.stop();
    monitor?.close();
    queue?.close();
    await grpc.close(ms);
    client?.close();
    await prover?.close();
    chain?.fetcher.close();
    await ledger?.close();
    closeHealthClients();
  };

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
      health: proverHealth(monitor),
      stop: () => (stopping ??= stopProverParts(config.shutdownTimeoutMs).then(() => true)),
    };
  }

  const metrics = createRpcMetrics(registry);

  // The request path (the adapter's client, gRPC both ways, the service) runs once before /health
  // says ok: cold, its first run cost a caller's first proof 25–50 ms more, about as much as the
  // proof. The request names no account, so it ends where the trees are read.
  const validity = backends.validityProof;
  let pathWarm = !(prover && validity);
  if (!pathWarm)
    void prover!.service
      .whenWarm()
      .then(() => validity!.getValidityProof({ hashes: [0n], addresses: [], api: 1, caller: 'warm-up' }))
      .catch(() => undefined)
      .finally(() => (pathWarm = true));

  const health = new HealthRegistry();
  health.add('rpc', () => ({ status: 'ready' }));
  if (monitor) health.add('queue', () => monitor.health());
  if (!queued)
    health.add('grpc', async () => {
      if (balancer) {
        await balancer.checkAll();
        const hosts = balancer.status();
        const down = hosts.filter((h) => !h.healthy);
        if (down.length === 0) return { status: 'ready', detail: hosts.map((h) => h.address).join(', ') };
        const detail = `down: ${down.map((h) => `${h.address} (${h.reason})`).join('; ')}`;
        return down.length < hosts.length ? { status: 'degraded', detail } : { status: 'unavailable', detail };
      }
      const status = await checkHealth(proverAddress, '', 1000, channel);
      return status === 'SERVING'
        ? { status: 'ready', detail: proverAddress }
        : { status: 'unavailable', detail: `gRPC server at ${proverAddress} reports ${status}` };
    });
  const notConfigured = { status: 'disabled', detail: 'backend not configured' } as const;
  health.add('validityProof', () => {
    if (!backends.validityProof) return notConfigured;
    if (!prover) return { status: 'ready' };
    const s = prover.service.warmUpState();
    if (s.phase === 'warming' || pathWarm) return warmUpHealth(s);
    return {
      status: 'warming',
      detail: 'running the request path once',
      progress: { done: s.total, total: s.total },
    };
  });
  if (prover) health.add('provingKeys', () => keysHealth(prover));
  health.add('simulateBundle', () => (backends.bundleSimulator ? { status: 'ready' } : notConfigured));
  health.add('getAsset', () => (backends.assets ? { status: 'ready' } : notConfigured));
  if (chain) {
    const { compression, lightSystem } = chain;
    health.add('compression', () => {
      compression.ingester.verifyPending();
      const bad = [...compression.ingester.divergent];
      return bad.length === 0
        ? { status: 'ready', detail: `indexed through slot ${chain.ledger.slot}` }
        : {
            status: 'degraded',
            detail: `indexed state differs from the ledger: ${bad.map(([t, d]) => `${t} (${d})`).join('; ')}`,
          };
    });
    health.add('forester', () => {
      const full = queueStatuses(chain.ledger, compression.trees).filter((q) => q.queued > 0.8 * q.capacity);
      const over = full.map((q) => `${q.queue} queue of ${q.tree} ${Math.round((100 * q.queued) / q.capacity)} % full`);
      const f = chain.forester?.status();
      if (over.length > 0)
        return {
          status: 'degraded',
          detail: `${over.join('; ')}${f ? '' : ' (the forester is off: --forester on drains them)'}${f?.lastError ? `; last forester error: ${f.lastError}` : ''}`,
        };
      if (!f) return { status: 'disabled', detail: 'the forester is off (--forester on)' };
      return {
        status: 'ready',
        detail: `epoch ${f.activeEpoch ?? 'none yet'}; ${f.batches.sent} batches in the trees, ${f.batches.failed} failed attempts`,
      };
    });
    health.add('lightPrograms', () => ({
      status: 'ready',
      detail:
        lightSystem instanceof ShippedProgram
          ? `dev chain: Light's system program as shipped (${lightSystem.file}, unpatched) verifies ${lightSystem.installedCount()} shapes' proofs (the Light keys it holds)`
          : `dev chain: Light's system program verifies zkgate's keys (${lightSystem.installedCount()} of ${lightSystem.shapes.length} shapes installed so far)`,
    }));
  }

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
  let addr;
  try {
    addr = await server.listen(config.rpcPort, config.host);
  } catch (e) {
    await stopProverParts(0);
    throw e;
  }
  const rpcUrl = `http://${connectHost(config.host)}:${addr.port}/`;
  endpoints.rpc = `${connectHost(config.host)}:${addr.port}`;

  // Websocket PubSub on the RPC port + 1, as validators: what clients' confirmation strategies use.
  let pubsub: { hub: Hub; server: PubSubServer; port: number } | undefined;
  if (ledger) {
    const subscriptions = registry.gauge('zkgate_ws_subscriptions', 'open websocket subscriptions, by method', [
      'method',
    ]);
    const hub = new Hub(
      ledger,
      { perConnection: config.wsMaxSubscriptionsPerConnection, perKey: config.wsMaxSubscriptionsPerKey },
      { subscribed: (method, delta) => subscriptions.inc([method], delta) },
    );
    const ps = new PubSubServer({
      hub,
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
      pubsub = { hub, server: ps, port: (await ps.listen(wsPort, config.host)).port };
      endpoints.pubsub = `${connectHost(config.host)}:${pubsub.port}`;
    } catch (e) {
      hub.close();
      await ps.close();
      await server.close(0);
      await stopProverParts(0);
      throw new Error(`cannot listen for websockets on ${config.host}:${wsPort} (--ws-port): ${(e as Error).message}`);
    }
  }

  let stopping: Promise<boolean> | undefined;
  const stop = (): Promise<boolean> =>
    (stopping ??= (async () => {
      const started = Date.now();
      const finished = await server.close(config.shutdownTimeoutMs);
      pubsub?.hub.close();
      await pubsub?.server.close();
      await stopProverParts(Math.max(0, config.shutdownTimeoutMs - (Date.now() - started)));
      return finished;
    })());

  return {
    rpcUrl,
    rpcPort: addr.port,
    ...(pubsub ? { wsUrl: `ws://${connectHost(config.host)}:${pubsub.port}/`, pubsub: pubsub.hub } : {}),
    grpcAddress: grpc.address,
    ...(grpcToken ? { grpcToken } : {}),
    proverAddress,
    ...(prover ? { prover, provePort: prover.provePort! } : {}),
    ...(frontHttp ? { provePort: frontHttp.port } : {}),
    ...(chain ? { chain } : {}),
    keys,
    health,
    stop,
  };
}

/** A prover-role process's health: its queue's, when it has one. */
function proverHealth(monitor: QueueMonitor | undefined): HealthRegistry {
  const health = new HealthRegistry();
  if (monitor) health.add('queue', () => monitor.health());
  return health;
}

/**
 * The forester's batch proofs through the queue: each proof's key is installed into the ledger's
 * account-compression program (its verifying key as the host published it) before it is used.
 */
function queuedBatches(
  chain: EmbeddedChain,
  queued: QueueProver,
): (circuit: string, inputs: Parameters<QueueProver['proveBatch']>[1]) => Promise<CompressedProof> {
  return async (circuit, inputs) => {
    const r = await queued.proveBatch(circuit, inputs);
    if (verifierOf(chain, circuit).keyId(circuit) !== r.keySha256)
      installKey(chain, { shape: circuit, sha256: r.keySha256, vk: await queued.verifyingKey(circuit, r.keySha256) });
    return compressProof(r.points);
  };
}

/**
 * Whose keys prove, which are ready and which are being built: ready while they build, since a
 * request that needs one waits for it (--key-build-wait-ms).
 */
function keysHealth(prover: Prover): ComponentStatus {
  const keys = prover.service.keysView();
  const building = keys.building.map(
    (b) => `${b.circuit} (${b.priority}${b.etaMs !== undefined ? `, about ${Math.ceil(b.etaMs / 1000)} s left` : ''})`,
  );
  const detail = [
    prover.keys.describeSources(),
    `${keys.ready.length} keys ready`,
    ...(building.length > 0 ? [`building ${building.join(', ')}`] : []),
    ...(keys.queued.length > 0
      ? [`${keys.queued.length} queued (${keys.queued.map((q) => q.circuit).join(', ')})`]
      : []),
  ].join('; ');
  return { status: 'ready', detail, keys };
}

/** The prover's start-up warm-up as a health component: warming until every listed shape is in. */
export function warmUpHealth(s: WarmUpState): ComponentStatus {
  if (s.phase === 'warming')
    return {
      status: 'warming',
      detail: `loading proving keys and fixed-base tables in every worker: ${s.done} of ${s.total} circuits${s.current ? ` (now ${s.current})` : ''}`,
      progress: { done: s.done, total: s.total },
    };
  if (s.failed.length > 0)
    return {
      status: 'degraded',
      detail: `preloading failed for ${s.failed.map((f) => `${f.circuit} (${f.error})`).join('; ')}`,
    };
  if (s.phase !== 'ready') return { status: 'ready' };
  const bare = s.withoutTables?.map((w) => w.circuit) ?? [];
  const left = s.notPreloaded ?? [];
  return {
    status: 'ready',
    detail:
      `${s.total - left.length} circuits preloaded in ${s.ms} ms` +
      (bare.length > 0 ? `; without fixed-base tables (no room in --prover-memory-mb): ${bare.join(', ')}` : '') +
      (left.length > 0
        ? `; not preloaded (no room in --prover-memory-mb; loaded on first use): ${left.join(', ')}`
        : ''),
  };
}
