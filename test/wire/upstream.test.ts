// upstreamCall against a real local HTTP server that answers each request as the test says:
// compressed bodies, bodies cut short, a kept-alive connection the server closes, 429 with
// Retry-After, stalls, errors relayed, and aborts.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { RelayedRpcError, UpstreamError, upstreamCall } from '../../src/wire/upstream.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let handler: Handler = () => undefined;
let server: Server;
let url = '';
const sockets = new Set<Socket>();
const requests: { method: string; encoding: string | undefined; socket: Socket }[] = [];

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const method = (JSON.parse(body) as { method: string }).method;
      requests.push({ method, encoding: req.headers['accept-encoding'], socket: req.socket });
      handler(req, res, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/?api-key=secret`;
});
after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

const answer = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, result });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );

test('an answer in gzip, deflate or brotli is read as the same JSON; the request asks for them', async () => {
  const result = { slot: 7, data: 'x'.repeat(100_000) };
  const encoders = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
  for (const [name, encode] of Object.entries(encoders)) {
    handler = (_req, res) => {
      const raw = encode(Buffer.from(answer(result)));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': name });
      res.end(raw);
    };
    assert.deepEqual(await upstreamCall(url, 'getBlock', [1], 5000), result, name);
  }
  assert.equal(requests.at(-1)!.encoding, 'gzip, deflate, br');
});

test('calls reuse one kept-alive connection', async () => {
  handler = (_req, res) => res.end(answer(1));
  const before = requests.length;
  for (let i = 0; i < 5; i++) assert.equal(await upstreamCall(url, 'getSlot', [], 5000), 1);
  const used = new Set(requests.slice(before).map((r) => r.socket));
  assert.equal(used.size, 1);
});

test('a connection the server closed while it was kept alive: the request is sent again on a new one', async () => {
  handler = (_req, res) => res.end(answer('first'));
  assert.equal(await upstreamCall(url, 'getSlot', [], 5000), 'first');
  // The next request arrives on the kept-alive socket, which the server then drops unanswered.
  let dropped = 0;
  handler = (req, res) => {
    if (dropped++ === 0) req.socket.destroy();
    else res.end(answer('again'));
  };
  assert.equal(await upstreamCall(url, 'getSlot', [], 5000), 'again');
  assert.equal(dropped, 2);
});

test('a body cut short is an upstream failure that names it, not JSON read from half an answer', async () => {
  handler = (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
    res.write(answer('x'.repeat(10)).slice(0, 20));
    setTimeout(() => req.socket.destroy(), 20);
  };
  const e = await failure(upstreamCall(url, 'getBlock', [1], 5000));
  assert.ok(e instanceof UpstreamError);
  assert.equal(e.failure, 'unreachable');
  assert.match(e.message, /^upstream getBlock at http:\/\/127\.0\.0\.1:\d+ broke off its answer/);
  assert.doesNotMatch(e.message, /secret/);
});

test('429 carries Retry-After; 5xx, non-JSON and result-less answers are typed failures', async () => {
  handler = (_req, res) => {
    res.writeHead(429, { 'retry-after': '3' });
    res.end('slow down');
  };
  let e = await failure(upstreamCall(url, 'getBlock', [1], 5000));
  assert.ok(e instanceof UpstreamError);
  assert.deepEqual([e.failure, e.retryAfterMs], ['rate_limited', 3000]);

  handler = (_req, res) => {
    res.writeHead(503);
    res.end();
  };
  e = await failure(upstreamCall(url, 'getBlock', [1], 5000));
  assert.ok(e instanceof UpstreamError);
  assert.equal(e.failure, 'http');
  assert.match(e.message, /answered HTTP 503$/);

  handler = (_req, res) => res.end('{"jsonrpc":"2.0","id":1,"res');
  e = await failure(upstreamCall(url, 'getBlock', [1], 5000));
  assert.ok(e instanceof UpstreamError);
  assert.equal(e.failure, 'malformed');

  handler = (_req, res) => res.end('{"jsonrpc":"2.0","id":1}');
  e = await failure(upstreamCall(url, 'getBlock', [1], 5000));
  assert.ok(e instanceof UpstreamError);
  assert.equal(e.failure, 'malformed');
});

test("the upstream's own JSON-RPC error is relayed with its code, message and data", async () => {
  handler = (_req, res) =>
    res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32007, message: 'skipped', data: { s: 1 } } }));
  const e = await failure(upstreamCall(url, 'getBlock', [1], 5000));
  assert.ok(e instanceof RelayedRpcError);
  assert.deepEqual([e.code, e.message, e.data], [-32007, 'skipped', { s: 1 }]);
});

test('a stall past the timeout fails as a timeout; an abort rejects with its reason; the server stays usable', async () => {
  handler = () => undefined; // never answers
  const e = await failure(upstreamCall(url, 'getBlock', [1], 100));
  assert.ok(e instanceof UpstreamError);
  assert.equal(e.failure, 'timeout');
  assert.match(e.message, /timed out after 100 ms$/);

  const ac = new AbortController();
  const pending = upstreamCall(url, 'getBlock', [1], 5000, JSON.parse, ac.signal);
  const reason = new Error('stopping');
  setTimeout(() => ac.abort(reason), 20);
  assert.equal(await failure(pending), reason);

  handler = (_req, res) => res.end(answer('ok'));
  assert.equal(await upstreamCall(url, 'getSlot', [], 5000), 'ok');
});

test('nothing listening: unreachable, naming the origin only', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  const e = await failure(upstreamCall(`http://127.0.0.1:${port}/?api-key=secret`, 'getSlot', [], 5000));
  assert.ok(e instanceof UpstreamError);
  assert.equal(e.failure, 'unreachable');
  assert.match(e.message, new RegExp(`^upstream getSlot at http://127\\.0\\.0\\.1:${port} unreachable: `));
  assert.doesNotMatch(e.message, /secret/);
  // URLs no request can be made to: typed failures, nothing thrown raw.
  for (const bad of ['ftp://127.0.0.1/', 'not a url', 'http://127.0.0.1:99999/']) {
    const f = await failure(upstreamCall(bad, 'getSlot', [], 5000));
    assert.ok(f instanceof UpstreamError, bad);
    assert.equal(f.failure, 'unreachable', bad);
  }
});
