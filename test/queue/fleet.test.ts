// A prover fleet on a real Redis server: a front (--role rpc --queue) with the embedded ledger, and
// two prover hosts (--role prover --queue) as their own processes. Light's asynchronous /prove
// round trip, a compressed transfer proved through the queue, a host killed -9 mid-job, a
// poisoned job, Redis stopped and restarted under load, and a host on Light's list format
// consuming an entry written as Light's server writes it. Every proof is verified.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createRpc, type Rpc } from '@lightprotocol/stateless.js';
import { Redis } from 'ioredis';
import { appendInputs, emptyNodes } from '../../src/forester/batch-inputs.js';
import { createLogger } from '../../src/obs/log.js';
import { demoAccountHashes } from '../../src/prover/demo-data.js';
import { JobQueue, QueueProver } from '../../src/queue/index.js';
import { loadPoseidon, poseidon, shapeByName } from '../../src/zk/index.js';
import { TreeStore } from '../../src/state/index.js';
import { fromRaw, type RawProof } from '../../src/zk/proof-format.js';
import { runCli, type CliProcess } from '../helpers/cli.js';
import { startTransferLoad, TRANSFER_KEYS } from '../helpers/compressed-load.js';
import { httpRequest, linkKeyCache, rpcCall, startTestGateway, tempDir, type TestGateway } from '../helpers/gateway.js';
import { compressAndSend } from '../helpers/compress-and-send.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { assertVerifies } from '../helpers/zk.js';
import { keys, SMT1, verifyV1, warmKeys } from '../prover/helpers.js';

const CIRCUIT = 'v1_inclusion_26_1';
const LEASE_MS = 2000;
let redis: TestRedis;
let raw: Redis;
let front: TestGateway;
let rpc: Rpc;
let store: TreeStore;
/** A compressed account on the front's ledger (the transfer test's). */
let ledgerHash: string | undefined;
const hosts: { proc: CliProcess; dir: string }[] = [];
const dirs: string[] = [];

const toHex = (v: bigint) => '0x' + v.toString(16).padStart(64, '0');

/** Light /prove bodies of distinct leaves of one tree, with the public inputs their proofs have. */
let nextLeaf = 0;
function bodies(n: number): { body: string; publics: bigint[] }[] {
  return Array.from({ length: n }, () => {
    const p = store.stateTree(SMT1).proofByIndex(nextLeaf++);
    const body = {
      circuitType: 'inclusion',
      stateTreeHeight: 26,
      inputCompressedAccounts: [
        { root: toHex(p.root), pathIndex: p.leafIndex, pathElements: p.pathElements.map(toHex), leaf: toHex(p.leaf) },
      ],
    };
    return { body: JSON.stringify(body), publics: [p.root, p.leaf] };
  });
}

