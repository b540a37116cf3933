// Provers behind one front (issue 37). Each gateway runs in a child process: prover-role
// processes (native, the bench's keys, v1_inclusion_26_1 preloaded) and a --role rpc front with
// the ledger naming them all in --prover-url. The front builds the witnesses of a real compressed
// account (made with stateless.js) and the balancer sends each proof to the least busy prover.
// Measured, against a front with one prover (the same run's baseline): p50/p99 at concurrency 1
// (the balancer's own cost per call) and proofs/s at concurrency 4, with 1, 2 and 3 provers. On
// a 2-core machine the provers share the same cores: more processes cannot add proofs/s there.
//
// The Redis queue (a real redis-server): a --role rpc --queue front and prover hosts on the same
// queue, Light's /prove requests of distinct inputs (equal ones would be answered from the
// queue's cache). Measured against the same run's direct /prove on one host: the queue's cost per
// job (p50/p99 at concurrency 1), and proofs/s at concurrency 4 with 1, 2 and 3 hosts.
//
// The queue's own cost under abuse and faults (issue 49), no proving: Redis's latency (PING from a
// second connection, p50/p99) and a claim's time while jobs flow, with no foreign body queued (the
// baseline) and with 10,000 of Light's batch bodies of 20 KB plus 100 of 200 KB ahead of them
// (Light's lists); then jobs proved more than once by hosts (in process, 300 ms "proofs") across a
// 25 s DEBUG SLEEP of Redis.
// BENCH_FLEET_SIZES selects the sizes, BENCH_FLEET_PARTS the parts (balancer, queue, redis).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import { compress, confirmTx, createRpc, merkletreePubkey } from '@lightprotocol/stateless.js';
import { explicitRequest, lightProveBody } from '../../src/prover/index.js';
import { demoAccountHashes } from '../../src/prover/demo-data.js';
import { TreeStore } from '../../src/state/index.js';
import { inclusionWitness, KeyStore, shapeByName } from '../../src/zk/index.js';
import { Redis } from 'ioredis';
import { startRedis } from '../../test/helpers/redis.js';
import { createLogger } from '../../src/obs/log.js';
import { JobQueue, QueueWorker } from '../../src/queue/index.js';
import { BENCH_CACHE as CACHE, benchDataDir, BENCH_GRPC_TOKEN, BENCH_KEY as KEY, ROOT as root } from '../lib/paths.js';
import { percentile } from '../lib/stats.js';
import { startProcess, type Started } from '../lib/processes.js';
import { envList, table } from '../lib/table.js';

const SIZES = envList(process.env.BENCH_FLEET_SIZES, ['1', '2', '3']).map(Number);
const PARTS = envList(process.env.BENCH_FLEET_PARTS, ['balancer', 'queue', 'redis']);
const SHAPE = 'v1_inclusion_26_1';

async function startProver(queue?: string): Promise<{ gw: Started; address: string; dir: string; prove: string }> {
  const dir = benchDataDir('fleet-prover');
  const gw = await startProcess(
    [
      join(root, 'dist/main.js'),
      'start',
      ...['--role', 'prover', '--data-dir', dir, '--grpc-port', '0', '--prove-port', '0'],
      ...['--grpc-token', BENCH_GRPC_TOKEN, '--log-level', 'warn', '--prover-backend', 'native'],
      ...['--preload-circuits', SHAPE, '--build-at-start', 'none'],
      ...(queue ? ['--queue', queue] : []),
    ],
    /gRPC\s+(\S+)\s+\/prove\s+(http\S+)/,
    { timeoutMs: 120_000 },
  );
  return { gw, address: gw.match[1]!, dir, prove: gw.match[2]! };
}

async function startFront(
  urls: string[],
  queue?: string,
): Promise<{ gw: Started; url: string; dir: string; prove?: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'zkgate-fleet-front-'));
  const gw = await startProcess(
    [
      join(root, 'dist/main.js'),
      'start',
      ...(queue
        ? ['--role', 'rpc', '--queue', queue, '--prove-port', '0']
        : ['--role', 'rpc', '--prover-url', urls.join(','), '--prover-token', BENCH_GRPC_TOKEN]),
      ...['--data-dir', dir, '--rpc-port', '0', '--ws-port', '0', '--grpc-port', '0', '--forester', 'off'],
      ...['--api-keys', KEY, '--rate-limit', '0', '--log-level', 'warn', '--proof-timeout-ms', '60000'],
    ],
    queue
      ? /JSON-RPC\s+(http:\/\/\S+\/)\?api-key=[\s\S]*?\/prove\s+(http\S+)/
      : /JSON-RPC\s+(http:\/\/\S+\/)\?api-key=/,
    { timeoutMs: 120_000 },
  );
  return { gw, url: `${gw.match[1]!}?api-key=${KEY}`, dir, ...(queue ? { prove: gw.match[2]! } : {}) };
}

