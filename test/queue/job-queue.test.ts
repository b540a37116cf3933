// The job queue's state changes on a real Redis server, without proofs: claims, leases that run
// out, retries and the failed list, de-duplication, bounded depth, Light's list entries, and a
// Redis that stops and comes back; and the faults a review found (issue 49): claims that read
// queued bodies, a completed job queued again, hosts' clocks, jobs nobody waits for, dedup joining
// a dead job, a cluster, one slot releasing another's lease.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { createLogger } from '../../src/obs/log.js';
import { resolveConfig } from '../../src/config.js';
import { JobQueue, redactRedisUrl, type QueueFormat } from '../../src/queue/index.js';
import { KEYS } from '../../src/queue/layout.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

let redis: TestRedis;
let raw: Redis;
const log = createLogger('error');
const queues: JobQueue[] = [];

before(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url);
});
after(async () => {
  for (const q of queues) q.close();
  raw?.disconnect();
  await redis?.close();
});

const open = async (o: { format?: QueueFormat; leaseMs?: number; maxAttempts?: number; maxDepth?: number } = {}) => {
  const q = await JobQueue.open({
    url: redis.url,
    format: o.format ?? 'zkgate',
    leaseMs: o.leaseMs ?? 30_000,
    maxAttempts: o.maxAttempts ?? 3,
    resultTtlS: 600,
    maxDepth: o.maxDepth ?? 100,
    log,
  });
  queues.push(q);
  return q;
};

/** A payload unique to the test (the queue's de-duplication would join equal ones). */
let n = 0;
const body = (circuitType = 'inclusion') =>
  JSON.stringify({ circuitType, stateTreeHeight: 26, inputCompressedAccounts: [{ leaf: `0x${(++n).toString(16)}` }] });
const PROVE = ['prove'] as const;
const WANTED = { waitMs: 60_000 };

test('a job goes queued → processing → completed, its result kept with a TTL', async () => {
  const q = await open();
  const job = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  assert.equal(job.deduplicated, false);
  assert.equal(job.queue, 'zkgate:proof_queue');
  assert.equal((await q.status(job.id))?.status, 'queued');
  const claimed = await q.claim('host-a', PROVE);
  assert.equal(claimed?.id, job.id);
  assert.equal(claimed?.attempts, 1);
  const s = await q.status(job.id);
  assert.equal(s?.status, 'processing');
  assert.equal(s?.host, 'host-a');
  assert.equal(await raw.llen('zkgate:proof_processing_queue'), 1);
  assert.equal(await q.claim('host-b', PROVE), undefined, 'one job, one claim');
  assert.equal(await q.complete(job.id, claimed!.token, 'host-a', '{"ar":["0x1"]}', 'v1_inclusion_26_1', 'abc'), true);
  const done = await q.wait(job.id, Date.now() + 1000);
  assert.equal(done.status, 'completed');
  assert.equal(done.result, '{"ar":["0x1"]}');
  assert.equal(done.keySha256, 'abc');
  assert.equal(await raw.llen('zkgate:proof_processing_queue'), 0);
  const ttl = await raw.ttl(`zkgate:result:${job.id}`);
  assert.ok(ttl > 0 && ttl <= 600, `result TTL ${ttl}`);
  assert.equal(await raw.zcard(KEYS.leases), 0);
});

test('identical inputs share one job while it is queued or done; after a failure they are tried again', async () => {
  const q = await open();
  const b = body();
  const first = await q.submit('prove', b, 'inclusion', 'v1_inclusion_26_1', WANTED);
  const again = await q.submit('prove', b, 'inclusion', 'v1_inclusion_26_1', WANTED);
  assert.deepEqual(again, { id: first.id, deduplicated: true, queue: first.queue });
  const claimed = await q.claim('host-a', PROVE);
  assert.equal(claimed?.id, first.id);
  assert.equal(await q.fail(first.id, claimed!.token, 'bad root', 'proof_failed', false), 'failed');
  const third = await q.submit('prove', b, 'inclusion', 'v1_inclusion_26_1', WANTED);
  assert.notEqual(third.id, first.id);
  assert.equal(third.deduplicated, false);
  const c3 = await q.claim('host-a', PROVE);
  await q.complete(third.id, c3!.token, 'host-a', '{}', 'v1_inclusion_26_1', 'k');
  assert.equal((await q.submit('prove', b, 'inclusion', 'v1_inclusion_26_1', WANTED)).id, third.id);
});

