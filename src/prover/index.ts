// The prover role: tree store, proving keys, worker pool, the Prover and StateSync gRPC services
// and Light's /prove HTTP API. `startProver` wires them; the gateway adds the services to its gRPC
// server and stops everything in order.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Config, type ProverBackendChoice } from '../config.js';
import type { GrpcServiceSpec } from '../grpc/server.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import { TreeStore } from '../state/index.js';
import { shutdownZk } from '../zk/index.js';
import { KeyStore, type ProvingKey, type ProvingKeySource } from '../zk/keys.js';
import { LightKeyStore, lightKeyFiles } from '../zk/light/store.js';
import { SHAPES, shapeByName, type Shape } from '../zk/shapes.js';
import type { BackendName } from './backend.js';
import { genesisAccountsDir } from '../ledger/light-accounts.js';
import { bootstrapLocalnetTrees } from '../ledger/light-trees.js';
import {
  PROVER_PROTO,
  PROVER_SERVICE,
  proverImplementation,
  STATE_SYNC_PROTO,
  STATE_SYNC_SERVICE,
  stateSyncImplementation,
} from './grpc-services.js';
import { startLightHttp, type LightHttpServer, type LightJobs } from './light-http.js';
import { cudaUnavailable, loadNativeAddon, nativeSelfCheck } from '../zk/native-addon.js';
import { budgetRefusal, buildRoom } from './build-budget.js';
import { buildAtStartShapes, buildOnDemandShapes } from './build-policy.js';
import { KeyBuildQueue } from './build-queue.js';
import type { BuildNeed } from './build-budget.js';
import { startKeyBuild } from '../zk/setup/key-build-process.js';
import { isLoopback } from '../util/loopback.js';
import { ProverPool } from './pool.js';
import { ProverService, type WarmUpWait } from './service.js';

export { ProverClient, RemoteProverError, type ClientValidityProof, type TreeStateView } from './client.js';
export { ProverError, type ProverErrorKind } from './errors.js';
export { ProverService, explicitShape, type WarmUpState, type WarmUpWait } from './service.js';
export { startLightHttp, type LightJobs } from './light-http.js';
export { explicitRequest, lightProveBody, parseProveBody } from './light-json.js';
export { RemoteWitnessProver, grpcWitnessProving, type WitnessProving } from './remote-witness.js';
export { BalancedProverClient, type ProvingClient } from './balancer.js';
export { ProverPool } from './pool.js';
export { buildOnDemandShapes, encodeBuildRight, frontBuildRights } from './build-policy.js';
export { readGenesisTrees, type GenesisTree } from '../ledger/light-accounts.js';
export { allowedCounts } from './witness.js';
export type * from './types.js';

export interface Prover {
  readonly service: ProverService;
  readonly store: TreeStore;
  readonly keys: KeyStore;
  readonly pool: ProverPool;
  readonly grpcServices: GrpcServiceSpec[];
  /** Port of the Light-compatible HTTP API once started. */
  provePort?: number;
  /** Light's /prove API; with `jobs`, its asynchronous API too. */
  startHttp(host: string, jobs?: LightJobs): Promise<void>;
  close(): Promise<void>;
}

/** "v1" / "v2" stand for every shape of that version. */
export function expandShapeList(names: readonly string[]): string[] {
  const out = new Set<string>();
  for (const n of names) {
    if (n === 'v1' || n === 'v2') for (const s of SHAPES) if (`v${s.version}` === n) out.add(s.name);
    if (n !== 'v1' && n !== 'v2') out.add(shapeByName(n).name);
  }
  return [...out];
}

/**
 * The backend to run: `cuda` or `native` when asked for (failing start-up with the reason when it
 * cannot run), `snarkjs` when asked for. With `auto`: cuda when a GPU is present and each chosen
 * device's proof equals the CPU's (the self-check), else native when it is built and passes its
 * self-check, else snarkjs, logging why each faster one was passed over.
 */
export function chooseBackend(choice: ProverBackendChoice, log: Logger, devices: readonly number[] = []): BackendName {
  if (choice === 'snarkjs') return 'snarkjs';
  const status = loadNativeAddon();
  if (choice === 'cuda' || choice === 'auto') {
    const why = status.ok ? cudaUnavailable(status.addon, devices) : status.reason;
    if (why === undefined) return 'cuda';
    if (choice === 'cuda') throw new ConfigError(`prover backend "cuda" cannot run: ${why}`);
    log.info('prover: no usable GPU, the cuda backend is not used', { reason: why });
  }
  const reason = status.ok ? nativeSelfCheck(status.addon) : status.reason;
  if (reason === undefined) return 'native';
  if (choice === 'native') throw new ConfigError(`prover backend "native" cannot run: ${reason}`);
  log.warn('prover: native backend unavailable, using snarkjs', { reason });
  return 'snarkjs';
}

