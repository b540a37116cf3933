// JSON-RPC 2.0 envelope rules through real HTTP: exact response JSON for every case.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ maxBatchSize: 5 });
});
after(() => gw.stop());

async function call(body: string): Promise<{ status: number; text: string }> {
  const r = await postJson(gw.url, body);
  return { status: r.status, text: r.text };
}

describe('ids are echoed with their exact type and value', () => {
  for (const [label, id] of [
    ['string', '"abc-1"'],
    ['number', '42'],
    ['zero', '0'],
    ['negative fraction', '-1.5'],
    ['null', 'null'],
    ['empty string', '""'],
  ] as const) {
    test(label, async () => {
      const r = await call(`{"jsonrpc":"2.0","id":${id},"method":"getHealth"}`);
      assert.equal(r.status, 200);
      assert.equal(r.text, `{"jsonrpc":"2.0","result":"ok","id":${id}}`);
    });
  }
});

describe('envelope errors', () => {
  const cases: [string, string, string][] = [
    ['parse error', '{"jsonrpc":"2.0","id":1,', '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: '],
    [
      'jsonrpc 1.0',
      '{"jsonrpc":"1.0","id":1,"method":"getHealth"}',
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: `jsonrpc` must be \\"2.0\\", got string \\"1.0\\""},"id":1}',
    ],
    [
      'jsonrpc number',
      '{"jsonrpc":2,"id":"x","method":"getHealth"}',
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: `jsonrpc` must be \\"2.0\\", got number 2"},"id":"x"}',
    ],
    [
      'missing method',
      '{"jsonrpc":"2.0","id":7}',
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: missing field `method`"},"id":7}',
    ],
    [
      'method not a string',
      '{"jsonrpc":"2.0","id":7,"method":5}',
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: `method` must be a string, got number 5"},"id":7}',
    ],
    [
      'id an object',
      '{"jsonrpc":"2.0","id":{"a":1},"method":"getHealth"}',
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: `id` must be a string, number or null, got an object"},"id":null}',
    ],
    [
      'id a boolean',
      '{"jsonrpc":"2.0","id":true,"method":"getHealth"}',
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: `id` must be a string, number or null, got boolean true"},"id":null}',
    ],
    [
      'params a string',
      '{"jsonrpc":"2.0","id":1,"method":"getHealth","params":"x"}',
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: `params` must be an array or an object, got string \\"x\\""},"id":1}',
    ],
    [
      'body a number',
      '5',
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: expected a request object, got number 5"},"id":null}',
    ],
    [
      'body null',
      'null',
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: expected a request object, got null"},"id":null}',
    ],
    [
      'unknown method',
      '{"jsonrpc":"2.0","id":3,"method":"getBlockProduction2"}',
      '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}',
    ],
    [
      'params to a no-params method',
      '{"jsonrpc":"2.0","id":3,"method":"getHealth","params":[1]}',
      '{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: `params`: expected no params, got an array"},"id":3}',
    ],
  ];
  for (const [label, body, expected] of cases) {
    test(label, async () => {
      const r = await call(body);
      assert.equal(r.status, 200);
      if (label === 'parse error') {
        assert.ok(r.text.startsWith(expected), r.text);
        assert.ok(r.text.endsWith('"},"id":null}'), r.text);
      } else {
        assert.equal(r.text, expected);
      }
    });
  }

  test('a missing jsonrpc member is taken as "2.0"', async () => {
    assert.equal((await call('{"id":9,"method":"getHealth"}')).text, '{"jsonrpc":"2.0","result":"ok","id":9}');
  });

  test('params null is the same as no params', async () => {
    assert.equal(
      (await call('{"id":9,"method":"getHealth","params":null}')).text,
      '{"jsonrpc":"2.0","result":"ok","id":9}',
    );
  });
});

describe('notifications', () => {
  test('a valid request without id gets no response (HTTP 204, empty body)', async () => {
    const r = await call('{"jsonrpc":"2.0","method":"getHealth"}');
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
  });

  test('a notification of an unknown method gets no response either', async () => {
    const r = await call('{"jsonrpc":"2.0","method":"nope"}');
    assert.equal(r.status, 204);
  });

  test('an invalid request without id is still answered, with id null', async () => {
    const r = await call('{"jsonrpc":"2.0","method":1}');
    assert.equal(
      r.text,
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: `method` must be a string, got number 1"},"id":null}',
    );
  });
});

describe('batches', () => {
  test('mixed valid and invalid requests, notifications omitted, order kept', async () => {
    const r = await call(
      '[{"jsonrpc":"2.0","id":1,"method":"getHealth"},{"jsonrpc":"2.0","method":"getHealth"},' +
        '{"jsonrpc":"2.0","id":"v","method":"getVersion"},1,{"jsonrpc":"2.0","id":2,"method":"x"}]',
    );
    assert.equal(r.status, 200);
    assert.equal(
      r.text,
      '[{"jsonrpc":"2.0","result":"ok","id":1},' +
        '{"jsonrpc":"2.0","result":{"solana-core":"0.0.0-test","feature-set":0},"id":"v"},' +
        '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: expected a request object, got number 1"},"id":null},' +
        '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}]',
    );
  });

  test('an empty batch is one invalid-request error, not an array', async () => {
    const r = await call('[]');
    assert.equal(
      r.text,
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: empty batch"},"id":null}',
    );
  });

  test('a batch above the maximum is refused whole with a clear error', async () => {
    const one = '{"jsonrpc":"2.0","id":1,"method":"getHealth"}';
    const r = await call(`[${Array(6).fill(one).join(',')}]`);
    assert.equal(
      r.text,
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: batch of 6 requests exceeds the maximum of 5"},"id":null}',
    );
  });

  test('a batch at the maximum is served', async () => {
    const r = await call(
      `[${[1, 2, 3, 4, 5].map((i) => `{"jsonrpc":"2.0","id":${i},"method":"getHealth"}`).join(',')}]`,
    );
    assert.deepEqual(
      JSON.parse(r.text).map((x: { id: number }) => x.id),
      [1, 2, 3, 4, 5],
    );
  });

  test('a batch of only notifications gets no response', async () => {
    const r = await call('[{"jsonrpc":"2.0","method":"getHealth"},{"jsonrpc":"2.0","method":"getVersion"}]');
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
  });
});

describe('node methods', () => {
  test('getHealth', async () => {
    assert.equal(
      (await call('{"jsonrpc":"2.0","id":1,"method":"getHealth"}')).text,
      '{"jsonrpc":"2.0","result":"ok","id":1}',
    );
  });
  test('getVersion carries zkgate version and feature-set 0', async () => {
    assert.equal(
      (await call('{"jsonrpc":"2.0","id":1,"method":"getVersion","params":[]}')).text,
      '{"jsonrpc":"2.0","result":{"solana-core":"0.0.0-test","feature-set":0},"id":1}',
    );
  });
});
