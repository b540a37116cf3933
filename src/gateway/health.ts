// /health's components, as the assembled parts report them: the adapter, the prover (its warm-up
// and keys, or the provers it reaches), the queue, each backend, and the embedded chain's index,
// forester and Light programs.
import { checkHealth } from '../grpc/index.js';
import { HealthRegistry, type ComponentStatus } from '../obs/health.js';
import { ShippedProgram } from '../ledger/index.js';
import { queueStatuses } from '../forester/index.js';
import type { Prover, WarmUpState } from '../prover/index.js';
import type { QueueMonitor } from '../queue/index.js';
import type { Backends } from '../rpc/index.js';
import type { EmbeddedChain } from './chain.js';
import type { FollowedCluster } from './cluster.js';
import type { ProvingSide } from './proving.js';

/** The JSON-RPC process's health; its first look waits for the request path's warm run. */
export function frontHealth(
  proving: ProvingSide,
  backends: Backends,
  chain: EmbeddedChain | undefined,
  cluster: FollowedCluster | undefined,
): HealthRegistry {
  const { prover, monitor, queued, balancer, proverAddress, channel } = proving;
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
  if (cluster) health.add('cluster', () => cluster.health());
  return health;
}

/** A prover-role process's health: its queue's, when it has one. */
export function proverHealth(monitor: QueueMonitor | undefined): HealthRegistry {
  const health = new HealthRegistry();
  if (monitor) health.add('queue', () => monitor.health());
  return health;
}

/**
 * Whose keys prove, which are ready and which are being built: ready while they build, since a
 * request that needs one waits for it (--key-build-wait-ms).
 */
export function keysHealth(prover: Prover): ComponentStatus {
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
  if (s.phase === 'warming' && s.waiting)
    return {
      status: 'warming',
      detail: `${s.total} circuits to preload, waiting for ${s.waiting}`,
      progress: { done: 0, total: s.total },
    };
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
