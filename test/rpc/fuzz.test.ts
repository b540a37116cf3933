// Fuzzes the envelope with a few hundred random and malformed bodies: every answer must be a
// JSON-RPC error or a valid response (or 204 for notifications), and the server must stay up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postJson, startTestGateway } from '../helpers/gateway.js';

// Deterministic PRNG so a failure reproduces.
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = [
  'getHealth',
  'getVersion',
  'getAsset',
  'getValidityProof',
  'getValidityProofV2',
  'simulateBundle',
  'getTransaction',
  'getSignatureStatuses',
  'getAccountInfo',
  'getMultipleAccounts',
  'getBalance',
  'sendTransaction',
  'getCompressedAccount',
  'nope',
  '',
  '__proto__',
  'constructor',
  'toString',
];

function randomValue(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * (depth > 2 ? 6 : 9));
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor((r() - 0.5) * 1e6) / (r() < 0.3 ? 7 : 1);
    case 3:
      return [
        '',
        'x',
        '1'.repeat(44),
        '\u0000',
        '💥',
        '__proto__',
        'tip',
        'é',
        '0',
        'x'.repeat(5000),
        '1'.repeat(20_000),
      ][Math.floor(r() * 11)];
    case 4:
      return Number.MAX_SAFE_INTEGER * (r() < 0.5 ? -1 : 1);
    case 5:
      return 'abc'.repeat(Math.floor(r() * 5));
    case 6:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const keys = [
        'id',
        'hashes',
        'encodedTransactions',
        'options',
        'address',
        'tree',
        'preExecutionAccountsConfigs',
        'postExecutionAccountsConfigs',
        'simulationBank',
        '__proto__',
        'constructor',
      ];
      for (let i = Math.floor(r() * 4); i > 0; i--) o[keys[Math.floor(r() * keys.length)]!] = randomValue(r, depth + 1);
      return o;
    }
  }
}

function randomRequest(r: () => number): unknown {
  const req: Record<string, unknown> = {};
  if (r() < 0.9) req.jsonrpc = r() < 0.85 ? '2.0' : randomValue(r, 2);
  if (r() < 0.85) req.id = r() < 0.7 ? Math.floor(r() * 1000) : randomValue(r, 2);
  if (r() < 0.95) req.method = r() < 0.85 ? METHODS[Math.floor(r() * METHODS.length)] : randomValue(r, 2);
  if (r() < 0.7) req.params = randomValue(r, 0);
  return req;
}

/** Params nested far deeper than any method reads (the edge refuses beyond --max-json-depth). */
function deepParams(r: () => number): string {
  const depth = 60 + Math.floor(r() * 20_000);
  return '['.repeat(depth) + (r() < 0.5 ? '"é"' : '1') + ']'.repeat(depth);
}

function randomBody(r: () => number): string {
  const kind = r();
  if (kind < 0.05) {
    const method = METHODS[Math.floor(r() * METHODS.length)];
    return `{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(method)},"params":[${deepParams(r)}]}`;
  }
  if (kind < 0.5) return JSON.stringify(randomRequest(r));
  if (kind < 0.65)
    return JSON.stringify(
      Array.from({ length: Math.floor(r() * 6) }, () => (r() < 0.8 ? randomRequest(r) : randomValue(r, 1))),
    );
  if (kind < 0.75) return JSON.stringify(randomValue(r, 0));
  // Malformed text: truncated, mutated or junk.
  const base = JSON.stringify(randomRequest(r));
  if (kind < 0.85) return base.slice(0, Math.floor(r() * base.length));
  if (kind < 0.95) {
    const i = Math.floor(r() * base.length);
    return base.slice(0, i) + String.fromCharCode(Math.floor(r() * 128)) + base.slice(i + 1);
  }
  return Buffer.from(Array.from({ length: 40 }, () => Math.floor(r() * 256))).toString('latin1');
}

function assertValidAnswer(body: string, status: number, text: string): void {
  if (status === 204) {
    assert.equal(text, '', body);
    return;
  }
  assert.equal(status, 200, `${body} -> ${status} ${text}`);
  const parsed = JSON.parse(text);
  for (const resp of Array.isArray(parsed) ? parsed : [parsed]) {
    assert.equal(resp.jsonrpc, '2.0');
    assert.ok('id' in resp, text);
    assert.ok(['string', 'number'].includes(typeof resp.id) || resp.id === null, text);
    if ('error' in resp) {
      assert.equal(typeof resp.error.code, 'number');
      assert.equal(typeof resp.error.message, 'string');
      assert.ok(!/\n\s+at /.test(resp.error.message), 'no stack traces');
      assert.notEqual(resp.error.code, -32603, `unexpected internal error for ${body}: ${text}`);
    } else {
      assert.ok('result' in resp, text);
    }
  }
}

test('400 random and malformed bodies never crash the server and always get a JSON-RPC answer', async () => {
  // With the embedded ledger: the Solana methods are fuzzed too.
  const gw = await startTestGateway({ rateLimit: 0 }, {}, { ledger: true });
  try {
    const r = prng(0x5eed);
    for (let i = 0; i < 400; i++) {
      const body = randomBody(r);
      const res = await postJson(gw.url, body);
      assertValidAnswer(body, res.status, res.text);
    }
    const alive = await postJson(gw.url, '{"jsonrpc":"2.0","id":1,"method":"getHealth"}');
    assert.equal(alive.text, '{"jsonrpc":"2.0","result":"ok","id":1}');
    await new Promise((res) => setImmediate(res));
    assert.ok(!gw.logs.some((l) => JSON.parse(l).msg === 'unexpected failure'), 'no unexpected failures logged');
  } finally {
    await gw.stop();
  }
});