/** Light /prove bodies of distinct leaves of one throwaway tree (each proof different work). */
async function proveBodies(n: number): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'zkgate-fleet-tree-'));
  const store = await TreeStore.open(dir);
  try {
    const tree = 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT';
    store.registerTree({ pubkey: tree, kind: 'state', version: 1 });
    store.stateTree(tree).append(demoAccountHashes(tree, 1, 0, n, 'fleet-bench'));
    const shape = shapeByName(SHAPE);
    return Array.from({ length: n }, (_, i) =>
      lightProveBody(explicitRequest(shape, [inclusionWitness(store.stateTree(tree).proofByIndex(i))], [])),
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function lightProve(url: string, body: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${url}: ${res.status} ${text}`);
  return performance.now() - t;
}

/** p50/p99 at concurrency 1 and proofs/s at concurrency 4, each request taking the next body. */
async function measure(url: string, bodies: string[]): Promise<{ p50: number; p99: number; rate: number }> {
  for (let i = 0; i < 4; i++) await lightProve(url, bodies.pop()!);
  const one: number[] = [];
  for (let i = 0; i < 20; i++) one.push(await lightProve(url, bodies.pop()!));
  const total = 32;
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next++ < total) await lightProve(url, bodies.pop()!);
    }),
  );
  return { p50: percentile(one, 50), p99: percentile(one, 99), rate: total / ((performance.now() - t) / 1000) };
}

/** The queue part: direct /prove on one host, then the front through the queue with 1, 2, 3 hosts. */
async function queueFigures(): Promise<void> {
  const redis = await startRedis();
  const bodies = await proveBodies(60 * (SIZES.length + 1));
  const hosts: Awaited<ReturnType<typeof startProver>>[] = [];
  let front: Awaited<ReturnType<typeof startFront>> | undefined;
  const rows: string[][] = [];
  try {
    hosts.push(await startProver(redis.url));
    const direct = await measure(hosts[0]!.prove, bodies);
    rows.push([
      'direct /prove, 1 host',
      direct.p50.toFixed(1),
      direct.p99.toFixed(1),
      direct.rate.toFixed(2),
      '1.00 / 1.00',
    ]);
    console.log(`  direct: p50 ${direct.p50.toFixed(1)} ms, ${direct.rate.toFixed(2)} proofs/s at concurrency 4`);
    front = await startFront([], redis.url);
    for (const n of SIZES) {
      while (hosts.length < n) hosts.push(await startProver(redis.url));
      const q = await measure(front.prove!, bodies);
      rows.push([
        `queue, ${n} host(s)`,
        q.p50.toFixed(1),
        q.p99.toFixed(1),
        q.rate.toFixed(2),
        `${(q.p50 / direct.p50).toFixed(2)} / ${(q.rate / direct.rate).toFixed(2)}`,
      ]);
      console.log(
        `  queue, ${n} host(s): p50 ${q.p50.toFixed(1)} ms (+${(q.p50 - direct.p50).toFixed(1)} ms), ${q.rate.toFixed(2)} proofs/s`,
      );
    }
  } finally {
    await front?.gw.stop();
    if (front) rmSync(front.dir, { recursive: true, force: true });
    for (const h of hosts) {
      await h.gw.stop();
      rmSync(h.dir, { recursive: true, force: true });
    }
    await redis.close();
  }
  console.log(`\n${SHAPE} by Light's /prove, distinct inputs (ms; proofs/s at concurrency 4; ratios to direct)`);
  table(['path', 'p50 c=1', 'p99 c=1', 'proofs/s c=4', 'p50 / rate vs direct'], rows);
}

async function proof(url: string, hash: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getValidityProof', params: { hashes: [hash] } }),
  });
  const json = (await res.json()) as { result?: unknown; error?: unknown };
  if (!json.result) throw new Error(`getValidityProof: ${JSON.stringify(json.error)}`);
  return performance.now() - t;
}