test('a lease that runs out puts the job back; the first result wins; attempts end in the failed list', async () => {
  const q = await open({ leaseMs: 1000, maxAttempts: 2 });
  const job = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  const a = await q.claim('host-a', PROVE);
  assert.equal(a?.id, job.id);
  assert.deepEqual(await q.reap(), { requeued: 0, failed: 0 }, 'not expired yet');
  await new Promise((r) => setTimeout(r, 1100));
  assert.deepEqual(await q.reap(), { requeued: 1, failed: 0 });
  assert.equal((await q.status(job.id))?.status, 'queued');
  assert.equal(await raw.llen('zkgate:proof_processing_queue'), 0, "the dead host's processing entry is gone");
  assert.equal(await q.renew(job.id, a!.token), false, 'the lease is no longer host-a’s');
  const again = await q.claim('host-b', PROVE);
  assert.equal(again?.id, job.id);
  assert.equal(again?.attempts, 2);
  // host-a finishes late: its result is the job's; host-b's later one is dropped.
  assert.equal(await q.complete(job.id, a!.token, 'host-a', '{"by":"a"}', 'c', 'k'), true);
  assert.equal(await q.complete(job.id, again!.token, 'host-b', '{"by":"b"}', 'c', 'k'), false);
  assert.equal((await q.status(job.id))?.result, '{"by":"a"}');
  assert.equal(await raw.zcard(KEYS.leases), 0);

  // Two expiries with maxAttempts 2: failed, naming the last host.
  const doomed = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  for (const host of ['host-a', 'host-b']) {
    assert.equal((await q.claim(host, PROVE))?.id, doomed.id);
    await new Promise((r) => setTimeout(r, 1100));
    await q.reap();
  }
  const s = await q.status(doomed.id);
  assert.equal(s?.status, 'failed');
  assert.equal(s?.error, 'lease expired 2 times: the hosts proving it stopped answering (last: host-b)');
  await assert.rejects(q.wait(doomed.id, Date.now() + 1000), {
    kind: 'prover_unavailable',
    message: s?.error,
  });
  const failed = JSON.parse((await raw.lrange('zkgate:failed_queue', -1, -1))[0]!);
  assert.equal(failed.id, `${doomed.id}_failed`);
  assert.equal(failed.type, 'failed');
  assert.equal(failed.payload.error, s?.error);
  assert.equal(failed.payload.original_job.id, doomed.id);
  const stats = await q.stats();
  assert.ok(stats.leaseExpiries >= 3 && stats.retries >= 2, JSON.stringify(stats));
});

test('retryable failures go back until the attempts run out; permanent ones fail at once', async () => {
  const q = await open({ maxAttempts: 3 });
  const job = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  for (let i = 1; i <= 3; i++) {
    const c = await q.claim(`host-${i}`, PROVE);
    assert.equal(c?.attempts, i);
    const outcome = await q.fail(job.id, c!.token, 'no key for v1_inclusion_26_1 here', 'key_not_built', true);
    assert.equal(outcome, i < 3 ? 'retried' : 'failed');
  }
  const s = await q.status(job.id);
  assert.equal(s?.status, 'failed');
  assert.equal(s?.errorKind, 'key_not_built');
  await assert.rejects(q.wait(job.id, Date.now() + 1000), { kind: 'key_not_built' });
  const bad = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  const held = await q.claim('host-1', PROVE);
  assert.equal(await q.fail(bad.id, held!.token, 'root mismatch', 'proof_failed', false), 'failed');
  assert.equal(await q.fail(bad.id, held!.token, 'again', 'proof_failed', false), 'lost', 'nothing of host-1’s left');
});

test('a full list refuses new jobs as busy', async () => {
  await raw.del('zkgate:proof_queue', 'zkgate:ready:prove');
  const q = await open({ maxDepth: 2 });
  await q.submit('prove', body(), 'inclusion', 'x', WANTED);
  await q.submit('prove', body(), 'inclusion', 'x', WANTED);
  await assert.rejects(q.submit('prove', body(), 'inclusion', 'x', WANTED), {
    kind: 'prover_busy',
    message: 'Prover busy: the job queue zkgate:proof_queue holds 2 jobs (--queue-max-jobs); retry later',
  });
  await raw.del('zkgate:proof_queue', 'zkgate:ready:prove');
});

