// The forester in the gateway, with the unmodified stateless.js 0.23.3 as the client: V2 transfers
// whose queues it drains (balances exact, trees equal to the accounts, prove-by-index only while
// an account waits in its output queue), a V1 spend nullified with a Merkle-proof instruction,
// new V2 addresses (compressed mints) appended and a V1 address inserted by Merkle-proof instruction,
// its figures in zkgate_getForesterStatus, /metrics, /health and `zkgate forester status`; with
// the forester off a full output queue refuses transactions, and turned on it drains the queue.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ComputeBudgetProgram, Keypair, PublicKey } from '@solana/web3.js';
import { createMintInterface } from '@lightprotocol/compressed-token';
import {
  bn,
  buildAndSignTx,
  compress,
  confirmTx,
  deriveAddressLegacy,
  deriveAddressSeedLegacy,
  LightSystemProgram,
  sendAndConfirmTx,
  createRpc,
  merkletreePubkey,
  transfer,
  type Rpc,
  type TreeInfo,
} from '@lightprotocol/stateless.js';
import { formatForesterStatus } from '../../src/forester-command.js';
import { bigIntToBytes32, bytesToBigInt, encodeBase58 } from '../../src/zk/index.js';
import { runCliToEnd } from '../helpers/cli.js';
import { assertTreesInSync } from '../compression/helpers.js';
import { httpRequest, rpcCall, startTestGateway, tempDir, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

const BATCH_KEYS = ['batch_append_32_10', 'batch_update_32_10', 'batch_address_append_40_10'];
const AMT2 = 'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx';
const AMT1 = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';
const AQ1 = 'aq1S9z4reTSQAdgWHGD2zDaS39sjGrAxbR31vxJ2F4F';
const dataDir = tempDir('zkgate-forester-gw-');
let gw: TestGateway | undefined;
after(() => gw?.stop());

async function start(forester: 'on' | 'off'): Promise<{ gw: TestGateway; rpc: Rpc }> {
  const g = await startTestGateway(
    { forester, slotTimeMs: 100 },
    {},
    {
      prover: true,
      ledger: true,
      dataDir,
      keys: ['v1_inclusion_26_1', 'v1_non-inclusion_26_1', 'v2_inclusion_32_1', 'v2_non-inclusion_40_1', ...BATCH_KEYS],
    },
  );
  return { gw: g, rpc: createRpc(g.url, g.url) };
}

const assertInSync = (g: TestGateway, step: string) => assertTreesInSync(g.gateway.chain!, step);

/** Until every queue is drained below a zkp batch (or the time is up). */
async function drained(g: TestGateway, ms = 300_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const s = (await rpcCall(g.url, 'zkgate_getForesterStatus', [])).result;
    if (s.queues.every((q: { readyBatches: number }) => q.readyBatches === 0) && s.lastError === null) {
      await g.gateway.chain!.forester?.idle();
      return;
    }
    if (Date.now() > until)
      assert.fail(
        `queues not drained: ${JSON.stringify(s)}\n${g.logs
          .filter((l) => l.includes('forester'))
          .slice(-30)
          .join('\n')}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function funded(rpc: Rpc, lamports: number): Promise<Keypair> {
  const kp = Keypair.generate();
  await confirmTx(rpc, await rpc.requestAirdrop(kp.publicKey, lamports));
  return kp;
}

const compressedBalance = async (rpc: Rpc, kp: Keypair) =>
  (await rpc.getCompressedBalanceByOwner(kp.publicKey)).toString();

test(
  'a full output queue refuses transactions with the forester off; turned on, the forester drains it',
  { timeout: 1_200_000 },
  async () => {
    let { gw: g, rpc } = await start('off');
    gw = g;
    const bmt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.toBase58().startsWith('bmt1'))! as TreeInfo;
    const payer = await funded(rpc, 100_000_000_000);
    // 100 outputs fill the output queue's two batches of 50.
    for (let i = 0; i < 100; i++) await compress(rpc, payer, 1_000_000, payer.publicKey, bmt1);
    const status = (await rpcCall(g.url, 'zkgate_getForesterStatus', [])).result;
    assert.equal(status.enabled, false);
    const oq = status.queues.find(
      (q: { tree: string; queue: string }) => q.tree === bmt1.tree.toBase58() && q.queue === 'append',
    );
    assert.deepEqual([oq.queued, oq.capacity, oq.fill, oq.readyBatches], [100, 100, 1, 10]);
    const health = JSON.parse((await httpRequest(`${g.base}health`, { method: 'GET' })).text);
    assert.equal(health.components.forester.status, 'degraded');
    assert.match(health.components.forester.detail, /append queue of bmt1\w+ 100 % full.*--forester on/);
    await assert.rejects(
      compress(rpc, payer, 1_000_000, payer.publicKey, bmt1),
      /custom program error|Error processing Instruction/i,
    );
    assert.equal(await compressedBalance(rpc, payer), '100000000');
    assertInSync(g, 'full queue');
    await g.stop();

    ({ gw: g, rpc } = await start('on'));
    gw = g;
    // Epoch 0 is active from slot 100 (the genesis registration of zkgate's key).
    await rpcCall(g.url, 'surfnet_timeTravel', [{ absoluteSlot: 150 }]);
    await drained(g);
    assertInSync(g, 'drained');
    const info = g.gateway.chain!.compression.trees.info(bmt1.tree.toBase58());
    assert.equal(info.nextIndex, 100);
    await compress(rpc, payer, 1_000_000, payer.publicKey, bmt1);
    assert.equal(await compressedBalance(rpc, payer), '101000000');
    const accounts = (await rpc.getCompressedAccountsByOwner(payer.publicKey)).items;
    assert.equal(accounts.filter((a) => a.proveByIndex).length, 1, 'only the newest waits in the queue');
    const s = (await rpcCall(g.url, 'zkgate_getForesterStatus', [])).result;
    assert.equal(s.enabled, true);
    assert.match(s.activeEpoch, /^\d+$/);
    assert.equal(s.batches.sent, 10);
    // A proof that outlives the epoch it was made in, or whose root moved, is dropped as stale.
    assert.equal(s.batches.proved, s.batches.sent + s.batches.stale);
    assert.equal(s.batches.failed, 0);
    assert.equal(s.proofs[0].circuit, 'batch_append_32_10');
    assert.equal(s.proofs[0].count, s.batches.proved);
    const metrics = (await httpRequest(`${g.base}metrics`, { method: 'GET' })).text;
    assert.match(metrics, /zkgate_forester_batches_total\{queue="append",outcome="sent"\} 10\n/);
    assert.match(
      metrics,
      new RegExp(`zkgate_forester_proof_seconds_count\\{circuit="batch_append_32_10"\\} ${s.batches.proved}\n`),
    );
    const ready = JSON.parse((await httpRequest(`${g.base}health`, { method: 'GET' })).text);
    assert.equal(ready.components.forester.status, 'ready');

    // The CLI asks the running gateway and prints what the method returns.
    const port = new URL(g.base).port;
    const cli = await runCliToEnd(['forester', 'status', '--rpc-port', port, '--api-keys', TEST_KEY]);
    assert.equal(cli.code, 0, cli.stderr);
    const now = (await rpcCall(g.url, 'zkgate_getForesterStatus', [])).result;
    // Epochs turn every 20 s at 100 ms slots: the two reads may straddle one.
    const sameEpoch = (text: string) => text.replace(/, epoch \d+\n/, ', epoch N\n');
    assert.equal(sameEpoch(cli.stdout), sameEpoch(formatForesterStatus(now)));
    assert.match(cli.stdout, /^forester {3}on, key \w+, epoch \d+\nbatches {4}\d+ proved, 10 sent, 0 failed/);
  },
);

test('V2 transfers with stateless.js, and a V1 spend nullified by Merkle proof', { timeout: 1_200_000 }, async () => {
  const g = gw!;
  const rpc = createRpc(g.url, g.url);
  const alice = await funded(rpc, 10_000_000_000);
  const bob = Keypair.generate();
  const bmt2 = (await rpc.getStateTreeInfos()).find((t) => t.tree.toBase58().startsWith('bmt2'))! as TreeInfo;
  await compress(rpc, alice, 1_000_000_000, alice.publicKey, bmt2);
  // 12 transfers: 24 outputs and 12 spends on bmt2, through two append batches and a nullification.
  for (let i = 0; i < 12; i++) await transfer(rpc, alice, 10_000_000, alice, bob.publicKey);
  await drained(g);
  assertInSync(g, 'V2 drained');
  assert.equal(await compressedBalance(rpc, alice), '880000000');
  assert.equal(await compressedBalance(rpc, bob), '120000000');
  const info = g.gateway.chain!.compression.trees.info(bmt2.tree.toBase58());
  assert.equal(info.nextIndex, 20);
  // Bob spends from accounts now in the tree: a real proof against the batch-appended root.
  const bobKp = bob;
  await confirmTx(rpc, await rpc.requestAirdrop(bobKp.publicKey, 1_000_000_000));
  await transfer(rpc, bobKp, 15_000_000, bobKp, alice.publicKey);
  assert.equal(await compressedBalance(rpc, bob), '105000000');
  assertInSync(g, 'spent after append');

  // V1: a transfer on smt1 queues its input for nullification; the forester empties the queue.
  const smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
  await compress(rpc, alice, 50_000_000, alice.publicKey, smt1);
  const v1Before = g.gateway.chain!.compression.trees.stateTree(smt1.tree.toBase58());
  await transfer(rpc, alice, 1_000_000, alice, bob.publicKey);
  const until = Date.now() + 60_000;
  while ([...v1Before.nullifierQueue()].length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  await g.gateway.chain!.forester!.idle();
  assert.equal([...v1Before.nullifierQueue()].length, 0, 'the V1 nullifier queue is empty');
  assertInSync(g, 'V1 nullified');
  assert.equal(g.gateway.chain!.forester!.status().lastError, null);
});

test(
  'new V2 addresses (ten compressed mints) appended to the address tree with a batch proof',
  { timeout: 1_200_000 },
  async () => {
    const g = gw!;
    const rpc = createRpc(g.url, g.url);
    const payer = await funded(rpc, 20_000_000_000);
    const trees = g.gateway.chain!.compression.trees;
    const before = trees.info(AMT2);
    // Each compressed mint creates one address in amt2 (the token program's CPI, proved non-included by zkgate).
    const mints: PublicKey[] = [];
    for (let i = 0; i < 10; i++)
      mints.push((await createMintInterface(rpc, payer, payer, null, 9, Keypair.generate())).mint);
    const queued = [...trees.addressTree(AMT2).addressQueue()].map((e) => e.address);
    assert.equal(queued.length, 10);
    await drained(g);
    assertInSync(g, 'addresses appended');
    const after = trees.info(AMT2);
    assert.equal(after.nextIndex, before.nextIndex + 10);
    assert.equal(after.rootSeq, before.rootSeq + 1n, 'one batch update');
    assert.equal(trees.addressTree(AMT2).queueSize('address'), 0);
    // The addresses are in the tree now: a proof that one is new is refused.
    for (const a of queued) assert.equal(trees.addressTree(AMT2).lowElement(a), undefined);
    const refused = await rpcCall(g.url, 'getValidityProofV2', {
      hashes: [],
      newAddressesWithTrees: [{ address: encodeBase58(bigIntToBytes32(queued[0]!)), tree: AMT2 }],
    });
    assert.match(refused.error.message, /already exists/);
    const s = g.gateway.chain!.forester!.status();
    assert.ok(s.proofs.some((p) => p.circuit === 'batch_address_append_40_10'));
    assert.equal(s.lastError, null);
    assert.equal(mints.length, 10);
  },
);

test(
  'a V1 address (a new compressed account at an address) inserted with a Merkle-proof instruction',
  { timeout: 600_000 },
  async () => {
    const g = gw!;
    const rpc = createRpc(g.url, g.url);
    const payer = await funded(rpc, 5_000_000_000);
    const infos = await rpc.getStateTreeInfos();
    const smt1 = infos.find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
    const amt1 = new PublicKey(AMT1);
    const aq1 = new PublicKey(AQ1);
    const seed = deriveAddressSeedLegacy([Buffer.from('zkgate forester test')], LightSystemProgram.programId);
    const address = deriveAddressLegacy(seed, amt1);
    const proof = await rpc.getValidityProofV0(undefined, [{ address: bn(address.toBytes()), tree: amt1, queue: aq1 }]);
    const ix = await LightSystemProgram.createAccount({
      payer: payer.publicKey,
      newAddressParams: {
        seed,
        addressMerkleTreeRootIndex: proof.rootIndices[0]!,
        addressMerkleTreePubkey: amt1,
        addressQueuePubkey: aq1,
      },
      newAddress: Array.from(address.toBytes()),
      recentValidityProof: proof.compressedProof,
      outputStateTreeInfo: smt1,
    });
    const { blockhash } = await rpc.getLatestBlockhash();
    await sendAndConfirmTx(
      rpc,
      buildAndSignTx([ComputeBudgetProgram.setComputeUnitLimit({ units: 1_000_000 }), ix], payer, blockhash),
    );
    const tree = g.gateway.chain!.compression.trees.addressTree(AMT1);
    const value = bytesToBigInt(address.toBytes());
    const until = Date.now() + 120_000;
    while (tree.queueSize('address') > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    await g.gateway.chain!.forester!.idle();
    assert.equal(tree.queueSize('address'), 0, 'the V1 address queue is empty');
    assert.equal(tree.lowElement(value), undefined, 'the address is in the tree');
    assertInSync(g, 'V1 address inserted');
    assert.equal(g.gateway.chain!.forester!.status().lastError, null);
    const refused = await rpcCall(g.url, 'getValidityProof', {
      hashes: [],
      newAddressesWithTrees: [{ address: address.toBase58(), tree: AMT1 }],
    });
    assert.match(refused.error.message, /already exists/);
  },
);