export interface ProverHooks {
  /** Called with each proof's key before the proof is made (see ProverServiceOptions.onKey). */
  onKey?: (key: ProvingKey) => void;
  /**
   * The trees to prove against when this process holds them already (the embedded ledger's,
   * fed by its ingest, which registers Light's localnet trees in them); otherwise the prover opens
   * its own store in the data dir.
   */
  store?: TreeStore;
  /** What the preloads wait for before they load anything (a follower's backfill). */
  warmAfter?: WarmUpWait;
}

/**
 * Imports --light-keys (files imported before are left as they are) and says whose keys prove:
 * Light's need the native prover (its solver and gnark's quotient), so under snarkjs "auto" means
 * the dev keys and "light" is refused.
 */
async function keySource(config: Config, backend: BackendName, log: Logger): Promise<ProvingKeySource> {
  const store = new LightKeyStore(config.dataDir);
  // --light-package proves with that release's keys unless --light-keys names others.
  const packageKeys = config.lightPackage ? join(config.lightPackage, 'bin', 'proving-keys') : '';
  const lightKeys = config.lightKeys.length > 0 ? config.lightKeys : existsSync(packageKeys) ? [packageKeys] : [];
  if (lightKeys.length > 0) {
    const started = Date.now();
    let files: string[];
    try {
      files = lightKeyFiles(lightKeys);
    } catch (e) {
      throw new ConfigError(`--light-keys: ${(e as Error).message}`);
    }
    if (backend === 'snarkjs')
      throw new ConfigError("--light-keys: Light's keys prove on the native backend, which is not available here");
    for (const file of files) {
      const r = await store.import(file, { threads: Math.max(1, config.proverCurveThreads || 2) });
      if (r.status === 'skipped') log.info('Light key file skipped', { file, reason: r.reason });
      else
        log.info(r.status === 'imported' ? 'Light key imported' : 'Light key unchanged', {
          file,
          circuit: r.entry.shape,
        });
    }
    log.info("Light's keys ready", { files: files.length, ms: Date.now() - started });
  }
  if (config.provingKeys === 'dev') return 'dev';
  if (backend === 'snarkjs') {
    if (config.provingKeys === 'light')
      throw new ConfigError(
        "--proving-keys light: Light's keys prove on the native backend, which is not available here",
      );
    if (store.shapes().length > 0)
      log.warn("Light's keys are imported but the snarkjs backend cannot prove with them: dev keys prove");
    return 'dev';
  }
  const shapes = store.shapes();
  log.info('prover: proving keys', { source: config.provingKeys, lightShapes: shapes });
  return config.provingKeys;
}

