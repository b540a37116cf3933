// Transport rules through real HTTP: auth, limits, content type, methods, routes, ops endpoints, logs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { httpRequest, postJson, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

const HEALTH = '{"jsonrpc":"2.0","id":1,"method":"getHealth"}';

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ maxBodyBytes: 4096, apiKeys: [TEST_KEY, 'second-key-abc'] });
});
after(() => gw.stop());

describe('API keys', () => {
  test('missing key: 401 with a JSON-RPC error body', async () => {
    const r = await postJson(gw.base, HEALTH);
    assert.equal(r.status, 401);
    assert.equal(
      r.text,
      '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Unauthorized: missing API key; pass it as the query parameter `api-key`"},"id":null}',
    );
  });

  test('empty key: 401', async () => {
    assert.equal((await postJson(`${gw.base}?api-key=`, HEALTH)).status, 401);
  });

  test('wrong key: 401', async () => {
    const r = await postJson(`${gw.base}?api-key=${TEST_KEY}x`, HEALTH);
    assert.equal(r.status, 401);
    assert.equal(
      r.text,
      '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Unauthorized: invalid API key"},"id":null}',
    );
  });

  test('each configured key works, also URL-encoded and beside other query parameters', async () => {
    assert.equal((await postJson(gw.url, HEALTH)).text, '{"jsonrpc":"2.0","result":"ok","id":1}');
    assert.equal((await postJson(`${gw.base}?x=1&api-key=second%2Dkey-abc`, HEALTH)).status, 200);
  });

  test('logs carry a key id, never a key', async () => {
    await postJson(gw.url, HEALTH);
    await postJson(`${gw.base}?api-key=not-a-key-zzz`, HEALTH);
    await new Promise((r) => setImmediate(r));
    const all = gw.logs.join('\n');
    assert.ok(!all.includes(TEST_KEY) && !all.includes('not-a-key-zzz') && !all.includes('second-key-abc'));
    const lines = gw.logs
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request' && l.route === 'rpc' && l.status === 200);
    assert.ok(lines.length > 0);
    assert.match(lines[0].keyId, /^key-[0-9a-f]{8}$/);
  });
});

describe('request shape', () => {
  test('other HTTP methods on / answer 405 with Allow', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const r = await httpRequest(gw.url, { method });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.allow, 'POST, OPTIONS');
      assert.equal(
        r.text,
        `{"jsonrpc":"2.0","error":{"code":-32600,"message":"HTTP method ${method} is not allowed on /: send JSON-RPC requests with POST"},"id":null}`,
      );
    }
  });

  test('CORS preflight is answered', async () => {
    const r = await httpRequest(gw.url, { method: 'OPTIONS' });
    assert.equal(r.status, 204);
    assert.equal(r.headers['access-control-allow-origin'], '*');
    assert.match(String(r.headers['access-control-allow-methods']), /POST/);
  });

  test('content type other than JSON: 415', async () => {
    const r = await httpRequest(gw.url, { body: HEALTH, headers: { 'content-type': 'text/plain' } });
    assert.equal(r.status, 415);
    assert.equal(
      r.text,
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unsupported content type \\"text/plain\\": send Content-Type: application/json"},"id":null}',
    );
    const none = await httpRequest(gw.url, { body: HEALTH });
    assert.equal(none.status, 415);
  });

  test('JSON content type with a charset is accepted', async () => {
    const r = await httpRequest(gw.url, {
      body: HEALTH,
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
    });
    assert.equal(r.status, 200);
  });

  test('body over the limit by Content-Length: 413', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth', params: ['x'.repeat(5000)] });
    const r = await postJson(gw.url, big);
    assert.equal(r.status, 413);
    assert.equal(
      r.text,
      `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request body of ${Buffer.byteLength(big)} bytes exceeds the limit of 4096 bytes"},"id":null}`,
    );
  });

  test('chunked body over the limit: 413', async () => {
    const r = await httpRequest(gw.url, {
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks: ['[', ...Array(10).fill('"' + 'y'.repeat(1000) + '",')],
      body: '1]',
    });
    assert.equal(r.status, 413);
    assert.equal(
      r.text,
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request body exceeds the limit of 4096 bytes"},"id":null}',
    );
  });

  test('a body exactly at the limit is read', async () => {
    const prefix = '{"jsonrpc":"2.0","id":1,"method":"getHealth","pad":"';
    const body = prefix + 'z'.repeat(4096 - prefix.length - 2) + '"}';
    assert.equal(Buffer.byteLength(body), 4096);
    const r = await postJson(gw.url, body);
    assert.equal(r.text, '{"jsonrpc":"2.0","result":"ok","id":1}');
  });

  test('unknown paths: 404 with a JSON-RPC error body', async () => {
    const r = await postJson(`${gw.base}v1/rpc?api-key=${TEST_KEY}`, HEALTH);
    assert.equal(r.status, 404);
    assert.equal(
      r.text,
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Not found: /v1/rpc; JSON-RPC is served on POST /"},"id":null}',
    );
  });

  test('every response carries a request id; a sane incoming x-request-id is kept', async () => {
    const a = await postJson(gw.url, HEALTH);
    assert.match(String(a.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const b = await postJson(gw.url, HEALTH, { 'x-request-id': 'trace-abc.1' });
    assert.equal(b.headers['x-request-id'], 'trace-abc.1');
    const c = await postJson(gw.url, HEALTH, { 'x-request-id': 'bad id with spaces' });
    assert.notEqual(c.headers['x-request-id'], 'bad id with spaces');
    await new Promise((r) => setImmediate(r));
    assert.ok(gw.logs.some((l) => JSON.parse(l).reqId === 'trace-abc.1'));
  });
});