/** A compressed account on the front's ledger: its hash, as getValidityProof takes it. */
async function compressedAccount(url: string): Promise<string> {
  const rpc = createRpc(url, url);
  const payer = Keypair.generate();
  await confirmTx(rpc, await rpc.requestAirdrop(payer.publicKey, 5_000_000_000));
  const smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
  await compress(rpc, payer, 1_000_000_000, payer.publicKey, smt1);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getCompressedAccountsByOwner',
      params: { owner: payer.publicKey.toBase58() },
    }),
  });
  return ((await res.json()) as { result: { value: { items: { hash: string }[] } } }).result.value.items[0]!.hash;
}

export const fleetScenario = {
  name: 'fleet',
  describe:
    "a --role rpc front balancing 1, 2 and 3 prover processes, the same through a Redis queue, and the queue's cost under foreign bodies and a Redis stall",
  explicitOnly: true,
  async run(): Promise<void> {
    if (PARTS.includes('redis')) await redisFigures();
    if (!PARTS.includes('balancer') && !PARTS.includes('queue')) return;
    await new KeyStore(CACHE).ensure(SHAPE);
    if (PARTS.includes('balancer')) await balancerFigures();
    if (PARTS.includes('queue')) await queueFigures();
  },
};

async function balancerFigures(): Promise<void> {
  {
    const provers = [];
    for (let i = 0; i < Math.max(...SIZES); i++) provers.push(await startProver());
    const rows: string[][] = [];
    let base: { p50: number; rate: number } | undefined;
    try {
      for (const n of SIZES) {
        const front = await startFront(provers.slice(0, n).map((p) => p.address));
        try {
          const hash = await compressedAccount(front.url);
          for (let i = 0; i < 4; i++) await proof(front.url, hash);
          const one: number[] = [];
          for (let i = 0; i < 20; i++) one.push(await proof(front.url, hash));
          const total = 32;
          let next = 0;
          const t = performance.now();
          await Promise.all(
            Array.from({ length: 4 }, async () => {
              while (next++ < total) await proof(front.url, hash);
            }),
          );
          const rate = total / ((performance.now() - t) / 1000);
          const p50 = percentile(one, 50);
          base ??= { p50, rate };
          rows.push([
            String(n),
            p50.toFixed(1),
            percentile(one, 99).toFixed(1),
            rate.toFixed(2),
            `${(p50 / base.p50).toFixed(2)} / ${(rate / base.rate).toFixed(2)}`,
          ]);
          console.log(`  ${n} prover(s): p50 ${p50.toFixed(1)} ms, ${rate.toFixed(2)} proofs/s at concurrency 4`);
        } finally {
          await front.gw.stop();
          rmSync(front.dir, { recursive: true, force: true });
        }
      }
    } finally {
      for (const p of provers) {
        await p.gw.stop();
        rmSync(p.dir, { recursive: true, force: true });
      }
    }
    console.log(`\n${SHAPE} through the front (ms; proofs/s at concurrency 4; ratios to one prover)`);
    table(['provers', 'p50 c=1', 'p99 c=1', 'proofs/s c=4', 'p50 / rate vs 1'], rows);
  }
}

/** Light's batch bodies, as Light's server queues them, `bytes` long each. */
async function foreignBodies(redis: Redis, n: number, bytes: number): Promise<void> {
  const blob = 'f'.repeat(bytes);
  for (let i = 0; i < n; i += 500) {
    const p = redis.pipeline();
    for (let j = i; j < Math.min(n, i + 500); j++)
      p.rpush(
        'zk_update_queue',
        `{"id":"f-${bytes}-${j}","type":"zk_proof","payload":{"circuitType":"update","blob":"${blob}"},"created_at":"2026-12-01T00:00:00Z"}`,
      );
    await p.exec();
  }
}

