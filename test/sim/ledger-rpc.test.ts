// The standard Solana RPC subset on the embedded ledger, driven by a real client (@solana/kit's RPC
// over real HTTP), and the ledger's persistence across restarts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSolanaRpc, devnet, lamports, signature as sig } from '@solana/kit';
import { startTestGateway, tempDir, type TestGateway } from '../helpers/gateway.js';
import { generateKeyPairSigner, transfer } from './helpers.js';

let gw: TestGateway;
/** The devnet flavour of kit's RPC types includes requestAirdrop, which the ledger serves. */
const rpcFor = (url: string) => createSolanaRpc(devnet(url));
let rpc: ReturnType<typeof rpcFor>;

before(async () => {
  gw = await startTestGateway({}, {}, { ledger: true });
  rpc = rpcFor(gw.url);
});
after(() => gw.stop());

test('airdrop, transfer, statuses and the transaction record through @solana/kit', async () => {
  const a = await generateKeyPairSigner();
  const b = await generateKeyPairSigner();
  const airdrop = await rpc.requestAirdrop(a.address, lamports(2_000_000_000n)).send();
  assert.equal(typeof airdrop, 'string');
  assert.equal((await rpc.getBalance(a.address).send()).value, 2_000_000_000n);
  const rent = await rpc.getMinimumBalanceForRentExemption(0n).send();
  assert.ok(rent > 0n);
  const latest = (await rpc.getLatestBlockhash().send()).value;
  assert.equal((await rpc.isBlockhashValid(latest.blockhash).send()).value, true);
  const wire = await transfer(a, b.address, 100_000_000n, latest);
  const s = await rpc.sendTransaction(wire as never, { encoding: 'base64' }).send();
  assert.equal((await rpc.getBalance(b.address).send()).value, 100_000_000n);
  assert.equal((await rpc.getBalance(a.address).send()).value, 2_000_000_000n - 100_000_000n - 5000n);
  const statuses = await rpc.getSignatureStatuses([s]).send();
  assert.equal(statuses.value[0]?.err, null);
  const tx = await rpc.getTransaction(s, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
  assert.ok(tx);
  assert.equal(tx.meta?.fee, 5000n);
  assert.deepEqual(tx.meta?.logMessages, [
    'Program 11111111111111111111111111111111 invoke [1]',
    'Program 11111111111111111111111111111111 success',
  ]);
  assert.deepEqual(tx.meta?.postBalances.slice(0, 2), [2_000_000_000n - 100_000_000n - 5000n, 100_000_000n]);
  const info = (await rpc.getAccountInfo(b.address, { encoding: 'base64' }).send()).value;
  assert.equal(info?.lamports, 100_000_000n);
  assert.equal(info?.owner, '11111111111111111111111111111111');
  const multiple = (await rpc.getMultipleAccounts([a.address, b.address], { encoding: 'base64' }).send()).value;
  assert.equal(multiple[1]?.lamports, 100_000_000n);
  assert.equal((await rpc.getSignatureStatuses([sig('1'.repeat(64))]).send()).value[0], null);
});

test('sendTransaction refuses a failing preflight with -32002 and the simulation, and commits nothing', async () => {
  const a = await generateKeyPairSigner();
  const b = await generateKeyPairSigner();
  await rpc.requestAirdrop(a.address, lamports(1_000_000n)).send();
  const latest = (await rpc.getLatestBlockhash().send()).value;
  const wire = await transfer(a, b.address, 5_000_000n, latest);
  const res = await fetch(gw.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [wire, { encoding: 'base64' }] }),
  });
  const body = (await res.json()) as { error: { code: number; message: string; data: { err: unknown } } };
  assert.equal(body.error.code, -32002);
  assert.equal(
    body.error.message,
    'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
  );
  assert.deepEqual(body.error.data.err, { InstructionError: [0, { Custom: 1 }] });
  assert.equal((await rpc.getBalance(a.address).send()).value, 1_000_000n);
});

test('ledger accounts persist across a restart', async () => {
  const dataDir = tempDir();
  const first = await startTestGateway({}, {}, { ledger: true, dataDir });
  const a = await generateKeyPairSigner();
  await rpcFor(first.url).requestAirdrop(a.address, lamports(123_456_789n)).send();
  const slotBefore = await rpcFor(first.url).getSlot({ commitment: 'processed' }).send();
  await first.stop();
  const second = await startTestGateway({}, {}, { ledger: true, dataDir });
  try {
    const r = rpcFor(second.url);
    assert.equal((await r.getBalance(a.address).send()).value, 123_456_789n);
    assert.ok((await r.getSlot({ commitment: 'processed' }).send()) >= slotBefore, 'the slot clock resumes');
  } finally {
    await second.stop();
  }
});

test('simulateTransaction, getEpochInfo and getFeeForMessage answer as a validator does', async () => {
  const a = await generateKeyPairSigner();
  const b = await generateKeyPairSigner();
  await rpc.requestAirdrop(a.address, lamports(1_000_000_000n)).send();
  const latest = (await rpc.getLatestBlockhash().send()).value;
  const wire = await transfer(a, b.address, 10_000_000n, latest);
  const sim = await rpc
    .simulateTransaction(wire as never, {
      encoding: 'base64',
      accounts: { encoding: 'base64', addresses: [b.address] },
    })
    .send();
  assert.equal(sim.value.err, null);
  assert.equal(sim.value.unitsConsumed, 150n);
  assert.equal(sim.value.accounts?.[0]?.lamports, 10_000_000n, 'the recipient after the transfer');
  assert.equal((await rpc.getBalance(b.address).send()).value, 0n, 'nothing committed');
  const epoch = await rpc.getEpochInfo().send();
  assert.equal(epoch.slotsInEpoch, 432_000n);
  assert.equal(epoch.absoluteSlot, epoch.epoch * 432_000n + epoch.slotIndex);
  // The message is the transaction without its signatures (1 shortvec byte + 64 bytes).
  const message = Buffer.from(wire, 'base64').subarray(65).toString('base64');
  const fee = await rpc.getFeeForMessage(message as never).send();
  assert.equal(fee.value, 5000n);
});
