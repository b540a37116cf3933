// The Prefetcher (ingest/prefetch.ts) against a real local HTTP server, on its real worker thread:
// calls made ahead in the order wanted and taken as the server answered them; never more under way
// and waiting than its window, the next one made as one is taken; a call taken with other params,
// or dropped before it started, never used; failures handed to the caller as its first attempt's
// (a status it reads, or the typed error of why no answer came), which ClusterRpc counts and
// retries itself.
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { ClusterRpc } from '../../src/ingest/cluster-rpc.js';
import { createLogger } from '../../src/obs/log.js';
import { MetricsRegistry } from '../../src/obs/metrics.js';
import { Prefetcher, type Prefetched } from '../../src/ingest/prefetch.js';
import { UpstreamError, type Answer } from '../../src/wire/upstream.js';

let server: Server;
let url = '';
const sockets = new Set<Socket>();
/** The params of each request, in the order the server got them. */
let seen: unknown[] = [];
/** Requests held unanswered (answered when the test says), or answered at once. */
let holding = false;
const held: (() => void)[] = [];
let status = 200;

before(async () => {
  server = createServer((req, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { params } = JSON.parse(body) as { params: unknown };
      seen.push(params);
      const reply = () => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { echo: params } }));
      };
      if (holding) held.push(reply);
      else reply();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

const reset = () => {
  seen = [];
  holding = false;
  held.length = 0;
  status = 200;
};
const until = async (what: () => boolean) => {
  while (!what()) await new Promise((r) => setTimeout(r, 5));
};
/** Long enough for a request the thread wrongly made to reach the server. */
const settle = () => new Promise((r) => setTimeout(r, 300));
/** An answer's result (the server echoes the call's params). */
const result = (a: Prefetched | undefined) => {
  assert.ok(a && !(a instanceof UpstreamError), 'an answer');
  return (JSON.parse(a.text) as { result: unknown }).result;
};

test('calls made ahead in the order wanted; each taken with the answer to its own params', async () => {
  reset();
  // One at a time, so the server sees them in the order they were made.
  const p = new Prefetcher({ url, timeoutMs: 5000, concurrency: 1, maxAhead: 16, maxBytes: 1 << 20 });
  try {
    for (let slot = 0; slot < 6; slot++) p.want(String(slot), 'getBlock', [slot, { commitment: 'finalized' }]);
    await until(() => seen.length === 6);
    assert.deepEqual(
      seen.map((x) => (x as unknown[])[0]),
      [0, 1, 2, 3, 4, 5],
    );
    for (let slot = 0; slot < 6; slot++) {
      const a = await p.take(String(slot), 'getBlock', [slot, { commitment: 'finalized' }]);
      assert.deepEqual(result(a), { echo: [slot, { commitment: 'finalized' }] });
      assert.equal((a as Answer).status, 200);
    }
    assert.equal(p.take('0', 'getBlock', [0, { commitment: 'finalized' }]), undefined, 'taken once');
    assert.equal(p.take('9', 'getBlock', [9]), undefined, 'never wanted');
    await settle();
    assert.equal(seen.length, 6, 'each call made once');
  } finally {
    p.close();
  }
});

test('never more under way and waiting than its window; the next call made as one is taken', async () => {
  reset();
  const p = new Prefetcher({ url, timeoutMs: 5000, concurrency: 2, maxAhead: 3, maxBytes: 1 << 20 });
  try {
    holding = true;
    for (let slot = 0; slot < 8; slot++) p.want(String(slot), 'getBlock', [slot]);
    await until(() => seen.length === 2);
    await settle();
    assert.equal(seen.length, 2, 'two under way at once');
    holding = false;
    for (const reply of held.splice(0)) reply();
    await until(() => seen.length === 3);
    await settle();
    assert.equal(seen.length, 3, 'three answered or under way, none taken: the window is full');
    assert.deepEqual(result(await p.take('0', 'getBlock', [0])), { echo: [0] });
    await until(() => seen.length === 4);
    await settle();
    assert.equal(seen.length, 4, 'one taken, one more made');
    for (let slot = 1; slot < 8; slot++)
      assert.deepEqual(result(await p.take(String(slot), 'getBlock', [slot])), { echo: [slot] });
    assert.equal(seen.length, 8);
  } finally {
    p.close();
  }
});

