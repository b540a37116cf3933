// zkgate's forester on the embedded ledger with Light's real programs (no HTTP): output queues,
// input queues drained into the V2 state trees with batch proofs that account-compression (patched
// with zkgate's batch keys) verifies, signed with the forester key zkgate registers at genesis;
// after each update zkgate's trees equal the tree and queue accounts. A proof for another queue
// range than the program's is rejected on chain.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Keypair, PublicKey } from '@solana/web3.js';
import { appendInputs } from '../../src/forester/batch-inputs.js';
import { Forester } from '../../src/forester/forester.js';
import { alignRegistryEpochs, foresterGenesisAccounts } from '../../src/forester/genesis.js';
import { batchAppendIx, registryPdas } from '../../src/forester/registry.js';
import { accountCompressionProgram, lightLocalnet, parseBatchTree, parseTransaction } from '../../src/ledger/index.js';
import { generateKeypair, signTransaction } from '../../src/ledger/tx-build.js';
import { createLogger } from '../../src/obs/log.js';
import { ProverPool } from '../../src/prover/pool.js';
import { ProverService } from '../../src/prover/service.js';
import { decodeBase58, encodeBase58 } from '../../src/zk/base58.js';
import { bigIntToBytes32 } from '../../src/zk/field.js';
import { KeyStore, shutdownZk, solanaVerifyingKeyBytes } from '../../src/zk/index.js';
import {
  assertTreesInSync,
  compressManyIx,
  openLightLedger,
  sendIxs,
  stateTrees,
  transferByIndexIx,
  type LightLedger,
} from '../compression/helpers.js';
import { tempDir } from '../helpers/gateway.js';
import { KEY_CACHE } from '../helpers/zk.js';

const forester = generateKeypair();
let dir: string;
let l: LightLedger;
let pool: ProverPool;
let service: ProverService;
let f: Forester;

before(async () => {
  dir = tempDir('zkgate-forester-');
  l = await openLightLedger(dir, { accounts: foresterGenesisAccounts(forester.publicKey) });
  const acp = accountCompressionProgram(lightLocalnet().programs, (id, bytes) => l.ledger.deployProgram(id, bytes));
  const log = createLogger('warn', () => {});
  pool = new ProverPool({ backend: 'native', maxQueue: 8, memoryBudgetBytes: 2 ** 31 });
  service = new ProverService({
    store: l.compression.trees,
    keys: new KeyStore(KEY_CACHE),
    pool,
    log,
    onKey: (k) => acp.install([{ shape: k.shape.name, keyId: k.entry.sha256, vk: solanaVerifyingKeyBytes(k.vk) }]),
  });
  f = new Forester({
    ledger: l.ledger,
    trees: l.compression.trees,
    prove: async (circuit, inputs) => (await service.proveBatch(circuit, inputs)).compressed,
    keypair: forester,
    log,
  });
});

after(async () => {
  await f?.stop();
  await pool?.close();
  await l?.ledger.close();
  rmSync(dir, { recursive: true, force: true });
  // A key built here (a fresh cache) started snarkjs's curve threads: they would keep the process alive.
  await shutdownZk();
});

const assertInSync = (step: string) => assertTreesInSync(l, step);

async function drain(): Promise<void> {
  f.kick();
  await f.idle();
}

