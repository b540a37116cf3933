// The build queue's order (src/prover/build-queue.ts): a key a client waits for first, then the
// preloads, the first start's shapes and the forester's; a few at a time; a client's build beside
// background ones at a higher priority, raised when a client comes to wait for a background one;
// room made for it by stopping background builds, which start again; one build per shape; failures
// and shutdown told to every waiter. The builds here are handles the test finishes itself, so that
// the order is the queue's alone (the real build process has its own test,
// test/zk/key-build-process.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateBuild, type BuildNeed } from '../../src/prover/build-budget.js';
import { KeyBuildQueue, type BuildHandle } from '../../src/prover/build-queue.js';
import { ProverError } from '../../src/prover/errors.js';
import { createLogger } from '../../src/obs/log.js';
import { MetricsRegistry } from '../../src/obs/metrics.js';
import { shapeByName, type Shape } from '../../src/zk/shapes.js';

interface Started {
  circuit: string;
  nice: number;
  nices: number[];
  /** pause(true / false) as the queue called it. */
  pauses: boolean[];
  killed: boolean;
  finish(): void;
  fail(why: string): void;
}

function harness(
  opts: { concurrency?: number; refusal?: (shape: Shape, running: BuildNeed) => string | undefined } = {},
) {
  const started: Started[] = [];
  const logs: string[] = [];
  const log = createLogger('info', (chunk) => logs.push(...chunk.trimEnd().split('\n')));
  const metrics = new MetricsRegistry();
  const queue = new KeyBuildQueue({
    start(shape, nice) {
      let finish!: () => void;
      let fail!: (e: Error) => void;
      const done = new Promise<void>((res, rej) => {
        finish = res;
        fail = rej;
      });
      const s: Started = {
        circuit: shape.name,
        nice,
        nices: [],
        pauses: [],
        killed: false,
        finish,
        fail: (why) => fail(new Error(why)),
      };
      started.push(s);
      done.then(
        () => finished.add(s),
        () => finished.add(s),
      );
      const handle: BuildHandle = {
        done,
        setNice: (n) => {
          s.nices.push(n);
          return true;
        },
        pause: (on) => s.pauses.push(on),
        kill: () => {
          s.killed = true;
          fail(new Error('stopped'));
        },
      };
      return handle;
    },
    concurrency: opts.concurrency ?? 1,
    ...(opts.refusal ? { refusal: opts.refusal } : {}),
    log,
    metrics,
  });
  const finished = new Set<Started>();
  const running = () => started.filter((s) => !finished.has(s)).map((s) => s.circuit);
  const finish = async (circuit: string) => {
    const s = started.find((x) => x.circuit === circuit && !x.killed && !finished.has(x));
    assert.ok(s, `${circuit} is running (running: ${running().join(', ')})`);
    s.finish();
    await new Promise((r) => setImmediate(r));
  };
  return { queue, started, running, finish, logs: () => (log.flush(), logs), metrics };
}

const shape = shapeByName;

test('a key a client waits for goes first, then the preloads, the first start and the forester, one at a time', async () => {
  const h = harness();
  const order: string[] = [];
  const want = (name: string, p: Parameters<KeyBuildQueue['want']>[1]) =>
    h.queue.want(shape(name), p).then(() => order.push(name));
  const waits = [
    want('batch_append_32_10', 'forester'),
    want('v2_non-inclusion_40_1', 'start'),
    want('v1_inclusion_26_1', 'preload'),
    want('v1_inclusion_26_2', 'start'),
  ];
  // The first wanted started at once, alone; the rest wait in order of priority.
  assert.deepEqual(h.running(), ['batch_append_32_10']);
  assert.equal(h.started[0]!.nice, 19, 'a build nobody waits for runs at the lowest priority');
  assert.deepEqual(
    h.queue.view().queued.map((q) => q.circuit),
    ['v1_inclusion_26_1', 'v2_non-inclusion_40_1', 'v1_inclusion_26_2'],
  );
  // A client's key starts beside the background build, at the builds' usual priority.
  waits.push(want('v1_non-inclusion_26_1', 'client'));
  assert.deepEqual(h.running(), ['batch_append_32_10', 'v1_non-inclusion_26_1']);
  assert.equal(h.started[1]!.nice, 10);
  await h.finish('v1_non-inclusion_26_1');
  await h.finish('batch_append_32_10');
  assert.deepEqual(h.running(), ['v1_inclusion_26_1']);
  await h.finish('v1_inclusion_26_1');
  assert.deepEqual(h.running(), ['v2_non-inclusion_40_1']);
  await h.finish('v2_non-inclusion_40_1');
  await h.finish('v1_inclusion_26_2');
  await Promise.all(waits);
  assert.deepEqual(order, [
    'v1_non-inclusion_26_1',
    'batch_append_32_10',
    'v1_inclusion_26_1',
    'v2_non-inclusion_40_1',
    'v1_inclusion_26_2',
  ]);
  assert.deepEqual(h.queue.view(), { building: [], queued: [] });
  assert.match(h.metrics.render(), /zkgate_key_builds_total\{circuit="v1_inclusion_26_1",outcome="built"\} 1/);
});