test('a call taken with other params is not used; dropped calls not yet made are never made', async () => {
  reset();
  const p = new Prefetcher({ url, timeoutMs: 5000, concurrency: 1, maxAhead: 2, maxBytes: 1 << 20 });
  try {
    for (let slot = 0; slot < 6; slot++) p.want(String(slot), 'getBlock', [slot, { commitment: 'confirmed' }]);
    await until(() => seen.length === 2);
    // The caller now asks as finalized: the answer made ahead is another call's.
    assert.equal(p.take('0', 'getBlock', [0, { commitment: 'finalized' }]), undefined);
    await until(() => seen.length === 3);
    p.drop();
    assert.equal(p.take('1', 'getBlock', [1, { commitment: 'confirmed' }]), undefined, 'dropped');
    await settle();
    assert.deepEqual(
      seen.map((x) => (x as unknown[])[0]),
      [0, 1, 2],
      'the calls not started when dropped were never made',
    );
    // Wanted again after a drop: made again.
    p.want('4', 'getBlock', [4]);
    assert.deepEqual(result(await p.take('4', 'getBlock', [4])), { echo: [4] });
  } finally {
    p.close();
  }
});

test("failures are the first attempt's: an HTTP error handed on as the answer, no answer as its UpstreamError; ClusterRpc retries them itself, counted", async () => {
  reset();
  const log = createLogger('silent');
  status = 503;
  const p = new Prefetcher({ url, timeoutMs: 5000, concurrency: 1, maxAhead: 4, maxBytes: 1 << 20 });
  const refused = new Prefetcher({
    url: 'http://127.0.0.1:1/',
    timeoutMs: 5000,
    concurrency: 1,
    maxAhead: 4,
    maxBytes: 1 << 20,
  });
  const metrics = new MetricsRegistry();
  const retries = (reason: string) =>
    Number(
      new RegExp(`^zkgate_cluster_rpc_retries_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(
        metrics.render(),
      )?.[1] ?? 0,
    );
  try {
    p.want('1', 'getBlock', [1]);
    const a = await p.take('1', 'getBlock', [1]);
    assert.ok(a && !(a instanceof UpstreamError));
    assert.equal(a.status, 503);
    // ClusterRpc reads a prefetched 503 as its first attempt's failure (counted), then calls itself.
    p.want('2', 'getBlock', [2]);
    const ahead = p.take('2', 'getBlock', [2]);
    await ahead;
    status = 200;
    const before = seen.length;
    const rpc = new ClusterRpc({ url, timeoutMs: 5000, log, metrics, minBackoffMs: 1, maxBackoffMs: 2 });
    assert.deepEqual(await rpc.call('getBlock', [2], undefined, ahead), { echo: [2] });
    assert.equal(seen.length, before + 1, 'called once more after the prefetched failure');
    assert.equal(retries('http'), 1);
    // Nothing listening: the call made ahead failed as unreachable; the caller counts it and calls itself.
    refused.want('3', 'getBlock', [3]);
    const none = refused.take('3', 'getBlock', [3]);
    const failed = await none;
    assert.ok(failed instanceof UpstreamError);
    assert.equal(failed.failure, 'unreachable');
    assert.match(failed.message, /^upstream getBlock at http:\/\/127\.0\.0\.1:1 unreachable: /);
    assert.deepEqual(await rpc.call('getBlock', [3], undefined, none), { echo: [3] });
    assert.equal(retries('unreachable'), 1);
    // A prefetched good answer is the call's answer: the server is not asked again.
    p.want('5', 'getBlock', [5]);
    const good = p.take('5', 'getBlock', [5]);
    await good;
    const n = seen.length;
    assert.deepEqual(await rpc.call('getBlock', [5], undefined, good), { echo: [5] });
    assert.equal(seen.length, n);
  } finally {
    p.close();
    refused.close();
  }
});

test('closed: what was wanted is answered as none, and nothing more is made', async () => {
  reset();
  holding = true;
  const p = new Prefetcher({ url, timeoutMs: 5000, concurrency: 1, maxAhead: 4, maxBytes: 1 << 20 });
  p.want('1', 'getBlock', [1]);
  p.want('2', 'getBlock', [2]);
  await until(() => seen.length === 1);
  const first = p.take('1', 'getBlock', [1]);
  p.close();
  assert.equal(await first, undefined);
  p.want('3', 'getBlock', [3]);
  assert.equal(p.take('3', 'getBlock', [3]), undefined);
  holding = false;
  for (const reply of held.splice(0)) reply();
  await settle();
  assert.deepEqual(seen, [[1]]);
});