test("Light's lists: a job Light's processes wrote at the head is taken in and claimed; batch bodies are left, and so is a job behind one", async () => {
  const q = await open({ format: 'light' });
  const id = '0b0c5a4e-6f53-4b7e-9d55-3c1f4a0e2a11';
  const batchId = '7d1d4d7e-2b1a-4c8f-8d8e-5a0b9c3e4f21';
  const behindId = '5e6f7a8b-1c2d-4e3f-8a9b-0c1d2e3f4a5b';
  // As Light's server writes them (Go: struct field order, RFC 3339 with nanoseconds).
  const batch = `{"id":"${batchId}","type":"zk_proof","payload":{"circuitType":"update","batchSize":10},"created_at":"2026-11-28T12:00:00.123456789Z"}`;
  const entry = `{"id":"${id}","type":"zk_proof","payload":{"circuitType":"inclusion","stateTreeHeight":26,"inputCompressedAccounts":[]},"created_at":"2026-11-28T12:00:01.5Z"}`;
  const behind = entry.replaceAll(id, behindId);
  await raw.rpush('zk_update_queue', entry, batch, behind);
  assert.equal(await q.claim('host-a', PROVE), undefined, "nothing of zkgate's own to claim");
  assert.equal(await q.intake(['inclusion', 'non-inclusion', 'combined']), true);
  const c = await q.claim('host-a', PROVE);
  assert.equal(c?.id, id);
  assert.equal(c?.entry, entry);
  assert.equal(c?.mayBuild, false, "a job Light's processes wrote carries no build right");
  // The head is a batch body no zkgate host proves: nothing more is taken in.
  assert.equal(await q.intake(['inclusion', 'non-inclusion', 'combined']), false);
  assert.deepEqual(
    await raw.lrange('zk_update_queue', 0, -1),
    [batch, behind],
    "Light's batch job, and the job behind it, are left for Light's workers",
  );
  const [proc] = await raw.lrange('zk_update_processing_queue', 0, -1);
  assert.match(
    proc!,
    new RegExp(
      `^\\{"id":"${id}_processing","type":"processing","payload":\\{"circuitType":"inclusion","stateTreeHeight":26,"inputCompressedAccounts":\\[\\]\\},"created_at":"[^"]+"\\}$`,
    ),
  );
  assert.equal(await q.complete(id, c!.token, 'host-a', '{"ar":["0x1"],"bs":[["0x2"]],"krs":["0x3"]}', 'c', 'k'), true);
  assert.equal(await raw.get(`zk_result_${id}`), '{"ar":["0x1"],"bs":[["0x2"]],"krs":["0x3"]}');
  const result = JSON.parse((await raw.lrange('zk_results_queue', -1, -1))[0]!);
  assert.deepEqual(
    { id: result.id, type: result.type, payload: result.payload },
    { id, type: 'result', payload: { ar: ['0x1'], bs: [['0x2']], krs: ['0x3'] } },
  );
  assert.equal(await raw.llen('zk_update_processing_queue'), 0);
  // A job Light's own worker finished (no zkgate record): completed, from its result key.
  const foreign = '1a2b3c4d-0000-4000-8000-000000000001';
  await raw.set(`zk_result_${foreign}`, '{"ar":[]}');
  assert.deepEqual(await q.status(foreign), { id: foreign, status: 'completed', result: '{"ar":[]}' });
  await raw.del('zk_update_queue');
});

test('Redis stopped: calls fail at once naming the queue; restarted, the queued job is still there', async () => {
  const q = await open();
  const job = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  await redis.stop();
  try {
    await assert.rejects(q.submit('prove', body(), 'inclusion', 'x', WANTED), (e: Error & { kind?: string }) => {
      assert.equal(e.kind, 'prover_unavailable');
      assert.match(e.message, new RegExp(`^job queue redis://127\\.0\\.0\\.1:${redis.port} unreachable: `));
      return true;
    });
    await assert.rejects(q.ping(), { kind: 'prover_unavailable' });
  } finally {
    await redis.start();
  }
  // The client reconnects on its own.
  for (
    let i = 0;
    i < 50 &&
    (await q.ping().then(
      () => false,
      () => true,
    ));
    i++
  )
    await new Promise((r) => setTimeout(r, 100));
  assert.equal((await q.status(job.id))?.status, 'queued');
  assert.equal((await q.claim('host-a', PROVE))?.id, job.id);
});