test('a shape is built once for all who want it; a client raises a queued build ahead and a running one to its priority', async () => {
  const h = harness();
  const first = h.queue.want(shape('batch_update_32_10'), 'forester');
  const again = h.queue.want(shape('batch_update_32_10'), 'forester');
  const queued = h.queue.want(shape('v2_inclusion_32_2'), 'start');
  assert.deepEqual(h.running(), ['batch_update_32_10']);
  // A client waits for the queued one: it starts at once, at a client's priority.
  const raisedQueued = h.queue.want(shape('v2_inclusion_32_2'), 'client');
  assert.deepEqual(h.running(), ['batch_update_32_10', 'v2_inclusion_32_2']);
  assert.equal(h.started[1]!.nice, 10);
  // A client now waits for the running background build: raised to a client's nice value.
  const client = h.queue.want(shape('batch_update_32_10'), 'client');
  assert.deepEqual(h.started[0]!.nices, [10]);
  assert.deepEqual(
    h.queue.view().building.map((b) => [b.circuit, b.priority]),
    [
      ['batch_update_32_10', 'client'],
      ['v2_inclusion_32_2', 'client'],
    ],
  );
  assert.ok(
    h.logs().some((l) => l.includes('a client waits for a proving key being built') && l.includes('"raised":true')),
  );
  await h.finish('v2_inclusion_32_2');
  await h.finish('batch_update_32_10');
  await Promise.all([first, again, client, queued, raisedQueued]);
  assert.equal(h.started.length, 2, 'one build per shape');
});

test("a client's build that does not fit beside background builds stops them; they start again after", async () => {
  // Room for one build at a time, whatever its size.
  const h = harness({ refusal: (_shape, running) => (running.memoryBytes > 0 ? 'no room beside another' : undefined) });
  const background = h.queue.want(shape('batch_address_append_40_10'), 'forester');
  assert.deepEqual(h.running(), ['batch_address_append_40_10']);
  const client = h.queue.want(shape('v1_non-inclusion_26_1'), 'client');
  assert.equal(h.started[0]!.killed, true, 'the background build was stopped');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(h.running(), ['v1_non-inclusion_26_1']);
  assert.deepEqual(
    h.queue.view().queued.map((q) => q.circuit),
    ['batch_address_append_40_10'],
  );
  await h.finish('v1_non-inclusion_26_1');
  await client;
  // Queued again, it starts from the beginning once the client's build is done.
  assert.deepEqual(h.running(), ['batch_address_append_40_10']);
  assert.equal(h.started.length, 3);
  await h.finish('batch_address_append_40_10');
  await background;
  assert.match(h.metrics.render(), /outcome="stopped"\} 1/);
});

