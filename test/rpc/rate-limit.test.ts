import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RateLimitedError } from '../../src/rpc/errors.js';
import { RateLimiter } from '../../src/rpc/rate-limit.js';
import { postJson, startTestGateway } from '../helpers/gateway.js';

describe('token bucket', () => {
  test('burst, refill at the rate, per key, and retry-after in whole seconds', () => {
    let now = 0;
    const rl = new RateLimiter(2, 4, () => now);
    for (let i = 0; i < 4; i++) rl.take('a');
    assert.throws(
      () => rl.take('a'),
      (e: unknown) => e instanceof RateLimitedError && e.retryAfterSeconds === 1,
    );
    rl.take('b'); // another key has its own bucket
    now += 500; // +1 token
    rl.take('a');
    assert.throws(() => rl.take('a'));
    now += 10_000; // refills to the burst, not beyond
    for (let i = 0; i < 4; i++) rl.take('a');
    assert.throws(() => rl.take('a'));
  });

  test('taking several tokens at once (batches) and more than the burst', () => {
    let now = 0;
    const rl = new RateLimiter(1, 10, () => now);
    rl.take('k', 7);
    assert.throws(
      () => rl.take('k', 5),
      (e: unknown) => e instanceof RateLimitedError && e.retryAfterSeconds === 2,
    );
    assert.throws(() => rl.take('k', 11), /exceed the burst of 10/);
  });

  test('rate 0 disables limiting: what a limiter of rate 1 refuses at once, rate 0 lets through', () => {
    let now = 0;
    const limited = new RateLimiter(1, 1, () => now);
    const off = new RateLimiter(0, 0, () => now);
    const taken = (rl: RateLimiter, n: number) => {
      let ok = 0;
      for (let i = 0; i < n; i++) {
        try {
          rl.take('k');
          ok++;
        } catch (e) {
          if (!(e instanceof RateLimitedError)) throw e;
        }
      }
      return ok;
    };
    // The same 10,000 requests in the same instant, and a batch larger than any burst.
    assert.equal(taken(limited, 10_000), 1);
    assert.equal(taken(off, 10_000), 10_000);
    assert.throws(() => limited.take('b', 5), RateLimitedError);
    assert.doesNotThrow(() => off.take('b', 5_000));
  });
});

test('--rate-limit 0: a burst far beyond any bucket is served, nothing is counted as limited', async () => {
  const gw = await startTestGateway({ rateLimit: 0, rateLimitBurst: 0 });
  try {
    const one = '{"jsonrpc":"2.0","id":1,"method":"getHealth"}';
    const batch = `[${Array(100).fill(one).join(',')}]`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => postJson(gw.url, batch)));
    assert.deepEqual(
      answers.map((r) => r.status),
      Array(20).fill(200),
    );
    for (const r of answers) assert.equal(JSON.parse(r.text).length, 100);
    const metrics = await (await fetch(`${gw.base}metrics`)).text();
    assert.doesNotMatch(metrics, /^zkgate_rate_limited_total\{/m);
  } finally {
    await gw.stop();
  }
});

test('over the limit: HTTP 429 with Retry-After and a JSON-RPC error body; batches count each request', async () => {
  const gw = await startTestGateway({ rateLimit: 1, rateLimitBurst: 3 });
  try {
    const one = '{"jsonrpc":"2.0","id":1,"method":"getHealth"}';
    assert.equal((await postJson(gw.url, one)).status, 200);
    assert.equal((await postJson(gw.url, one)).status, 200);
    const batch = await postJson(gw.url, `[${one},${one}]`); // needs 2 tokens, ~1 left
    assert.equal(batch.status, 429);
    assert.equal(batch.headers['retry-after'], '1');
    assert.match(
      batch.text,
      /^\{"jsonrpc":"2\.0","error":\{"code":-32029,"message":"Rate limit exceeded for key-[0-9a-f]{8}: 1 requests\/s \(burst 3\); retry after 1 s"\},"id":null\}$/,
    );
    const metrics = await (await fetch(`${gw.base}metrics`)).text();
    assert.match(metrics, /^zkgate_rate_limited_total\{key_id="key-[0-9a-f]{8}"\} 1$/m);
  } finally {
    await gw.stop();
  }
});
