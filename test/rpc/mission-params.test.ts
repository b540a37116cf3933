// Edge validation of the three mission methods' params, and the "backend not configured" answer
// for well-formed calls while no backend is attached.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(() => gw.stop());

async function error(method: string, params: unknown): Promise<{ code: number; message: string }> {
  const body = JSON.stringify(
    params === undefined ? { jsonrpc: '2.0', id: 1, method } : { jsonrpc: '2.0', id: 1, method, params },
  );
  const r = await postJson(gw.url, body);
  assert.equal(r.status, 200);
  const parsed = JSON.parse(r.text);
  assert.deepEqual(Object.keys(parsed), ['jsonrpc', 'error', 'id'], r.text);
  assert.deepEqual(Object.keys(parsed.error), ['code', 'message']);
  return parsed.error;
}

const HASH = '1'.repeat(32);
const TX = 'AQ=='; // shape only: decoding is the simulator's job

describe('well-formed calls answer "backend not configured" (-32010), never a fake result', () => {
  const cases: [string, unknown, string][] = [
    [
      'getValidityProof',
      { hashes: [HASH] },
      'getValidityProof is not available: the validity-proof (prover) backend is not configured on this gateway',
    ],
    [
      'getValidityProof',
      { newAddressesWithTrees: [{ address: HASH, tree: HASH }] },
      'getValidityProof is not available: the validity-proof (prover) backend is not configured on this gateway',
    ],
    [
      'getValidityProofV2',
      { hashes: [HASH], newAddressesWithTrees: [] },
      'getValidityProofV2 is not available: the validity-proof (prover) backend is not configured on this gateway',
    ],
    [
      'simulateBundle',
      [{ encodedTransactions: [TX] }],
      'simulateBundle is not available: the bundle simulator backend is not configured on this gateway',
    ],
    [
      'simulateBundle',
      [{ encodedTransactions: [TX] }, null],
      'simulateBundle is not available: the bundle simulator backend is not configured on this gateway',
    ],
    [
      'simulateBundle',
      [
        { encodedTransactions: [TX] },
        {
          preExecutionAccountsConfigs: [null],
          postExecutionAccountsConfigs: [{ addresses: [HASH], encoding: 'base64' }],
          simulationBank: 'tip',
          skipSigVerify: true,
          slot: 5,
        },
      ],
      'simulateBundle is not available: the bundle simulator backend is not configured on this gateway',
    ],
    [
      'getAsset',
      { id: HASH },
      'getAsset is not available: the asset index (DAS) backend is not configured on this gateway',
    ],
    [
      'getAsset',
      { id: HASH, displayOptions: { showFungible: true, showGrandTotal: true } },
      'getAsset is not available: the asset index (DAS) backend is not configured on this gateway',
    ],
    [
      'getAsset',
      [HASH, { showFungible: true }],
      'getAsset is not available: the asset index (DAS) backend is not configured on this gateway',
    ],
  ];
  for (const [method, params, message] of cases) {
    test(`${method} ${JSON.stringify(params).slice(0, 80)}`, async () => {
      assert.deepEqual(await error(method, params), { code: -32010, message });
    });
  }
});