export async function startProver(
  config: Config,
  log: Logger,
  metrics?: MetricsRegistry,
  hooks: ProverHooks = {},
): Promise<Prover> {
  const preload = expandShapeList(config.preloadCircuits);
  const store = hooks.store ?? (await TreeStore.open(join(config.dataDir, 'trees')));
  let pool: ProverPool | undefined;
  let http: LightHttpServer | undefined;
  try {
    if (store.recovered) log.warn('tree store: finished a large write a crash interrupted', { write: store.recovered });
    // The embedded ledger's trees were registered by its ingest when it opened.
    if (!hooks.store)
      bootstrapLocalnetTrees(store, log, config.lightPackage ? { dir: genesisAccountsDir(config.lightPackage) } : {});
    const backend = chooseBackend(config.proverBackend, log, config.proverDevices);
    log.info('prover: proving backend', { backend });
    // A server: key builds run on a worker thread, off the event loop.
    const keys = new KeyStore(config.dataDir, config.devKeySeed, await keySource(config, backend, log));
    pool = new ProverPool({
      backend,
      ...(backend === 'cuda'
        ? {
            accelerator: {
              devices: config.proverDevices,
              deviceBudgetBytes: config.proverDeviceMemoryMb * 1024 * 1024,
              batchMax: Math.max(1, config.proverBatchMax),
              batchWaitUs: config.proverBatchWaitUs,
            },
          }
        : {}),
      ...(config.proverThreads > 0 ? { threads: config.proverThreads } : {}),
      ...(config.proverCurveThreads > 0 ? { curveThreads: config.proverCurveThreads } : {}),
      maxQueue: config.proverQueue,
      ...(config.proverQueuePerKey > 0 ? { maxQueuePerCaller: config.proverQueuePerKey } : {}),
      memoryBudgetBytes: config.proverMemoryMb * 1024 * 1024,
      ...(metrics ? { metrics } : {}),
    });
    // What a request arriving here (Light's /prove) may build, by this process's exposure; and
    // the most any request may, whatever front it came in at: a front's admin key carries a
    // loopback front's right (build-policy.ts frontBuildRights), which each call brings along.
    let buildable: Set<string>;
    let mostBuildable: Set<string>;
    try {
      buildable = buildOnDemandShapes(
        config.buildOnDemand,
        isLoopback(config.host) && isLoopback(config.proverHost || config.host),
      );
      mostBuildable = buildOnDemandShapes(config.buildOnDemand, true);
    } catch (e) {
      throw new ConfigError(`--build-on-demand: ${(e as Error).message}`);
    }
    let atStart: string[];
    try {
      atStart = buildAtStartShapes(config.buildAtStart, buildable);
    } catch (e) {
      throw new ConfigError(`--build-at-start: ${(e as Error).message}`);
    }
    const buildRefusal = (shape: Shape, pending: BuildNeed) =>
      budgetRefusal(shape, pending, buildRoom(config.dataDir, config.buildMemoryMb), config.dataDir);
    const service = new ProverService({
      store,
      keys,
      pool,
      log,
      mayBuild: (shape) => mostBuildable.has(shape.name),
      buildRefusal,
      builds: new KeyBuildQueue({
        start: (shape, nice) =>
          startKeyBuild({ dataDir: config.dataDir, seed: config.devKeySeed, shape: shape.name, nice }),
        concurrency: config.buildConcurrency,
        refusal: buildRefusal,
        log,
        ...(metrics ? { metrics } : {}),
      }),
      ...(hooks.onKey ? { onKey: hooks.onKey } : {}),
    });
    const p: Prover = {
      service,
      store,
      keys,
      pool,
      grpcServices: [
        {
          proto: PROVER_PROTO,
          service: PROVER_SERVICE,
          implementation: proverImplementation(service, config.proofTimeoutMs, log, config.keyBuildWaitMs),
        },
        { proto: STATE_SYNC_PROTO, service: STATE_SYNC_SERVICE, implementation: stateSyncImplementation(store, log) },
      ],
      async startHttp(host: string, jobs?: LightJobs) {
        http = await startLightHttp({
          host,
          port: config.provePort,
          prove: async (req, run) => {
            const r = await service.prove(req, run);
            return { raw: r.proof.raw, circuit: r.circuit };
          },
          warmUpState: () => service.warmUpState(),
          // A request that comes in here, at the prover's own port, may build what its policy says.
          mayBuild: (shape) => buildable.has(shape),
          apiKey: config.proverApiKey,
          corsOrigins: config.proveCorsOrigins,
          timeoutMs: config.proofTimeoutMs,
          keyBuildWaitMs: config.keyBuildWaitMs,
          log,
          ...(jobs ? { jobs } : {}),
        });
        p.provePort = http.port;
      },
      async close() {
        await http?.close();
        service.close();
        await pool!.close();
        await store.close();
        await shutdownZk();
      },
    };
    if (preload.length > 0) {
      log.info('preloading circuits', { circuits: preload });
      // In the background: requests for other shapes are served meanwhile; /health says
      // "warming" until every listed shape is loaded in every worker.
      void service.warmUp(preload, hooks.warmAfter).then((s) =>
        log.info('circuits preloaded', {
          circuits: preload,
          ms: s.ms,
          ...(s.failed.length > 0 ? { failed: s.failed.map((f) => f.circuit) } : {}),
          ...(s.withoutTables ? { withoutTables: s.withoutTables.map((w) => w.circuit) } : {}),
          ...(s.notPreloaded ? { notPreloaded: s.notPreloaded } : {}),
        }),
      );
    }
    // After the preloads (the queue orders them), the shapes a first script proves with.
    const ahead = atStart.filter((name) => !preload.includes(name) && keys.willBuild(shapeByName(name)));
    if (ahead.length > 0) {
      log.info('building proving keys in the background (--build-at-start)', { circuits: ahead });
      service
        .preload(ahead, 'start')
        .catch((e: unknown) =>
          log.warn('a background key build failed', { error: String((e as Error)?.message ?? e) }),
        );
    }
    return p;
  } catch (e) {
    await pool?.close();
    await store.close();
    throw e;
  }
}
export { demoAccountHashes, demoAddress } from './demo-data.js';