test(
  'the forester drains V2 output and input queues with batch proofs verified on chain',
  { timeout: 1_200_000 },
  async () => {
    const { ledger, compression } = l;
    const tree = stateTrees().v2;
    const treeKey = tree.tree.toBase58();
    const payer = Keypair.generate();
    ledger.airdrop(payer.publicKey.toBytes(), 100_000_000_000n);
    // Epoch 0 (the genesis registration, zkgate's key included) is active from the ledger's first slot.
    assert.equal(alignRegistryEpochs(ledger, forester.publicKey), true);
    const owners = Array.from({ length: 10 }, () => Keypair.generate());
    for (const o of owners) ledger.airdrop(o.publicKey.toBytes(), 1_000_000_000n);
    assert.equal(
      sendIxs(ledger, payer, [
        await compressManyIx(
          payer,
          owners.map((o) => o.publicKey),
          1_000_000n,
          tree,
        ),
      ]).err,
      null,
    );
    assertInSync('compress');
    assert.equal(compression.trees.info(treeKey).nextIndex, 0);

    // Each owner sends 400,000 of its 1,000,000 to the payer, spending its account by index (still queued).
    for (const o of owners) {
      const [acc] = compression.store.accountsByOwner(o.publicKey.toBytes(), { limit: 10 });
      assert.equal(sendIxs(ledger, o, [await transferByIndexIx(o, acc!, payer.publicKey, 400_000n)]).err, null);
    }
    assertInSync('spends');
    const before = parseBatchTree(Buffer.from(ledger.getAccount(decodeBase58(treeKey))!.data))!;
    assert.equal(before.queue.batches[0]!.numFullZkpBatches, 1, 'a full zkp batch in the input queue');

    await drain();
    assertInSync('drained');
    const s = f.status();
    assert.equal(s.activeEpoch, '0');
    assert.equal(s.lastError, null);
    const info = compression.trees.info(treeKey);
    assert.equal(info.nextIndex, 30, 'three append batches: 10 compressed, 20 transfer outputs');
    assert.equal(s.batches.sent, 4, 'three appends and one nullification');
    const after = parseBatchTree(Buffer.from(ledger.getAccount(decodeBase58(treeKey))!.data))!;
    assert.equal(after.nextIndex, 30);
    assert.equal(after.rootSeq, 4n);
    // Spent leaves hold their nullifiers; unspent ones are proved by path now, not by index.
    for (const o of owners) {
      const [acc] = compression.store.accountsByOwner(o.publicKey.toBytes(), { limit: 10 });
      assert.equal(acc!.lamports, 600_000n);
      assert.equal(acc!.inOutputQueue, false);
      const loc = compression.trees.locateAccount(BigInt('0x' + Buffer.from(acc!.hash).toString('hex')));
      assert.equal(loc?.queued, false);
    }
    assert.equal(compression.store.ownerBalance(payer.publicKey.toBytes()), 4_000_000n);
    assert.ok(f.queues().every((q) => q.readyBatches === 0));
  },
);

test(
  'a batch proof for another queue range than the program’s is rejected on chain',
  { timeout: 600_000 },
  async () => {
    const { ledger, compression } = l;
    const tree = stateTrees().v2;
    const treeKey = tree.tree.toBase58();
    const payer = Keypair.generate();
    ledger.airdrop(payer.publicKey.toBytes(), 100_000_000_000n);
    const owners = Array.from({ length: 20 }, () => Keypair.generate().publicKey);
    assert.equal(sendIxs(ledger, payer, [await compressManyIx(payer, owners.slice(0, 10), 1_000n, tree)]).err, null);
    assert.equal(sendIxs(ledger, payer, [await compressManyIx(payer, owners.slice(10), 1_000n, tree)]).err, null);
    // The program expects leaves 30..39; prove 40..49 at the tree's next index instead.
    const t = compression.trees.stateTree(treeKey);
    const info = t.info();
    const wrong = Array.from({ length: 10 }, (_, i) => t.queuedOutput(40 + i)!.hash);
    const inputs = appendInputs({ height: 32, node: (lv, i) => t.node(lv, i) }, info.nextIndex, wrong);
    const proof = await service.proveBatch('batch_append_32_10', inputs.inputs);
    const ix = batchAppendIx({
      authority: forester.publicKey,
      epoch: 0n,
      tree: decodeBase58(treeKey),
      outputQueue: decodeBase58(info.queue),
      newRoot: bigIntToBytes32(inputs.newRoot),
      proof: proof.compressed,
    });
    const bytes = signTransaction([ix], [forester], decodeBase58(ledger.latestBlockhash().blockhash));
    const r = ledger.send(parseTransaction(bytes));
    assert.notEqual(r.err, null, 'the program rejects the proof');
    assert.match(JSON.stringify(r.err!.json), /Custom/);
    assertInSync('rejected');
    assert.equal(compression.trees.info(treeKey).nextIndex, 30, 'nothing changed');

    // The forester then proves the right range.
    await drain();
    assertInSync('drained');
    assert.equal(compression.trees.info(treeKey).nextIndex, 50);
    assert.equal(encodeBase58(registryPdas.forester(forester.publicKey)).length > 30, true);
    void PublicKey;
  },
);
