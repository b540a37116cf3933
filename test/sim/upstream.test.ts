// Fork mode and forwarding against a second zkgate instance acting as the upstream (real HTTP).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSolanaRpc, devnet, lamports } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { ForkSource } from '../../src/ledger/fork.js';
import { rpcCall, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { generateKeyPairSigner, transfer, type KeyPairSigner } from './helpers.js';

let upstream: TestGateway;
let alice: KeyPairSigner;
const rpcFor = (url: string) => createSolanaRpc(devnet(url));

before(async () => {
  upstream = await startTestGateway({}, {}, { ledger: true });
  alice = await generateKeyPairSigner();
  await rpcFor(upstream.url).requestAirdrop(alice.address, lamports(5_000_000_000n)).send();
});
after(() => upstream.stop());

test('fork mode: accounts the ledger lacks come from the upstream once, then live locally', async () => {
  const fork = await startTestGateway({ forkUrl: upstream.url }, {}, { ledger: true });
  try {
    const local = rpcFor(fork.url);
    assert.equal((await local.getBalance(alice.address).send()).value, 5_000_000_000n, 'fetched from the upstream');
    const bob = await generateKeyPairSigner();
    const bh = (await local.getLatestBlockhash().send()).value;
    await local
      .sendTransaction((await transfer(alice, bob.address, 1_000_000_000n, bh)) as never, { encoding: 'base64' })
      .send();
    assert.equal((await local.getBalance(bob.address).send()).value, 1_000_000_000n);
    assert.equal((await local.getBalance(alice.address).send()).value, 4_000_000_000n - 5000n, 'changed locally');
    assert.equal(
      (await rpcFor(upstream.url).getBalance(alice.address).send()).value,
      5_000_000_000n,
      'the upstream is untouched',
    );
    // simulateBundle sees forked accounts too.
    const carol = await generateKeyPairSigner();
    const tx = await transfer(alice, carol.address, 1_000_000n, bh);
    const res = await rpcCall(fork.url, 'simulateBundle', [
      { encodedTransactions: [tx] },
      {
        preExecutionAccountsConfigs: [null],
        postExecutionAccountsConfigs: [{ addresses: [carol.address] }],
        skipSigVerify: true,
      },
    ]);
    assert.equal(res.result.value.summary, 'succeeded');
    assert.equal(res.result.value.transactionResults[0].postExecutionAccounts[0].lamports, 1_000_000);
  } finally {
    await fork.stop();
  }
});

test('fork mode remembers keys missing upstream, the most recent ones only', async () => {
  const fork = await startTestGateway({}, {}, { ledger: true });
  try {
    const source = new ForkSource(fork.gateway.chain!.ledger, upstream.url, 5000, 3);
    const calls = async () => {
      const m = await (await fetch(`${upstream.base}metrics`)).text();
      return Number(/^zkgate_rpc_calls_total\{method="getMultipleAccounts",outcome="ok"\} (\d+)$/m.exec(m)?.[1] ?? 0);
    };
    const keys = Array.from({ length: 4 }, () => Keypair.generate().publicKey.toBytes());
    const start = await calls();
    await source.ensure(keys.slice(0, 3));
    await source.ensure([keys[0]!]);
    assert.equal((await calls()) - start, 1, 'three missing keys asked once, then remembered');
    await source.ensure([keys[3]!]);
    await source.ensure([keys[0]!]);
    assert.equal((await calls()) - start, 3, 'the oldest forgotten beyond the limit, and asked again');
  } finally {
    await fork.stop();
  }
});

test("forwarding: simulateBundle goes to the upstream verbatim, with the operator key, not the caller's", async () => {
  // The caller holds another key than the one the upstream accepts (which is in the upstream URL).
  const fwd = await startTestGateway(
    { simulateUpstream: upstream.url, apiKeys: ['caller-key-123'] },
    {},
    { ledger: true },
  );
  const callerUrl = `${fwd.base}?api-key=caller-key-123`;
  try {
    const bob = await generateKeyPairSigner();
    const bh = (await rpcFor(upstream.url).getLatestBlockhash().send()).value;
    const tx = await transfer(alice, bob.address, 1_000_000n, bh);
    const params = [
      { encodedTransactions: [tx] },
      {
        preExecutionAccountsConfigs: [null],
        postExecutionAccountsConfigs: [{ addresses: [alice.address] }],
        skipSigVerify: true,
      },
    ];
    const via = await rpcCall(callerUrl, 'simulateBundle', params);
    const direct = await rpcCall(upstream.url, 'simulateBundle', params);
    assert.deepEqual(via.result.value, direct.result.value);
    assert.equal(
      via.result.value.transactionResults[0].postExecutionAccounts[0].lamports,
      5_000_000_000 - 1_000_000 - 5000,
    );
    // The upstream's own validation errors are relayed as they are.
    const bad = await rpcCall(callerUrl, 'simulateBundle', [{ encodedTransactions: Array(21).fill('AA==') }]);
    assert.deepEqual(bad.error, { code: -32602, message: 'bundle size too large, max 20 transactions' });
    // The upstream saw every request under the key in its URL, never the caller's.
    const keyIds = upstream.logs.filter((l) => l.includes('"method":"simulateBundle"')).map((l) => JSON.parse(l).keyId);
    assert.ok(keyIds.length >= 3);
    assert.deepEqual(new Set(keyIds), new Set([upstream.gateway.keys.keys.keyIds[0]]));
    assert.ok(!upstream.logs.some((l) => l.includes(fwd.gateway.keys.keys.keyIds[0]!)));
  } finally {
    await fwd.stop();
  }
});

test('an unreachable upstream is a clear error (-32015)', async () => {
  const fwd = await startTestGateway({
    simulateUpstream: 'http://127.0.0.1:1/?api-key=secret',
    upstreamTimeoutMs: 2000,
  });
  try {
    const res = await rpcCall(fwd.url, 'simulateBundle', [{ encodedTransactions: [] }]);
    assert.equal(res.error.code, -32015);
    assert.match(res.error.message, /^upstream simulateBundle at http:\/\/127\.0\.0\.1:1 unreachable/);
    assert.ok(!res.error.message.includes('secret'), "the upstream URL's key is not echoed");
  } finally {
    await fwd.stop();
  }
});