/** A prover host process on the queue (one proving thread), ready once its key is loaded. */
async function startHost(extra: string[] = []): Promise<{ proc: CliProcess; dir: string }> {
  const dir = tempDir();
  dirs.push(dir);
  linkKeyCache(dir);
  const proc = runCli([
    'start',
    '--role',
    'prover',
    '--queue',
    redis.url,
    '--queue-lease-ms',
    String(LEASE_MS),
    '--grpc-port',
    '0',
    '--prove-port',
    '0',
    '--forester',
    'off',
    '--prover-threads',
    '1',
    '--preload-circuits',
    `${CIRCUIT},${TRANSFER_KEYS[0]}`,
    '--data-dir',
    dir,
    ...extra,
  ]);
  for (let i = 0; !/circuits preloaded/.test(proc.stdout()); i++) {
    if (proc.child.exitCode !== null) throw new Error(`host exited: ${proc.stderr()}${proc.stdout()}`);
    if (i > 1800) throw new Error(`host did not start: ${proc.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const h = { proc, dir };
  hosts.push(h);
  return h;
}

before(async () => {
  await warmKeys();
  redis = await startRedis();
  raw = new Redis(redis.url);
  store = await TreeStore.open(tempDir());
  store.registerTree({ pubkey: SMT1, kind: 'state', version: 1 });
  store.stateTree(SMT1).append(demoAccountHashes(SMT1, 1, 0, 64, 'fleet'));
  await Promise.all([startHost(), startHost()]);
  front = await startTestGateway(
    { role: 'rpc', queue: redis.url, queueLeaseMs: LEASE_MS, provePort: 0 },
    {},
    { ledger: true },
  );
  rpc = createRpc(front.url, front.url);
});
after(async () => {
  await front?.stop();
  for (const h of hosts) {
    h.proc.child.kill('SIGKILL');
    await h.proc.exited;
  }
  await store?.close();
  raw?.disconnect();
  await redis?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const proveUrl = (path: string) => `http://127.0.0.1:${front.gateway.provePort}${path}`;
const post = (body: string, headers: Record<string, string> = { 'x-async': 'true' }) =>
  httpRequest(proveUrl('/prove'), { headers: { 'content-type': 'application/json', ...headers }, body });
const get = async (path: string) => {
  const r = await fetch(proveUrl(path));
  return { status: r.status, text: await r.text() };
};

/** Polls Light's status endpoint until the job completes (or fails); returns the final answer. */
async function statusUntilDone(id: string): Promise<{ status: number; json: any; text: string }> {
  for (;;) {
    const r = await get(`/prove/status?job_id=${id}`);
    const json = JSON.parse(r.text);
    if (r.status !== 202 || json.status === 'failed') return { ...r, json };
    await new Promise((res) => setTimeout(res, 100));
  }
}

const verifies = async (result: RawProof, publics: bigint[]) =>
  assertVerifies(await keys.verificationKey(CIRCUIT), publics, fromRaw(result));

test("Light's async /prove: 202 with a job id, status until completed, the proof verifies; equal inputs join the job", async () => {
  const { body, publics } = bodies(1)[0]!;
  const res = await post(body);
  assert.equal(res.status, 202, res.text);
  const queued = JSON.parse(res.text);
  assert.match(queued.job_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(
    res.text,
    JSON.stringify({
      circuit_type: 'inclusion',
      estimated_time: '1-3 seconds',
      job_id: queued.job_id,
      message: 'Proof generation queued for inclusion circuit. Use status_url to check progress.',
      queue: 'zkgate:proof_queue',
      status: 'queued',
      status_url: `/prove/status?job_id=${queued.job_id}`,
    }),
  );
  const done = await statusUntilDone(queued.job_id);
  assert.equal(done.status, 200, done.text);
  assert.deepEqual(Object.keys(done.json), ['job_id', 'result', 'status']);
  assert.equal(done.json.status, 'completed');
  assert.deepEqual(Object.keys(done.json.result), ['ar', 'bs', 'krs']);
  await verifies(done.json.result, publics);

  const again = await post(body);
  assert.equal(again.status, 202);
  assert.equal(
    again.text,
    JSON.stringify({
      circuit_type: 'inclusion',
      deduplicated: true,
      job_id: queued.job_id,
      message: 'Proof request with identical input already in queue. Returning existing job ID.',
      queue: 'zkgate:proof_queue',
      status: 'already_queued',
    }),
  );
  // Synchronous /prove on the front: proved through the queue too.
  const [sync] = bodies(1);
  const s = await post(sync!.body, {});
  assert.equal(s.status, 200, s.text);
  await verifies(JSON.parse(s.text), sync!.publics);

  const unknown = randomUUID();
  assert.deepEqual(await get(`/prove/status?job_id=${unknown}`), {
    status: 404,
    text: JSON.stringify({
      code: 'job_not_found',
      message: `Job with ID ${unknown} not found. It may have expired or never existed.`,
    }),
  });
  assert.deepEqual(await get('/prove/status?job_id=nope'), {
    status: 400,
    text: JSON.stringify({ code: 'invalid_job_id', message: 'Invalid job ID format. Job ID must be a valid UUID.' }),
  });
  const stats = await get('/queue/stats');
  assert.equal(stats.status, 200);
  const st = JSON.parse(stats.text);
  assert.deepEqual(Object.keys(st), ['queues', 'timestamp', 'total_active', 'total_failed', 'total_pending']);
  assert.deepEqual(Object.keys(st.queues), [
    'zkgate:batch_processing_queue',
    'zkgate:batch_queue',
    'zkgate:failed_queue',
    'zkgate:proof_processing_queue',
    'zkgate:proof_queue',
  ]);
  const health = JSON.parse((await get('/queue/health')).text);
  assert.equal(health.status, 'healthy');
});

test('a compressed transfer proved through the queue lands on the ledger; equal requests share one proof', async () => {
  const { payer, bob } = await compressAndSend(rpc);
  assert.equal((await rpc.getCompressedBalanceByOwner(bob.publicKey)).toString(), '250000000');
  assert.equal((await rpc.getCompressedBalanceByOwner(payer.publicKey)).toString(), '750000000');
  const hash = (await rpcCall(front.url, 'getCompressedAccountsByOwner', { owner: bob.publicKey.toBase58() })).result
    .value.items[0].hash;
  ledgerHash = hash;
  const completed = Number(await raw.hget('zkgate:stats', 'completed'));
  const results = await Promise.all(
    Array.from({ length: 4 }, () => rpcCall(front.url, 'getValidityProof', { hashes: [hash] })),
  );
  for (const r of results) {
    assert.ok(r.result, JSON.stringify(r.error));
    await verifyV1(r.result, 1, CIRCUIT);
  }
  assert.equal(Number(await raw.hget('zkgate:stats', 'completed')), completed + 1, 'four equal requests, one proof');
});

test('a poisoned job ends in the failed list with its error', async () => {
  const { body } = bodies(1)[0]!;
  const bad = JSON.parse(body);
  bad.inputCompressedAccounts[0].leaf = toHex(12345n);
  const res = await post(JSON.stringify(bad));
  const id = JSON.parse(res.text).job_id;
  const done = await statusUntilDone(id);
  assert.equal(done.status, 202);
  assert.deepEqual(Object.keys(done.json), ['error', 'failed_at', 'job_id', 'message', 'status']);
  assert.equal(done.json.status, 'failed');
  assert.match(done.json.error, /./);
  assert.equal(done.json.message, `Job processing failed: ${done.json.error}`);
  const entries = (await raw.lrange('zkgate:failed_queue', 0, -1)).map((e) => JSON.parse(e));
  const entry = entries.find((e) => e.id === `${id}_failed`);
  assert.equal(entry?.payload.error, done.json.error);
  assert.equal(entry?.payload.original_job.id, id);
  // The same inputs again: a new job (a failure is not served from the cache).
  const again = JSON.parse((await post(JSON.stringify(bad))).text);
  assert.notEqual(again.job_id, id);
  assert.equal((await statusUntilDone(again.job_id)).json.status, 'failed');
});

/** A queue client of the fleet's Redis, as a front opens one. */
const openQueue = () =>
  JobQueue.open({
    url: redis.url,
    format: 'zkgate',
    leaseMs: LEASE_MS,
    maxAttempts: 3,
    resultTtlS: 600,
    maxDepth: 100,
    log: createLogger('error'),
  });

test('a host builds no key for a job whose front did not allow it: refused with key_not_built, nothing built', async () => {
  // A shape the suite never builds; the hosts on loopback would build V1 keys for their own callers.
  const shape = 'v1_inclusion_26_3';
  const accounts = [0, 1, 2].map(() => store.stateTree(SMT1).proofByIndex(nextLeaf++));
  const body = JSON.stringify({
    circuitType: 'inclusion',
    stateTreeHeight: 26,
    inputCompressedAccounts: accounts.map((p) => ({
      root: toHex(p.root),
      pathIndex: p.leafIndex,
      pathElements: p.pathElements.map(toHex),
      leaf: toHex(p.leaf),
    })),
  });
  const queue = await openQueue();
  try {
    // As a front bound off loopback submits it: the job carries no build right.
    const job = await queue.submit('prove', body, 'inclusion', shape, { waitMs: 60_000, mayBuild: false });
    await assert.rejects(queue.wait(job.id, Date.now() + 60_000), (e: Error & { kind?: string }) => {
      assert.equal(e.kind, 'key_not_built');
      assert.match(e.message, new RegExp(`^no proving key for ${shape} yet, and a request may not start its build`));
      return true;
    });
  } finally {
    queue.close();
  }
  for (const h of hosts) assert.ok(!h.proc.stdout().includes(`"circuit":"${shape}","priority"`), 'no host built it');
  assert.equal(keys.status(shapeByName(shape)), 'missing', 'no key in the cache the hosts share');
});

test("the forester's batch proofs through the queue: proved by a host, its verifying key published", async () => {
  await loadPoseidon();
  const queue = await openQueue();
  try {
    const batch = appendInputs(
      emptyNodes(32),
      0,
      Array.from({ length: 10 }, (_, i) => poseidon([BigInt(i), 5n])),
    );
    const r = await new QueueProver(queue, 60_000).proveBatch('batch_append_32_10', batch.inputs);
    const vk = await keys.verificationKey('batch_append_32_10');
    await assertVerifies(vk, [batch.publicInputHash], r.points);
    assert.equal(r.keySha256, (await keys.ensure('batch_append_32_10')).entry.sha256);
    assert.deepEqual(await new QueueProver(queue, 1000).verifyingKey('batch_append_32_10', r.keySha256), vk);
  } finally {
    queue.close();
  }
});

test('V2 transfers on a queue front with the forester: its batch proofs made by the hosts land, balances exact', async () => {
  const load = await startTransferLoad({ queue: redis.url, config: { queueLeaseMs: LEASE_MS } });
  try {
    for (let i = 0; i < 12; i++) await load.transfer();
    await load.drained();
    await load.assertExact();
    // The compression's output and two per transfer: 25 leaves, two full append batches; 12
    // nullifiers, one update batch. Each was proved by a host and verified by the ledger's program.
    const info = load.gw.gateway.chain!.compression.trees.info(load.tree.tree.toBase58());
    assert.equal(info.nextIndex, 20);
    assert.deepEqual(load.gw.gateway.chain!.forester!.status().batches, { proved: 3, sent: 3, failed: 0, stale: 0 });
  } finally {
    await load.stop();
  }
});

test('a host killed -9 mid-job: its jobs come back when the lease runs out; every job completes once', async () => {
  const jobs = bodies(8);
  const completed = Number(await raw.hget('zkgate:stats', 'completed'));
  const expired = Number((await raw.hget('zkgate:stats', 'lease_expiries')) ?? 0);
  const ids = await Promise.all(jobs.map(async (j) => JSON.parse((await post(j.body)).text).job_id as string));
  // The first host seen holding a lease is frozen, checked to hold it still, then killed.
  let victim: { proc: CliProcess } | undefined;
  while (!victim) {
    const held = Object.values(await raw.hgetall('zkgate:leased')).map((v) => JSON.parse(v).pid as string);
    victim = hosts.find((h) => held.includes(String(h.proc.child.pid)));
    if (victim) {
      victim.proc.child.kill('SIGSTOP');
      const still = Object.values(await raw.hgetall('zkgate:leased')).map((v) => JSON.parse(v).pid as string);
      if (!still.includes(String(victim.proc.child.pid))) {
        victim.proc.child.kill('SIGCONT');
        victim = undefined;
      }
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  victim.proc.child.kill('SIGKILL');
  await victim.proc.exited;
  hosts.splice(hosts.indexOf(victim as (typeof hosts)[number]), 1);
  for (const [i, id] of ids.entries()) {
    const done = await statusUntilDone(id);
    assert.equal(done.status, 200, done.text);
    await verifies(done.json.result, jobs[i]!.publics);
  }
  assert.equal(Number(await raw.hget('zkgate:stats', 'completed')), completed + 8, 'each job completed once');
  assert.ok(Number(await raw.hget('zkgate:stats', 'lease_expiries')) > expired, 'the dead host’s lease ran out');
  assert.equal(await raw.hlen('zkgate:leased'), 0);
  // The front reads the fleet's counters from Redis every 2 s.
  let metrics = '';
  while (!/^zkgate_queue_lease_expiries [1-9]/m.test(metrics)) {
    await new Promise((r) => setTimeout(r, 200));
    metrics = await (await fetch(`${front.base}metrics`)).text();
  }
  assert.match(metrics, /^zkgate_queue_host_completed\{host="[^"]+"\} [1-9]/m);
  assert.match(metrics, /^zkgate_queue_up 1$/m);
});

test('Redis stopped under load: clear errors meanwhile, /health degraded; restarted, no job lost', async () => {
  const jobs = bodies(4);
  const ids = await Promise.all(jobs.map(async (j) => JSON.parse((await post(j.body)).text).job_id as string));
  await redis.stop();
  try {
    const [late] = bodies(1);
    const refused = await post(late!.body);
    assert.equal(refused.status, 503);
    const err = JSON.parse(refused.text);
    assert.equal(err.code, 'queue_unavailable');
    assert.match(err.message, new RegExp(`^job queue redis://127\\.0\\.0\\.1:${redis.port} unreachable: `));
    assert.ok(ledgerHash, 'the transfer test ran first');
    const rpcErr = (await rpcCall(front.url, 'getValidityProof', { hashes: [ledgerHash] })).error;
    assert.equal(rpcErr?.code, -32014, JSON.stringify(rpcErr));
    assert.match(rpcErr.message, /^job queue redis:\/\/127\.0\.0\.1:\d+ unreachable: /);
    const health = (await (await fetch(`${front.base}health`)).json()) as {
      status: string;
      components: Record<string, { status: string; detail?: string }>;
    };
    assert.equal(health.status, 'degraded');
    assert.equal(health.components.queue?.status, 'degraded');
    assert.match(health.components.queue!.detail!, /^job queue redis:\/\/127\.0\.0\.1:\d+ unreachable: /);
  } finally {
    await redis.start();
  }
  // The front reconnects on its own; until then /health says degraded (and calls are refused as above).
  const queueStatus = async () =>
    ((await (await fetch(`${front.base}health`)).json()) as { components: Record<string, { status: string }> })
      .components.queue?.status;
  while ((await queueStatus()) !== 'ready') await new Promise((r) => setTimeout(r, 100));
  for (const [i, id] of ids.entries()) {
    const done = await statusUntilDone(id);
    assert.equal(done.status, 200, done.text);
    await verifies(done.json.result, jobs[i]!.publics);
  }
});

test("--queue-format light: a zkgate host proves a job written in Light's format to Light's lists", async () => {
  const url = `${redis.url}/1`;
  const db1 = new Redis(url);
  const host = await startTestGateway(
    { role: 'prover', queue: url, queueFormat: 'light', queueLeaseMs: LEASE_MS, provePort: 0 },
    {},
    { prover: true, keys: [CIRCUIT] },
  );
  try {
    const { body, publics } = bodies(1)[0]!;
    const id = randomUUID();
    // Light's server: {"id","type","payload","created_at"}, the payload the compacted /prove body.
    await db1.rpush(
      'zk_update_queue',
      `{"id":"${id}","type":"zk_proof","payload":${body},"created_at":"2026-11-28T12:00:00.123456789Z"}`,
    );
    let result: string | null = null;
    while (!(result = await db1.get(`zk_result_${id}`))) await new Promise((r) => setTimeout(r, 100));
    await verifies(JSON.parse(result), publics);
    assert.equal(await db1.llen('zk_update_queue'), 0);
    assert.equal(await db1.llen('zk_update_processing_queue'), 0);
    const entry = JSON.parse((await db1.lrange('zk_results_queue', -1, -1))[0]!);
    assert.deepEqual([entry.id, entry.type, entry.payload], [id, 'result', JSON.parse(result)]);
  } finally {
    await host.stop();
    db1.disconnect();
  }
});