test('a build that cannot fit at all, or fails, is refused to its waiters as key_not_built; the queue goes on', async () => {
  const h = harness({ refusal: (s) => (s.name === 'batch_update_32_500' ? 'needs 20 GB' : undefined) });
  await assert.rejects(h.queue.want(shape('batch_update_32_500'), 'client'), (e: ProverError) => {
    assert.equal(e.kind, 'key_not_built');
    assert.equal(e.message, 'needs 20 GB');
    return true;
  });
  const failing = h.queue.want(shape('v1_inclusion_26_3'), 'preload');
  const next = h.queue.want(shape('v1_inclusion_26_4'), 'preload');
  h.started[0]!.fail('circom failed (exit 1): out of memory');
  await assert.rejects(failing, (e: ProverError) => {
    assert.equal(e.kind, 'key_not_built');
    assert.equal(
      e.message,
      'building the proving key for v1_inclusion_26_3 failed: circom failed (exit 1): out of memory',
    );
    return true;
  });
  assert.deepEqual(h.running(), ['v1_inclusion_26_4']);
  await h.finish('v1_inclusion_26_4');
  await next;
});

test('the time a client would wait: the client builds ahead of it, then its own; the time all planned builds take', () => {
  const h = harness();
  const ms = (name: string) => estimateBuild(shape(name)).ms;
  void h.queue.want(shape('batch_update_32_10'), 'forester');
  void h.queue.want(shape('v1_inclusion_26_2'), 'start');
  void h.queue.want(shape('v2_inclusion_32_1'), 'client');
  void h.queue.want(shape('v1_non-inclusion_26_1'), 'client');
  // v1_non-inclusion_26_1 queues behind the client build running (one at a time for clients).
  const eta = h.queue.etaMs('v1_non-inclusion_26_1')!;
  assert.ok(eta > ms('v1_non-inclusion_26_1') + 0.9 * ms('v2_inclusion_32_1'), String(eta));
  assert.ok(eta <= ms('v1_non-inclusion_26_1') + ms('v2_inclusion_32_1'), String(eta));
  // A background shape a client would wait for comes after the client builds, not its own class.
  const raised = h.queue.etaMs('v1_inclusion_26_2')!;
  assert.ok(raised > eta, `${raised} > ${eta}`);
  assert.equal(h.queue.etaMs('v2_combined_32_40_1_1'), undefined, 'not queued');
  assert.ok(h.queue.plannedMs() >= ms('batch_update_32_10'));
  h.queue.close();
});

test('closing stops the builds and tells every waiter', async () => {
  const h = harness();
  const running = h.queue.want(shape('v1_inclusion_26_1'), 'preload');
  const queued = h.queue.want(shape('v2_inclusion_32_1'), 'forester');
  h.queue.close();
  for (const p of [running, queued])
    await assert.rejects(p, (e: ProverError) => e.kind === 'prover_unavailable' && /shutting down/.test(e.message));
  assert.equal(h.started[0]!.killed, true);
  await assert.rejects(h.queue.want(shape('v1_inclusion_26_2'), 'client'), /shutting down/);
});

test("background builds stand still while clients' proofs run, a slice now and then; a client's build does not", async () => {
  const h = harness();
  void h.queue.want(shape('batch_append_32_10'), 'forester');
  void h.queue.want(shape('v1_non-inclusion_26_1'), 'client');
  const [background, client] = h.started;
  h.queue.clientsActive(true);
  assert.deepEqual(background!.pauses, [true]);
  assert.deepEqual(client!.pauses, []);
  // A background build that starts meanwhile starts stopped.
  await h.finish('batch_append_32_10');
  void h.queue.want(shape('batch_update_32_10'), 'forester');
  const next = h.started[2]!;
  assert.deepEqual(next.pauses, [true]);
  // Under a stream of proofs, a slice comes (after a second stopped), then it stops again.
  await until(() => next.pauses.length >= 3, 10_000);
  assert.deepEqual(next.pauses.slice(0, 3), [true, false, true]);
  h.queue.clientsActive(false);
  assert.equal(next.pauses.at(-1), false, 'going on once the proofs are done');
  // A client comes to wait for it: it goes on, stream or not.
  h.queue.clientsActive(true);
  assert.equal(next.pauses.at(-1), true);
  void h.queue.want(shape('batch_update_32_10'), 'client');
  assert.equal(next.pauses.at(-1), false);
  h.queue.close();
});

async function until(ok: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !ok();) {
    assert.ok(Date.now() < end, 'timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
