// Background proofs (the forester's) on the prover pool: they run only when no client request
// waits and never on the last free worker, so a client's proof starts at once.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { finishAfter, ProverPool } from '../../src/prover/pool.js';
import type { ProveJob } from '../../src/prover/backend.js';
import { TreeStore } from '../../src/state/index.js';
import {
  circuitInputs,
  inclusionWitness,
  KeyStore,
  loadPoseidon,
  shapeByName,
  shutdownZk,
} from '../../src/zk/index.js';
import { NICE_PROVER } from '../../src/util/thread-priority.js';
import { tempDir } from '../helpers/gateway.js';
import { KEY_CACHE } from '../helpers/zk.js';

let pool: ProverPool;
let job: ProveJob;
let dir: string;

before(async () => {
  await loadPoseidon();
  dir = tempDir('zkgate-priority-');
  const store = await TreeStore.open(dir);
  store.registerTree({ pubkey: 'tree', kind: 'state', version: 2 });
  store.stateTree('tree').append([11n, 22n]);
  const inputs = circuitInputs(
    shapeByName('v2_inclusion_32_1'),
    [inclusionWitness(store.stateTree('tree').proofByIndex(1))],
    [],
  );
  await store.close();
  const key = await new KeyStore(KEY_CACHE).ensure('v2_inclusion_32_1');
  job = { shape: key.shape.name, zkeyPath: key.zkeyPath, wasmPath: key.wasmPath, keyBytes: 0, inputs };
  pool = new ProverPool({ backend: 'native', threads: 2, maxQueue: 8, memoryBudgetBytes: 2 ** 30 });
  // Both workers load the key before the measured runs.
  await Promise.all([
    pool.run(job, { deadline: Date.now() + 60_000 }),
    pool.run(job, { deadline: Date.now() + 60_000 }),
  ]);
});

after(async () => {
  await pool?.close();
  rmSync(dir, { recursive: true, force: true });
  // A key built here (a fresh cache) started snarkjs's curve threads: they would keep the process alive.
  await shutdownZk();
});

const deadline = () => Date.now() + 60_000;

test('a client proof starts at once beside background work, which runs one at a time', async () => {
  const order: string[] = [];
  const bg = [1, 2, 3].map((i) =>
    pool.run(job, { deadline: deadline(), background: true }).then(() => order.push(`bg${i}`)),
  );
  const client = pool.run(job, { deadline: deadline() }).then(() => order.push('client'));
  await Promise.all([...bg, client]);
  assert.deepEqual(
    order.filter((x) => x.startsWith('bg')),
    ['bg1', 'bg2', 'bg3'],
    'background in order',
  );
  assert.ok(order.indexOf('client') < order.indexOf('bg2'), `the client went first: ${order.join(', ')}`);
});

test("a client proof beside another runs on fewer threads; alone, on the pool's per-proof threads", async () => {
  // Two proofs started together: the first alone so far, the second beside it (about one thread
  // per core in all); then one alone again.
  const pair = await Promise.all([pool.run(job, { deadline: deadline() }), pool.run(job, { deadline: deadline() })]);
  const lone = await pool.run(job, { deadline: deadline() });
  const beside = Math.min(pool.curveThreads, Math.max(1, Math.floor(availableParallelism() / 2)));
  assert.deepEqual(
    pair.map((r) => r.timings.threads),
    [pool.curveThreads, beside],
  );
  assert.equal(lone.timings.threads, pool.curveThreads);
});

test('background work waits while clients wait; no deadline means it never expires', async () => {
  const order: string[] = [];
  const c = [1, 2, 3].map((i) => pool.run(job, { deadline: deadline() }).then(() => order.push(`c${i}`)));
  const bg = pool.run(job, { deadline: Number.MAX_SAFE_INTEGER, background: true }).then(() => order.push('bg'));
  await Promise.all([...c, bg]);
  assert.equal(order.at(-1), 'bg', order.join(', '));
});

test('a full client queue does not refuse background work', async () => {
  const small = new ProverPool({ backend: 'native', threads: 1, maxQueue: 0, memoryBudgetBytes: 2 ** 30 });
  try {
    const first = small.run(job, { deadline: deadline() });
    await assert.rejects(small.run(job, { deadline: deadline() }), /Prover busy/);
    const bg = small.run(job, { deadline: deadline(), background: true });
    await Promise.all([first, bg]);
  } finally {
    await small.close();
  }
});

