// Which keys a request may have built (--build-on-demand): the shapes each setting names, and a
// shape outside it refused at once through JSON-RPC (-32018) and gRPC (FAILED_PRECONDITION, kind
// key_not_built), naming the shape and the ways to build it, while nothing is built.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildOnDemandShapes } from '../../src/prover/build-policy.js';
import { demoAddress } from '../../src/prover/demo-data.js';
import { RemoteProverError } from '../../src/prover/index.js';
import { bigIntToBase58 } from '../../src/zk/index.js';
import { proverClientOf, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { AMT1 } from './helpers.js';

test('the shapes each --build-on-demand setting names', () => {
  const loopback = buildOnDemandShapes(['auto'], true);
  for (const s of ['v1_inclusion_26_1', 'v1_combined_26_26_4_2', 'v2_inclusion_32_8', 'v2_non-inclusion_40_8'])
    assert.ok(loopback.has(s), s);
  for (const s of ['v2_inclusion_32_20', 'v2_non-inclusion_40_32', 'batch_append_32_500'])
    assert.ok(!loopback.has(s), s);
  assert.equal(buildOnDemandShapes(['auto'], false).size, 0, 'off loopback: none');
  assert.equal(buildOnDemandShapes(['none'], true).size, 0);
  assert.ok(buildOnDemandShapes(['all'], false).has('batch_append_32_500'));
  assert.deepEqual(
    [...buildOnDemandShapes(['v2_inclusion_32_20', 'v2_inclusion_32_20'], false)],
    ['v2_inclusion_32_20'],
  );
  assert.throws(() => buildOnDemandShapes(['v9_nothing'], true), /unknown circuit shape "v9_nothing"/);
});

let gw: TestGateway;
before(async () => {
  // A data dir of its own, without the suite's key cache: every shape's key is missing.
  gw = await startTestGateway({ buildOnDemand: ['none'] }, {}, { prover: true, linkKeys: false });
});
after(() => gw?.stop());

const refusal = (shape: string) =>
  `no proving key for ${shape} yet, and a request may not start its build (--build-on-demand): build it with \`zkgate keys build ${shape}\`, preload it (--preload-circuits), or allow it with --build-on-demand`;

test('a request for a shape outside the list is refused at once, and nothing is built', async () => {
  const res = await fetch(gw.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getValidityProof',
      params: { newAddressesWithTrees: [{ address: bigIntToBase58(demoAddress(1)), tree: AMT1 }] },
    }),
  });
  assert.deepEqual(await res.json(), {
    jsonrpc: '2.0',
    error: { code: -32018, message: refusal('v1_non-inclusion_26_1') },
    id: 1,
  });
  const client = proverClientOf(gw.gateway);
  try {
    await assert.rejects(client.verifyingKey('batch_append_32_500'), (e: RemoteProverError) => {
      assert.equal(e.kind, 'key_not_built');
      assert.equal(e.message, refusal('batch_append_32_500'));
      return true;
    });
  } finally {
    client.close();
  }
  const keys = join(gw.dataDir, 'keys');
  assert.deepEqual(existsSync(keys) ? readdirSync(keys).filter((f) => f.endsWith('.zkey')) : [], []);
});