describe('params of the wrong shape answer -32602 naming the field', () => {
  const cases: [string, unknown, string][] = [
    ['getValidityProof', undefined, 'Invalid params: `params`: expected an object, got nothing'],
    // serde takes an array as the struct's fields in order: the first element is `hashes`.
    [
      'getValidityProof',
      [HASH],
      'Invalid params: `params.hashes`: expected an array of base58 hashes, got string "' + HASH + '"',
    ],
    [
      'getValidityProof',
      { hashes: ['notbase58!'] },
      'Invalid params: `params.hashes[0]`: expected a base58 string of 32 bytes, got string "notbase58!"',
    ],
    [
      'getValidityProofV2',
      { hashes: ['3yZe7d'] },
      'Invalid params: `params.hashes[0]`: expected a base58 string of 32 bytes (it decodes to 4), got string "3yZe7d"',
    ],
    [
      'getValidityProofV2',
      { newAddressesWithTrees: [{ address: HASH, tree: 'abc' }] },
      'Invalid params: `params.newAddressesWithTrees[0].tree`: expected a base58 string of 32 bytes (it decodes to 3), got string "abc"',
    ],
    [
      'getValidityProof',
      { hashes: HASH },
      'Invalid params: `params.hashes`: expected an array of base58 hashes, got string "' + HASH + '"',
    ],
    [
      'getValidityProof',
      { hashes: [HASH, 5] },
      'Invalid params: `params.hashes[1]`: expected a base58 string of 32 bytes, got number 5',
    ],
    [
      'getValidityProof',
      { foo: 1 },
      'Invalid params: unknown field `params.foo`, expected one of `hashes`, `newAddresses`, `newAddressesWithTrees`',
    ],
    [
      'getValidityProof',
      { newAddressesWithTrees: [{ address: HASH }] },
      'Invalid params: missing field `params.newAddressesWithTrees[0].tree`',
    ],
    [
      'getValidityProofV2',
      { newAddresses: [HASH] },
      'Invalid params: unknown field `params.newAddresses`, expected one of `hashes`, `newAddressesWithTrees`',
    ],
    [
      'simulateBundle',
      { encodedTransactions: [TX] },
      'Invalid params: `params`: expected an array [ {encodedTransactions}, config? ], got an object',
    ],
    [
      'simulateBundle',
      [],
      'Invalid params: `params`: expected 1 or 2 elements ([ {encodedTransactions}, config? ]), got 0',
    ],
    [
      'simulateBundle',
      [{ encodedTransactions: [TX] }, null, null],
      'Invalid params: `params`: expected 1 or 2 elements ([ {encodedTransactions}, config? ]), got 3',
    ],
    ['simulateBundle', [[TX]], 'Invalid params: `params[0]`: expected an object, got an array'],
    ['simulateBundle', [{}], 'Invalid params: missing field `params[0].encodedTransactions`'],
    [
      'simulateBundle',
      [{ encodedTransactions: [TX] }, { postExecutionAccountsConfigs: 'none' }],
      'Invalid params: `params[1].postExecutionAccountsConfigs`: expected an array of null or {addresses, encoding?} entries, got string "none"',
    ],
    [
      'simulateBundle',
      [{ encodedTransactions: [TX] }, { preExecutionAccountsConfigs: [null], postExecutionAccountsConfigs: [{}] }],
      'Invalid params: missing field `params[1].postExecutionAccountsConfigs[0].addresses`',
    ],
    [
      'simulateBundle',
      [
        { encodedTransactions: [TX] },
        { preExecutionAccountsConfigs: [null], postExecutionAccountsConfigs: [null], simulationBank: 'latest' },
      ],
      'Invalid params: `params[1].simulationBank`: expected "tip", a commitment ("processed"|"confirmed"|"finalized"), a slot number, {"commitment": {"commitment": …}} or {"slot": <u64>}, got string "latest"',
    ],
    [
      'simulateBundle',
      [
        { encodedTransactions: [TX] },
        {
          preExecutionAccountsConfigs: [null],
          postExecutionAccountsConfigs: [null],
          simulationBank: { commitment: { commitment: 'recent' } },
        },
      ],
      'Invalid params: `params[1].simulationBank.commitment.commitment`: expected one of "processed", "confirmed", "finalized", got string "recent"',
    ],
    [
      'simulateBundle',
      [
        { encodedTransactions: [TX] },
        { preExecutionAccountsConfigs: [null], postExecutionAccountsConfigs: [null], simulationBank: { slot: -1 } },
      ],
      'Invalid params: `params[1].simulationBank.slot`: expected a slot number (u64), got number -1',
    ],
    [
      'simulateBundle',
      [
        { encodedTransactions: [TX] },
        { preExecutionAccountsConfigs: [null], postExecutionAccountsConfigs: [null], skipSigVerify: 'yes' },
      ],
      'Invalid params: `params[1].skipSigVerify`: expected a boolean, got string "yes"',
    ],
    ['getAsset', undefined, 'Invalid params: `params`: expected an object {id, options?}, got nothing'],
    ['getAsset', {}, 'Invalid params: missing field `params.id`'],
    ['getAsset', { id: 5 }, 'Invalid params: `params.id`: expected a string, got number 5'],
    [
      'getAsset',
      { id: HASH, page: 1 },
      'Invalid params: unknown field `params.page`, expected one of `id`, `options`, `displayOptions`',
    ],
    [
      'getAsset',
      { id: HASH, options: {}, displayOptions: {} },
      'Invalid params: duplicate field `params.options` (`displayOptions` is its alias)',
    ],
    [
      'getAsset',
      { id: HASH, options: { showFungible: 'true' } },
      'Invalid params: `params.options.showFungible`: expected a boolean, got string "true"',
    ],
    ['getAsset', [], 'Invalid params: `params`: expected [id, options?], got 0 elements'],
  ];
  for (const [method, params, message] of cases) {
    test(`${method} ${JSON.stringify(params)?.slice(0, 80)}`, async () => {
      assert.deepEqual(await error(method, params), { code: -32602, message });
    });
  }
});