describe('admission control', () => {
  let one: ProverPool;
  let estimate = 0;
  before(async () => {
    one = new ProverPool({ backend: 'native', threads: 1, maxQueue: 8, memoryBudgetBytes: 2 ** 30 });
    // Proof times are measured per shape: the first proofs give the estimate admission plans with.
    await one.run(job, { deadline: deadline() });
    estimate = (await one.run(job, { deadline: deadline() })).proveMs;
  });
  after(async () => one?.close());

  test('a request that cannot meet its deadline behind the queue is refused at once', async () => {
    const finished: number[] = [];
    const ahead = Array.from({ length: 6 }, (_, i) =>
      one.run(job, { deadline: deadline(), caller: `c${i}` }).then((r) => (finished.push(i), r)),
    );
    // Six proofs of this shape take longer than four on one worker: refused, not timed out.
    const wait = 4 * estimate;
    await assert.rejects(one.run(job, { deadline: Date.now() + wait }), (e: Error & { kind?: string }) => {
      assert.equal(e.kind, 'prover_busy');
      assert.match(
        e.message,
        /^Prover busy: a v2_inclusion_32_1 proof queued now would finish in about [\d.]+ s \(1 running, 5 queued\), after its deadline in [\d.]+ s; retry shortly$/,
      );
      return true;
    });
    // At once: before the queue moved at all.
    assert.equal(finished.length, 0, 'refused before any proof ahead of it finished');
    // One with the time for it is queued and proved; its wait is reported apart from its proving.
    // On one worker (first in, first out) every proof ahead of it but the one running when it was
    // queued ran whole while it waited, so its queue time holds all of their proving times.
    const unfinished = new Set([0, 1, 2, 3, 4, 5].filter((i) => !finished.includes(i)));
    const ok = await one.run(job, { deadline: deadline() });
    const done = await Promise.all(ahead);
    const waitedFor = finished.filter((i) => unfinished.has(i)).slice(1);
    const theirs = waitedFor.reduce((sum, i) => sum + done[i]!.proveMs, 0);
    assert.ok(waitedFor.length >= 4, `queued behind ${waitedFor.length + 1} proofs`);
    assert.ok(ok.queueMs >= theirs, `queued ${ok.queueMs} ms, behind ${theirs} ms of proofs that ran meanwhile`);
    assert.ok(ok.proveMs > 0);
  });

  test('one caller cannot fill the queue', async () => {
    const mine = Array.from({ length: 5 }, () => one.run(job, { deadline: deadline(), caller: 'key-a' }));
    // One runs and four wait: the share of a queue of 8.
    await assert.rejects(
      one.run(job, { deadline: deadline(), caller: 'key-a' }),
      /^ProverError: Prover busy: this client already has 4 proofs queued, the most one client may hold/,
    );
    const other = one.run(job, { deadline: deadline(), caller: 'key-b' });
    await Promise.all([...mine, other]);
  });

  test('places held while inputs are prepared count as queued; run() takes one over, release() gives it back', async () => {
    // The worker busy: every new request must wait, so held places count against the share.
    const running = one.run(job, { deadline: deadline(), caller: 'key-c' });
    const holds = Array.from({ length: 4 }, () => one.hold({ deadline: deadline(), caller: 'key-h' }));
    assert.throws(
      () => one.hold({ deadline: deadline(), caller: 'key-h' }),
      /^ProverError: Prover busy: this client already has 4 proofs queued, the most one client may hold/,
    );
    // Refused by run() too, before any work: the held places are the caller's share.
    await assert.rejects(
      one.run(job, { deadline: deadline(), caller: 'key-h' }),
      /this client already has 4 proofs queued/,
    );
    // Another caller fills the rest of the queue of 8 (4 held + 4 queued), then nobody gets in.
    const others = Array.from({ length: 4 }, (_, i) => one.run(job, { deadline: deadline(), caller: `key-o${i}` }));
    assert.throws(
      () => one.hold({ deadline: deadline(), caller: 'key-z' }),
      /^ProverError: Prover busy: 1 proofs running and 8 queued \(the limit\)/,
    );
    // A released place is free again, once; a run() with its hold takes the place over (not a second one).
    holds[0]!.release();
    holds[0]!.release();
    const again = one.hold({ deadline: deadline(), caller: 'key-z' });
    assert.throws(() => one.hold({ deadline: deadline(), caller: 'key-y' }), /8 queued \(the limit\)/);
    const proved = one.run(job, { deadline: deadline(), caller: 'key-z', hold: again });
    for (const h of holds.slice(1)) h.release();
    await Promise.all([running, ...others, proved]);
  });
});

test("the pool's worker threads run at a lower priority than the event loop (nice ≥ 5)", () => {
  const niceOf = (tid: string) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the command (in parentheses): state is the 3rd, nice the 19th.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  };
  const main = niceOf(String(process.pid));
  const tasks = readdirSync('/proc/self/task').map(niceOf);
  // The process's other threads (V8's, libuv's) keep the main thread's priority.
  assert.ok(tasks.filter((n) => n === main).length >= 2, `nice values ${tasks.join(',')}`);
  assert.ok(
    tasks.filter((n) => n >= Math.max(NICE_PROVER, main)).length >= pool.threads,
    `nice values ${tasks.join(',')}`,
  );
  if (main < NICE_PROVER) assert.ok(tasks.filter((n) => n > main).length >= pool.threads);
});

test('a queued proof goes to the worker free first, not to the average of the work ahead', () => {
  // A 30 s background proof on one worker, a client's 0.5 s proof on the other: a new 0.5 s proof
  // is done in about 1 s, not (30 + 0.5) / 2 + 0.5 s.
  assert.equal(finishAfter([30_000, 500], 2, [], 500), 1000);
  // Behind two queued: the second goes to the worker the first fills after the short one ends.
  assert.equal(finishAfter([30_000, 500], 2, [500, 500], 500), 2000);
  // An idle worker: at once.
  assert.equal(finishAfter([30_000], 2, [], 500), 500);
  // Four workers, eight queued of 100 ms: two rounds ahead, done at 300.
  assert.equal(finishAfter([], 4, Array(8).fill(100), 100), 300);
});