test('--queue: config rules', () => {
  const resolve = (flags: Record<string, unknown>) => resolveConfig(flags, {}, undefined);
  assert.equal(resolve({ role: 'rpc', queue: 'redis://:pw@10.0.0.5:6379/2' }).queue, 'redis://:pw@10.0.0.5:6379/2');
  assert.equal(resolve({ role: 'prover', queue: 'rediss://redis.internal:6380' }).queueFormat, 'zkgate');
  assert.throws(
    () => resolve({ queue: 'http://x:1' }),
    /--queue: expected a redis:\/\/ or rediss:\/\/ URL, got "http:"/,
  );
  assert.throws(() => resolve({ queue: 'redis://x:1/db' }), /--queue: the database must be a number, got "\/db"/);
  assert.throws(
    () => resolve({ role: 'rpc', queue: 'redis://x:1', proverUrl: '127.0.0.1:1' }),
    /--role rpc proves through --queue or --prover-url: set one of them/,
  );
  assert.throws(() => resolve({ role: 'rpc' }), /needs proverUrl \(--prover-url host:port of a prover\) or queue/);
  assert.throws(() => resolve({ queue: 'redis://x:1', queueFormat: 'celery' }), /expected one of zkgate, light/);
  assert.throws(() => resolve({ queue: 'redis://x:1', queueLeaseMs: 10 }), /queueLeaseMs must be at least 1000/);
  assert.throws(
    () => resolve({ role: 'rpc', queue: 'redis://x:1', host: '0.0.0.0' }),
    /Light's \/prove API of this queue front would listen on 0\.0\.0\.0 without authentication: set --prover-api-key/,
  );
  assert.equal(resolve({ role: 'rpc', queue: 'redis://x:1', host: '0.0.0.0', proverHost: '127.0.0.1' }).role, 'rpc');
  assert.equal(redactRedisUrl('redis://:secret@h:1/0'), 'redis://:***@h:1/0');
});

// ── The faults of issue 49, each a test that failed on the code before it ──

/**
 * Lets `ms` pass as a fleet would, a reaper running every half lease (a long gap between reaps
 * reads as a Redis stall, which reaps nothing: scripts.ts REAP); what the reaps took back, summed.
 */
async function reaping(q: JobQueue, ms: number, leaseMs: number): Promise<{ requeued: number; failed: number }> {
  // A pass first, as the fleet's reapers would have made one lately.
  const sum = { ...(await q.reap()) };
  for (const end = Date.now() + ms; Date.now() < end;) {
    await new Promise((r) => setTimeout(r, Math.min(leaseMs / 2, Math.max(1, end - Date.now()))));
    const r = await q.reap();
    sum.requeued += r.requeued;
    sum.failed += r.failed;
  }
  return sum;
}

