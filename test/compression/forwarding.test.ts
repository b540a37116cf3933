// --validity-proof-upstream: getValidityProof(V2) and the Photon methods go verbatim to a
// Photon/Helius endpoint (here a second zkgate with a compression index), with the operator's key
// in the upstream URL and never the caller's; the upstream's answers and errors come back as sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Keypair } from '@solana/web3.js';
import { compress, confirmTx, createRpc, type Rpc } from '@lightprotocol/stateless.js';
import { postJson, rpcCall, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let upstream: TestGateway;
let fwd: TestGateway;
const fwdUrl = () => `${fwd.base}?api-key=caller-key-456`;
const payer = Keypair.generate();

before(async () => {
  upstream = await startTestGateway({}, {}, { ledger: true, prover: true });
  const up: Rpc = createRpc(upstream.url, upstream.url);
  await confirmTx(up, await up.requestAirdrop(payer.publicKey, 5_000_000_000));
  await compress(up, payer, 1_000_000_000, payer.publicKey);
  // The forwarding gateway has a ledger of its own, where the payer holds nothing.
  fwd = await startTestGateway(
    { validityProofUpstream: upstream.url, apiKeys: ['caller-key-456'] },
    {},
    { ledger: true },
  );
});
after(async () => {
  await fwd?.stop();
  await upstream?.stop();
});

test('the Photon methods and getValidityProofV2 answer as the upstream does, byte for byte', async () => {
  const calls: [string, unknown][] = [
    ['getCompressedBalanceByOwner', { owner: payer.publicKey.toBase58() }],
    ['getCompressedAccountsByOwnerV2', { owner: payer.publicKey.toBase58() }],
    ['getIndexerHealth', []],
  ];
  for (const [method, params] of calls) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method, params });
    const [a, b] = await Promise.all([postJson(fwdUrl(), body), postJson(upstream.url, body)]);
    // Slots may move between the two calls; the rest is the upstream's answer.
    const strip = (t: string) => t.replace(/"slot":\d+/g, '"slot":0');
    assert.equal(strip(a.text), strip(b.text), method);
  }
  const accounts = (await rpcCall(fwdUrl(), 'getCompressedAccountsByOwnerV2', { owner: payer.publicKey.toBase58() }))
    .result.value.items;
  assert.equal(accounts.length, 1);
  assert.equal(accounts[0].lamports, 1_000_000_000);
  // A V2 account in an output queue: proved by index, through the upstream.
  const proof = await rpcCall(fwdUrl(), 'getValidityProofV2', {
    hashes: [accounts[0].hash],
    newAddressesWithTrees: [],
  });
  assert.equal(proof.result.value.compressedProof, null);
  assert.deepEqual(proof.result.value.accounts[0].rootIndex, { rootIndex: 0, proveByIndex: true });
});

test("the upstream's own errors keep their code and message; the caller's key is not the upstream's", async () => {
  const res = await rpcCall(fwdUrl(), 'getCompressedAccount', {});
  assert.deepEqual(res.error, { code: -32000, message: 'Validation Error: Either address or hash must be provided' });
  // Params are relayed as sent: the upstream judges them.
  const bad = await rpcCall(fwdUrl(), 'getCompressedAccountProof', { hash: 5 });
  assert.equal(bad.error.code, -32602);
  assert.match(bad.error.message, /^invalid type: integer `5`, expected a base58 encoded string/);
  // The caller's key does not open the upstream.
  const direct = await postJson(
    upstream.base + '?api-key=caller-key-456',
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getIndexerSlot', params: [] }),
  );
  assert.equal(direct.status, 401);
});

test('an unreachable upstream answers -32015 naming only its origin', async () => {
  const down = await startTestGateway({
    validityProofUpstream: 'http://127.0.0.1:9/?api-key=secret-operator-key',
    upstreamTimeoutMs: 2000,
  });
  try {
    const res = await rpcCall(down.url, 'getValidityProofV2', { hashes: [] });
    assert.equal(res.error.code, -32015);
    assert.match(res.error.message, /http:\/\/127\.0\.0\.1:9/);
    assert.doesNotMatch(res.error.message, /secret-operator-key/);
  } finally {
    await down.stop();
  }
});
