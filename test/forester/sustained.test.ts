// Sustained load with the forester on: 1,000 compressed transfers in a row with the unmodified
// stateless.js 0.23.3 (its transfer instruction, with the proof's proveByIndex: see
// ../helpers/light-transfer.ts), all on one V2 tree, so its output queue (100 entries) rolls over
// twenty times and its input queue ten, and every transfer needs the forester to have drained
// them. The forester on these two cores is slower than the client (each transfer queues a
// nullifier and two outputs), so sends meet full queues and wait for room (sendTransaction's queue
// wait) instead of failing. At the end the balances are exact to the lamport and zkgate's trees
// equal the tree accounts; meanwhile a client's validity proof (a real one, for an account in the
// tree) stays within 2× of its latency on the idle gateway, because batch proofs step aside while
// client proofs run.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Keypair } from '@solana/web3.js';
import { bn, compress, confirmTx, createRpc, type TreeInfo } from '@lightprotocol/stateless.js';
import { compareWithChain } from '../../src/compression/index.js';
import { decodeBase58 } from '../../src/zk/index.js';
import { rpcCall, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { transferCompressed as transfer } from '../helpers/light-transfer.js';

const TRANSFERS = 1000;
/** Every so many transfers they pause, the forester drains, and the idle latency is sampled again. */
const IDLE_EVERY = 200;
const AMOUNT = 1_000;
let gw: TestGateway | undefined;
after(() => gw?.stop());

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test(`${TRANSFERS} compressed transfers in a row with the forester on`, { timeout: 2_700_000 }, async (t) => {
  gw = await startTestGateway(
    // 1 s slots: a blockhash lives 150 s, the longest a send may wait for queue room (on two cores
    // shared with the rest of the suite, freeing a queue batch takes five proofs of seconds each).
    { forester: 'on', slotTimeMs: 1000 },
    {},
    {
      prover: true,
      ledger: true,
      keys: ['v2_inclusion_32_1', 'batch_append_32_10', 'batch_update_32_10', 'batch_address_append_40_10'],
    },
  );
  const g = gw;
  const rpc = createRpc(g.url, g.url);
  const alice = Keypair.generate();
  const bob = Keypair.generate();
  await confirmTx(rpc, await rpc.requestAirdrop(alice.publicKey, 10_000_000_000));
  const bmt3 = (await rpc.getStateTreeInfos()).find((t) => t.tree.toBase58().startsWith('bmt3'))! as TreeInfo;
  await compress(rpc, alice, 5_000_000_000, alice.publicKey, bmt3);

  // A proof for an account in the tree (not by index): what a client waits for.
  const proofMs = async (hash: ReturnType<typeof bn>) => {
    const t0 = performance.now();
    const p = await rpc.getValidityProofV0([{ hash, tree: bmt3.tree, queue: bmt3.queue }]);
    assert.equal(p.compressedProof !== null, true);
    return performance.now() - t0;
  };
  // 20 transfers put bob's first accounts into the tree; then the idle latency of a proof of one
  // (and again after the load).
  for (let i = 0; i < 20; i++) await transfer(rpc, alice, AMOUNT, alice, bob.publicKey);
  const until = Date.now() + 300_000;
  let target: ReturnType<typeof bn> | undefined;
  while (!target && Date.now() < until) {
    const accounts = (await rpc.getCompressedAccountsByOwner(bob.publicKey)).items;
    target = accounts.find((a) => !a.proveByIndex)?.hash;
    if (!target) await new Promise((r) => setTimeout(r, 250));
  }
  assert.ok(target, 'the forester appended bob’s first accounts');
  const drained = async () => {
    for (;;) {
      const s = (await rpcCall(g.url, 'zkgate_getForesterStatus', [])).result;
      if (s.queues.every((q: { readyBatches: number }) => q.readyBatches === 0)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    await g.gateway.chain!.forester!.idle();
  };
  // The idle gateway's latency: drained, nothing else asked of it. Sampled at the start, every
  // IDLE_EVERY transfers and at the end, so that whatever else this machine runs meanwhile (the
  // suite's other test file) weighs on the idle and the busy samples alike.
  const idle: number[] = [];
  const sampleIdle = async (n: number) => {
    await drained();
    for (let i = 0; i < n; i++) idle.push(await proofMs(target!));
  };
  await drained();
  // Warm first (a worker's first proofs of a shape are slower), then the idle latency.
  for (let i = 0; i < 10; i++) await proofMs(target);
  await sampleIdle(10);

  // The transfers, with a client's proof measured alongside (paused while idle is sampled).
  const busy: number[] = [];
  let done = false;
  let sampling = true;
  let sample: Promise<unknown> = Promise.resolve();
  const sampler = (async () => {
    while (!done) {
      if (sampling) {
        const p = proofMs(target);
        sample = p;
        busy.push(await p);
      }
      // A sample a second: every client proof pauses the forester's (native/src/preempt.hpp), and
      // the transfers need the forester to keep up.
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  const started = performance.now();
  for (let i = 20; i < TRANSFERS; i++) {
    await transfer(rpc, alice, AMOUNT, alice, bob.publicKey);
    if ((i + 1) % 100 === 0)
      t.diagnostic(
        `${i + 1} transfers, ${((performance.now() - started) / 1000).toFixed(0)} s, ${g.gateway.chain!.forester!.status().batches.sent} batches sent`,
      );
    if ((i + 1) % IDLE_EVERY === 0 && i + 1 < TRANSFERS) {
      sampling = false;
      await sample;
      await sampleIdle(8);
      sampling = true;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  done = true;
  await sampler;

  // Drained, exact and in sync; idle once more.
  await sampleIdle(10);
  assert.equal(
    (await rpc.getCompressedBalanceByOwner(alice.publicKey)).toString(),
    String(5_000_000_000 - TRANSFERS * AMOUNT),
  );
  assert.equal((await rpc.getCompressedBalanceByOwner(bob.publicKey)).toString(), String(TRANSFERS * AMOUNT));
  const { compression, ledger } = g.gateway.chain!;
  compression.ingester.verifyPending();
  for (const info of compression.trees.listTrees())
    if (info.ledger)
      assert.deepEqual(
        compareWithChain(info, (k) => ledger.getAccount(decodeBase58(k))),
        [],
        info.pubkey,
      );
  assert.deepEqual([...compression.ingester.divergent], []);
  assert.equal(compression.ingester.stats.skipped, 0);
  const info = compression.trees.info(bmt3.tree.toBase58());
  // 1 compression + 2 outputs per transfer, less what waits below a zkp batch.
  assert.ok(info.nextIndex >= 2 * TRANSFERS - 10, `appended ${info.nextIndex}`);
  const status = g.gateway.chain!.forester!.status();
  assert.ok(status.batches.sent >= 290, `batches sent ${status.batches.sent}`);
  const ratio = median(busy) / median(idle);
  t.diagnostic(
    `${TRANSFERS} transfers in ${seconds.toFixed(0)} s; ${status.batches.sent} batches; client proof p50 idle ${median(idle).toFixed(0)} ms, under load ${median(busy).toFixed(0)} ms (${ratio.toFixed(2)}×; ${idle.length} idle and ${busy.length} busy samples)`,
  );
  assert.ok(ratio <= 2, `client proof latency under load is ${ratio.toFixed(2)}× idle`);
});
