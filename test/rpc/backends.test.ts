// The adapter with backends attached (test implementations of the backend interfaces):
// results pass through, batches run concurrently, unexpected failures are masked as -32603.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Backends } from '../../src/rpc/index.js';
import type { GetAssetParams } from '../../src/rpc/methods/get-asset.js';
import { httpRequest, postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

// Calls whose id starts with "A" wait at a barrier until `barrier.size` of them have arrived: a
// batch served one call at a time would never get past the first.
const barrier = { size: 0, arrived: 0, open: () => {}, opened: Promise.resolve() };
function expectTogether(size: number): void {
  barrier.size = size;
  barrier.arrived = 0;
  barrier.opened = new Promise<void>((resolve) => (barrier.open = resolve));
}

const backends: Backends = {
  assets: {
    async getAsset(p: GetAssetParams) {
      if (p.id === 'boom') throw new TypeError("Cannot read properties of undefined (reading 'owner')");
      if (p.id.startsWith('A') && barrier.size > 0) {
        if (++barrier.arrived === barrier.size) barrier.open();
        await barrier.opened;
      }
      // u64 values must reach the wire exactly, beyond 2^53.
      return { id: p.id, supply: 18446744073709551615n, showFungible: p.options.showFungible ?? false };
    },
  },
};

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({}, backends);
});
after(() => gw.stop());

test('a configured backend answers, with u64 values as exact JSON integers', async () => {
  const r = await postJson(
    gw.url,
    '{"jsonrpc":"2.0","id":1,"method":"getAsset","params":{"id":"A","options":{"showFungible":true}}}',
  );
  assert.equal(
    r.text,
    '{"jsonrpc":"2.0","result":{"id":"A","supply":18446744073709551615,"showFungible":true},"id":1}',
  );
});

test(
  'requests in a batch run concurrently: each call waits for all six to have started',
  { timeout: 60_000 },
  async () => {
    expectTogether(6);
    const batch = JSON.stringify(
      [1, 2, 3, 4, 5, 6].map((i) => ({ jsonrpc: '2.0', id: i, method: 'getAsset', params: { id: `A${i}` } })),
    );
    try {
      const r = await postJson(gw.url, batch);
      assert.equal(barrier.arrived, 6);
      assert.deepEqual(
        JSON.parse(r.text).map((x: { id: number; result: { id: string } }) => [x.id, x.result.id]),
        [1, 2, 3, 4, 5, 6].map((i) => [i, `A${i}`]),
        'answers in request order',
      );
    } finally {
      expectTogether(0);
    }
  },
);

test('an unexpected failure answers -32603 without a stack trace; the log keeps it with the request id', async () => {
  const r = await postJson(gw.url, '{"jsonrpc":"2.0","id":"e","method":"getAsset","params":{"id":"boom"}}', {
    'x-request-id': 'req-boom',
  });
  assert.equal(r.status, 200);
  assert.equal(r.text, '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":"e"}');
  await new Promise((res) => setImmediate(res));
  const line = gw.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'unexpected failure');
  assert.equal(line.reqId, 'req-boom');
  assert.equal(line.method, 'getAsset');
  assert.match(line.stack, /TypeError: Cannot read properties/);
});

test('/health reports a configured backend as ready', async () => {
  const r = await httpRequest(`${gw.base}health`, { method: 'GET' });
  assert.deepEqual(JSON.parse(r.text).components.getAsset, { status: 'ready' });
});