describe('operations endpoints', () => {
  test('GET /health: 200 with every component when all are ready or disabled', async () => {
    const r = await httpRequest(`${gw.base}health`, { method: 'GET' });
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.text), {
      status: 'ok',
      components: {
        rpc: { status: 'ready' },
        grpc: { status: 'ready', detail: gw.gateway.proverAddress },
        validityProof: { status: 'disabled', detail: 'backend not configured' },
        simulateBundle: { status: 'disabled', detail: 'backend not configured' },
        getAsset: { status: 'disabled', detail: 'backend not configured' },
      },
    });
  });

  test('POST /health: 405', async () => {
    assert.equal((await httpRequest(`${gw.base}health`, { method: 'POST' })).status, 405);
  });

  test('GET /metrics: Prometheus text with calls, latency, in-flight and rejections', async () => {
    await postJson(gw.url, HEALTH);
    await postJson(gw.url, '{"jsonrpc":"2.0","id":1,"method":"nope"}');
    await postJson(gw.base, HEALTH);
    const r = await httpRequest(`${gw.base}metrics`, { method: 'GET' });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(r.text, /^zkgate_rpc_calls_total\{method="getHealth",outcome="ok"\} \d+$/m);
    assert.match(r.text, /^zkgate_rpc_calls_total\{method="unknown",outcome="method_not_found"\} \d+$/m);
    assert.match(r.text, /^zkgate_rpc_call_duration_seconds_bucket\{method="getHealth",le="\+Inf"\} \d+$/m);
    assert.match(r.text, /^zkgate_http_request_duration_seconds_count\{route="rpc"\} \d+$/m);
    assert.match(r.text, /^zkgate_http_in_flight_requests 1$/m); // this very request
    assert.match(r.text, /^zkgate_auth_failures_total\{reason="missing"\} \d+$/m);
    assert.match(r.text, /^# TYPE zkgate_rate_limited_total counter$/m);
  });
});

describe('unhealthy components', () => {
  test('/health answers 503 with the reason when the prover gRPC endpoint is unreachable', async () => {
    const down = await startTestGateway({ proverUrl: '127.0.0.1:1' });
    try {
      const r = await httpRequest(`${down.base}health`, { method: 'GET' });
      assert.equal(r.status, 503);
      const report = JSON.parse(r.text);
      assert.equal(report.status, 'unavailable');
      assert.equal(report.components.grpc.status, 'unavailable');
      assert.match(report.components.grpc.detail, /^gRPC health check of 127\.0\.0\.1:1 failed: /);
      assert.equal(report.components.rpc.status, 'ready');
    } finally {
      await down.stop();
    }
  });
});