/** Calls made of each Redis command since the last reset (inside scripts too), from INFO commandstats. */
async function commandCalls(): Promise<Record<string, number>> {
  const info = await raw.info('commandstats');
  return Object.fromEntries([...info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
}

test("a claim reads no queued body: with 150 of Light's 200 KB batch bodies and 10,000 more queued, a client proof is claimed with no range read", async () => {
  const q = await open({ format: 'light' });
  const blob = 'f'.repeat(200_000);
  const pipe = raw.pipeline();
  for (let i = 0; i < 150; i++)
    pipe.rpush(
      'zk_update_queue',
      `{"id":"u-${i}","type":"zk_proof","payload":{"circuitType":"update","blob":"${blob}"},"created_at":"2026-12-01T00:00:00Z"}`,
    );
  for (let i = 0; i < 10_000; i++)
    pipe.rpush(
      i % 2 ? 'zk_append_queue' : 'zk_address_append_queue',
      `{"id":"a-${i}","type":"zk_proof","payload":{"circuitType":"address-append"},"created_at":"2026-12-01T00:00:00Z"}`,
    );
  await pipe.exec();
  try {
    const job = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
    await raw.config('RESETSTAT');
    const c = await q.claim('host-a', PROVE);
    assert.equal(c?.id, job.id, 'found (a claim once looked at the first 100 entries of each list only)');
    const calls = await commandCalls();
    for (const read of ['lrange', 'lindex', 'lpos'])
      assert.equal(calls[read] ?? 0, 0, `a claim ran ${read} (it decoded queued bodies)`);
    assert.equal(await raw.llen('zk_update_queue'), 150, "Light's bodies are all still there for Light's workers");
  } finally {
    await raw.del('zk_update_queue', 'zk_append_queue', 'zk_address_append_queue', 'zk_update_processing_queue');
  }
});

test('no kind waits for good: with client proofs always queued, the forester’s batch jobs are taken too', async () => {
  const q = await open();
  for (let i = 0; i < 12; i++) await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  const batch = await q.submit('batch', body('zkgate-batch'), 'zkgate-batch', 'batch_append_32_10', WANTED);
  const order: string[] = [];
  const { QueueWorker } = await import('../../src/queue/worker.js');
  const w = new QueueWorker({
    queue: q,
    host: 'host-a',
    kinds: ['prove', 'batch'],
    slots: 1,
    prove: async (job) => {
      order.push(job.id);
      return { result: '{}', circuit: 'c', keySha256: 'k' };
    },
    log,
    leaseMs: 30_000,
  });
  while (!order.includes(batch.id) && order.length < 13) await new Promise((r) => setTimeout(r, 10));
  await w.stop();
  // The proofs it did not take are no other test's.
  await raw.del('zkgate:proof_queue', 'zkgate:batch_queue', KEYS.ready('prove'), KEYS.ready('batch'));
  assert.ok(order.indexOf(batch.id) >= 0 && order.indexOf(batch.id) < 4, `batch taken at ${order.indexOf(batch.id)}`);
});

test('a completed job is never queued or failed again, and every key it made expires', async () => {
  const q = await open({ leaseMs: 600, maxAttempts: 5 });
  const job = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  const a = await q.claim('host-a', PROVE);
  assert.deepEqual(await reaping(q, 800, 600), { requeued: 1, failed: 0 }, "a's lease ran out");
  const b = await q.claim('host-b', PROVE);
  assert.equal(b?.id, job.id);
  // a finishes late: its result is the job's.
  assert.equal(await q.complete(job.id, a!.token, 'host-a', '{"by":"a"}', 'c', 'k'), true);
  // b's lease runs out: the reaper leaves the completed job as it is (it once queued it again).
  assert.deepEqual(await reaping(q, 800, 600), { requeued: 0, failed: 0 });
  assert.equal((await q.status(job.id))?.status, 'completed');
  assert.equal(await q.claim('host-c', PROVE), undefined, 'nothing to prove a third time');
  // A late failure of b's changes nothing either (it once failed the job, counted, in the failed list).
  const failedBefore = (await q.stats()).failed;
  assert.equal(await q.fail(job.id, b!.token, 'late', 'prover_internal', false), 'lost');
  assert.equal((await q.stats()).failed, failedBefore);
  assert.equal((await q.status(job.id))?.result, '{"by":"a"}');
  // Every key of the job expires.
  for (const key of await raw.keys(`*${job.id}*`)) assert.ok((await raw.ttl(key)) > 0, `${key} has no TTL`);
  assert.equal(await raw.hexists(KEYS.leased, job.id), 0);
  assert.equal(await raw.zscore(KEYS.leases, job.id), null);

  // The variant: b's claim fails for good after a completed: the job stays completed.
  const two = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  const a2 = await q.claim('host-a', PROVE);
  await reaping(q, 800, 600);
  const b2 = await q.claim('host-b', PROVE);
  assert.equal(await q.complete(two.id, a2!.token, 'host-a', '{}', 'c', 'k'), true);
  assert.equal(await q.fail(two.id, b2!.token, 'bad', 'proof_failed', false), 'done');
  assert.equal((await q.status(two.id))?.status, 'completed');
  assert.equal((await q.stats()).failed, failedBefore, 'not counted as failed');
});

test("leases run on Redis's clock: a process whose clock is 20 s ahead reaps no live lease", async () => {
  const q = await open({ leaseMs: 10_000 });
  const job = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  const c = await q.claim('host-a', PROVE);
  const now = Date.now;
  Date.now = () => now() + 20_000;
  try {
    assert.deepEqual(await q.reap(), { requeued: 0, failed: 0 }, 'the lease still has ~10 s');
    assert.equal(await q.renew(job.id, c!.token), true);
  } finally {
    Date.now = now;
  }
  assert.equal((await q.status(job.id))?.status, 'processing');
  await q.complete(job.id, c!.token, 'host-a', '{}', 'c', 'k');
});

test('a job nobody waits for any more is not proved: dropped at its claim, counted; a proof past its deadline loses its lease', async () => {
  const q = await open({ leaseMs: 400 });
  const stale = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', { waitMs: 200 });
  const waiting = q.wait(stale.id, Date.now() + 5000);
  await new Promise((r) => setTimeout(r, 300));
  const before = (await q.stats()).expired;
  assert.equal(await q.claim('host-a', PROVE), undefined, 'past its deadline: not claimed');
  assert.equal((await q.stats()).expired, before + 1);
  await assert.rejects(waiting, (e: Error & { kind?: string }) => e.kind === 'prover_timeout');
  assert.equal(await raw.llen('zkgate:proof_queue'), 0, 'its entry is gone');
  // Claimed in time, then outlived: renewal is refused, the reaper ends the job.
  const slow = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', { waitMs: 300 });
  const c = await q.claim('host-a', PROVE);
  assert.ok(c && c.msLeft > 0 && c.msLeft <= 300, String(c?.msLeft));
  await new Promise((r) => setTimeout(r, 350));
  assert.equal(await q.renew(slow.id, c!.token), false);
  assert.deepEqual(await reaping(q, 900, 400), { requeued: 0, failed: 1 });
  const s = await q.status(slow.id);
  assert.equal(s?.errorKind, 'prover_timeout');
  assert.equal(await q.complete(slow.id, c!.token, 'host-a', '{}', 'c', 'k'), false, 'a result for nobody is refused');
  // A queued job past its deadline with no host to take it ends at the reaper's next pass.
  const idle = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', { waitMs: 100 });
  await reaping(q, 200, 400);
  assert.equal((await q.status(idle.id))?.status, 'failed');
  assert.equal(await raw.llen(KEYS.ready('prove')), 0);
});

test("Light's lists: a batch body a Light worker took and lost holds its inputs only until its deadline; zkgate's own jobs are not in Light's lists", async () => {
  const q = await open({ format: 'light' });
  // What a front queues for Light's workers: one of Light's batch bodies (zkgate hosts never prove it).
  const b = JSON.stringify({ circuitType: 'update', batchSize: 10, n: ++n });
  const first = await q.submit('light', b, 'update', 'batch_update_32_10', { waitMs: 300 });
  // A Light worker pops it (BLPOP on Light's list) and dies: zkgate's record is never told.
  assert.match((await raw.lpop('zk_update_queue'))!, new RegExp(first.id));
  assert.equal(
    (await q.submit('light', b, 'update', 'batch_update_32_10', WANTED)).id,
    first.id,
    'joined while wanted',
  );
  await new Promise((r) => setTimeout(r, 400));
  const again = await q.submit('light', b, 'update', 'batch_update_32_10', WANTED);
  assert.notEqual(again.id, first.id, 'a new job once the first is past its deadline (it joined for a day)');
  assert.match(
    (await raw.lindex('zk_update_queue', 0))!,
    new RegExp(again.id),
    "the new one is queued for Light's workers",
  );
  // A client proof goes to zkgate's list: no Light worker pops it, so none can lose it.
  const own = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  assert.equal(own.queue, 'zkgate:proof_queue');
  assert.equal(await raw.llen('zk_update_queue'), 1);
  assert.equal((await q.claim('host-a', PROVE))?.id, own.id);
  await raw.del('zk_update_queue', 'zkgate:proof_queue', 'zkgate:proof_processing_queue', KEYS.ready('light'));
});

test("Light's lists: a taken-in job a Light worker popped meanwhile is Light's; found without scanning Light's list", async () => {
  const q = await open({ format: 'light' });
  const id = '3c4d5e6f-0000-4000-8000-00000000c0de';
  const entry = `{"id":"${id}","type":"zk_proof","payload":{"circuitType":"inclusion","stateTreeHeight":26,"inputCompressedAccounts":[]},"created_at":"2026-12-02T00:00:00Z"}`;
  await raw.rpush('zk_update_queue', entry);
  const pipe = raw.pipeline();
  for (let i = 0; i < 5000; i++)
    pipe.rpush(
      'zk_update_queue',
      `{"id":"u-${i}","type":"zk_proof","payload":{"circuitType":"update"},"created_at":"2026-12-02T00:00:00Z"}`,
    );
  await pipe.exec();
  assert.equal(await q.intake(['inclusion']), true);
  assert.equal(await raw.lpop('zk_update_queue'), entry, 'a Light worker pops the head');
  await raw.config('RESETSTAT');
  assert.equal(await q.claim('host-a', PROVE), undefined, 'nothing left to claim');
  assert.equal((await q.status(id))?.host, 'a Light worker');
  assert.equal(await raw.llen('zk_update_queue'), 5000, "Light's bodies untouched");
  const calls = await commandCalls();
  assert.equal(calls.lrem ?? 0, 0, "no LREM ran through Light's list");
  await raw.del('zk_update_queue');
});

test('one claim cannot release or fail another, even of the same host', async () => {
  const q = await open();
  const j1 = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  const j2 = await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED);
  const c1 = await q.claim('host-a', PROVE);
  const c2 = await q.claim('host-a', PROVE);
  assert.deepEqual([c1?.id, c2?.id], [j1.id, j2.id]);
  assert.notEqual(c1!.token, c2!.token);
  assert.equal(await q.fail(j1.id, c2!.token, 'wrong slot', 'proof_failed', false), 'lost');
  assert.equal(await q.renew(j1.id, c2!.token), false);
  assert.equal((await q.status(j1.id))?.status, 'processing', 'j1 is still c1’s');
  assert.ok((await raw.zscore(KEYS.leases, j1.id)) !== null);
  assert.equal(await q.complete(j1.id, c1!.token, 'host-a', '{}', 'c', 'k'), true);
  assert.equal(await q.complete(j2.id, c2!.token, 'host-a', '{}', 'c', 'k'), true);
  for (const id of [j1.id, j2.id]) assert.equal(await raw.hexists(KEYS.leased, id), 0);
});

test('a Redis Cluster is refused at start, naming why; an eviction policy is warned about', async () => {
  const cluster = await startRedis(['--cluster-enabled', 'yes']);
  try {
    await assert.rejects(
      JobQueue.open({
        url: cluster.url,
        format: 'zkgate',
        leaseMs: 1000,
        maxAttempts: 1,
        resultTtlS: 1,
        maxDepth: 1,
        log,
      }),
      (e: Error) => {
        assert.equal(
          e.message,
          `job queue ${cluster.url} is a Redis Cluster: zkgate's queue needs a standalone Redis (or a primary with replicas)`,
        );
        return true;
      },
    );
  } finally {
    await cluster.close();
  }
  const lru = await startRedis(['--maxmemory-policy', 'allkeys-lru']);
  const lines: string[] = [];
  const warnings = createLogger('warn', (c) => lines.push(c));
  try {
    const q = await JobQueue.open({
      url: lru.url,
      format: 'zkgate',
      leaseMs: 1000,
      maxAttempts: 1,
      resultTtlS: 1,
      maxDepth: 1,
      log: warnings,
    });
    q.close();
    warnings.flush();
    assert.ok(
      lines.some(
        (l) => l.includes('Redis may evict jobs and results') && l.includes('"maxmemoryPolicy":"allkeys-lru"'),
      ),
      lines.join(''),
    );
  } finally {
    await lru.close();
  }
});

test('Redis stalled for several leases: the holders keep their jobs, none is proved twice', async () => {
  const q = await open({ leaseMs: 500 });
  const ids = new Set<string>();
  for (let i = 0; i < 4; i++) ids.add((await q.submit('prove', body(), 'inclusion', 'v1_inclusion_26_1', WANTED)).id);
  const held = [];
  for (let i = 0; i < 4; i++) held.push((await q.claim('host-a', PROVE))!);
  await reaping(q, 200, 500);
  // The server stops answering for 2 s (four leases): no lease can be renewed meanwhile.
  const pauser = new Redis(redis.url);
  await pauser.call('CLIENT', 'PAUSE', '2000', 'ALL');
  pauser.disconnect();
  // The first reaper pass after it gives every lease another lease's time instead of taking them all.
  assert.deepEqual(await q.reap(), { requeued: 0, failed: 0 });
  for (const c of held) assert.equal(await q.renew(c.id, c.token), true, 'still its holder’s');
  assert.equal(await q.claim('host-b', PROVE), undefined, 'nothing for a second host to prove');
  for (const c of held) assert.equal(await q.complete(c.id, c.token, 'host-a', '{}', 'c', 'k'), true);
  assert.ok((await q.stats()).completed >= 4);
  assert.deepEqual(new Set(held.map((c) => c.id)), ids);
});