async function redisFigures(): Promise<void> {
  const redis = await startRedis(['--enable-debug-command', 'yes']);
  const raw = new Redis(redis.url);
  const log = createLogger('error');
  const open = (format: 'zkgate' | 'light', leaseMs: number) =>
    JobQueue.open({ url: redis.url, format, leaseMs, maxAttempts: 3, resultTtlS: 600, maxDepth: 10_000, log });
  try {
    const rows: string[][] = [];
    for (const foreign of [0, 10_000]) {
      await raw.flushall();
      if (foreign) {
        await foreignBodies(raw, 100, 200_000);
        await foreignBodies(raw, foreign, 20_000);
      }
      const q = await open('light', 30_000);
      const pings: number[] = [];
      let pinging = true;
      const pinger = (async () => {
        while (pinging) {
          const t = performance.now();
          await raw.ping();
          pings.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 2));
        }
      })();
      const claims: number[] = [];
      // 1000 jobs, four claimers at once, each job completed as soon as it is claimed.
      for (let i = 0; i < 1000; i++)
        await q.submit('prove', `{"circuitType":"inclusion","n":${i}}`, 'inclusion', SHAPE, { waitMs: 60_000 });
      await Promise.all(
        Array.from({ length: 4 }, async (_, w) => {
          for (;;) {
            const t = performance.now();
            const job = await q.claim(`host-${w}`, ['prove']);
            claims.push(performance.now() - t);
            if (!job) return;
            await q.complete(job.id, job.token, `host-${w}`, '{}', SHAPE, 'k');
          }
        }),
      );
      pinging = false;
      await pinger;
      q.close();
      rows.push([
        foreign ? `${foreign.toLocaleString('en-US')} × 20 KB + 100 × 200 KB` : 'none (baseline)',
        percentile(claims, 50).toFixed(2),
        percentile(claims, 99).toFixed(2),
        percentile(pings, 50).toFixed(2),
        percentile(pings, 99).toFixed(2),
        String(claims.length - 4),
      ]);
    }
    console.log(
      "\nLight's lists, 1,000 jobs claimed and completed by 4 claimers, PING from a second connection meanwhile",
    );
    table(['foreign bodies queued', 'claim p50 ms', 'claim p99 ms', 'PING p50 ms', 'PING p99 ms', 'jobs'], rows);

    // A 25 s stall of Redis with jobs in flight: how many are proved more than once.
    await raw.flushall();
    const leaseMs = 3000;
    const q = await open('zkgate', leaseMs);
    const proved = new Map<string, number>();
    const workers = await Promise.all(
      ['host-a', 'host-b'].map(async (host) => {
        const hq = await open('zkgate', leaseMs);
        const w = new QueueWorker({
          queue: hq,
          host,
          kinds: ['prove'],
          slots: 2,
          prove: async (job) => {
            proved.set(job.id, (proved.get(job.id) ?? 0) + 1);
            await new Promise((r) => setTimeout(r, 300));
            return { result: '{}', circuit: SHAPE, keySha256: 'k' };
          },
          log,
          leaseMs,
        });
        return { hq, w };
      }),
    );
    const ids: string[] = [];
    for (let i = 0; i < 40; i++)
      ids.push(
        (await q.submit('prove', `{"circuitType":"inclusion","stall":${i}}`, 'inclusion', SHAPE, { waitMs: 300_000 }))
          .id,
      );
    await new Promise((r) => setTimeout(r, 1000));
    const sleeper = new Redis(redis.url);
    const t0 = performance.now();
    await sleeper.call('DEBUG', 'SLEEP', '25');
    sleeper.disconnect();
    const stalled = performance.now() - t0;
    for (;;) {
      const states = await Promise.all(ids.map((id) => q.status(id)));
      if (states.every((s) => s?.status === 'completed' || s?.status === 'failed')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const states = await Promise.all(ids.map((id) => q.status(id)));
    for (const { hq, w } of workers) {
      await w.stop();
      hq.close();
    }
    const stats = await q.stats();
    q.close();
    const twice = [...proved.values()].filter((n) => n > 1).length;
    console.log(
      `\nRedis stalled ${(stalled / 1000).toFixed(1)} s (DEBUG SLEEP 25) with 40 jobs in flight on 2 hosts × 2 slots, lease ${leaseMs} ms: ` +
        `${states.filter((s) => s?.status === 'completed').length} completed, ${states.filter((s) => s?.status === 'failed').length} failed, ` +
        `${twice} proved more than once; lease expiries ${stats.leaseExpiries}, retries ${stats.retries}`,
    );
  } finally {
    raw.disconnect();
    await redis.close();
  }
}
