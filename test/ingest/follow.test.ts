// zkgate as the cluster (issue 50): A runs the embedded ledger with Light's programs; B follows A
// with --cluster-rpc, indexing A's Light state itself through A's standard JSON-RPC. For the same
// queries B's Photon answers equal A's as exact JSON (but context.slot); a transfer proved by B
// (stateless.js with createRpc(A, B, B)) is accepted by A's programs, and the balances after it
// are exact to the lamport on both. B's Solana methods are A's, forwarded. A restarted B resumes
// from its checkpoint; a data dir of another cluster is refused.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { compress, createRpc, LightSystemProgram, merkletreePubkey, transfer } from '@lightprotocol/stateless.js';
import { randomBytes } from 'node:crypto';
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { encodeBase58 } from '../../src/zk/base58.js';
import { compressAndSend } from '../helpers/compress-and-send.js';
import {
  closeWeb3Websocket,
  linkKeyCache,
  startTestGateway,
  tempDir,
  TEST_KEY,
  type TestGateway,
} from '../helpers/gateway.js';
import { call, caughtUp, rpcOf } from './helpers.js';

let a: TestGateway;
let b: TestGateway;
const bDir = tempDir();
let owners: { payer: string; bob: string };

/** An answer without the slot it was read at (the two indexes are at different slots). */
const unslotted = (r: { result?: unknown; error?: unknown }) => {
  const v = r.result as { context?: { slot: number } } | undefined;
  if (v && typeof v === 'object' && v.context) return { ...r, result: { ...v, context: { ...v.context, slot: 0 } } };
  return r;
};

async function sameAnswers(queries: [string, unknown][]): Promise<void> {
  for (const [method, params] of queries) {
    const [fromA, fromB] = await Promise.all([call(a.url, method, params), call(b.url, method, params)]);
    assert.ok(fromA.result !== undefined, `${method} on A: ${JSON.stringify(fromA.error)}`);
    assert.deepEqual(unslotted(fromB), unslotted(fromA), `${method} ${JSON.stringify(params)}`);
  }
}

before(async () => {
  a = await startTestGateway({ slotTimeMs: 200 }, {}, { prover: true, ledger: true, keys: ['v1_inclusion_26_1'] });
  linkKeyCache(bDir);
  b = await startTestGateway(
    {
      clusterRpc: a.url,
      clusterWs: `${a.gateway.wsUrl}?api-key=${TEST_KEY}`,
      upstreamTimeoutMs: 5000,
      clusterCheckMs: 200,
    },
    {},
    { prover: true, dataDir: bDir, keys: ['v1_inclusion_26_1'] },
  );
});
after(async () => {
  await b?.stop();
  await a?.stop();
  rmSync(bDir, { recursive: true, force: true });
});

test(
  "B indexes A's compressions and transfers itself: its Photon answers equal A's",
  { timeout: 600_000 },
  async () => {
    const rpcA = rpcOf(a, a);
    const { payer, bob } = await compressAndSend(rpcA);
    owners = { payer: payer.publicKey.toBase58(), bob: bob.publicKey.toBase58() };
    await caughtUp(a, b);
    const accounts = (await call(a.url, 'getCompressedAccountsByOwner', { owner: owners.bob })).result as {
      value: { items: { hash: string }[] };
    };
    const hash = accounts.value.items[0]!.hash;
    await sameAnswers([
      ['getCompressedAccountsByOwner', { owner: owners.payer }],
      ['getCompressedAccountsByOwner', { owner: owners.bob }],
      ['getCompressedBalanceByOwner', { owner: owners.payer }],
      ['getCompressedBalanceByOwner', { owner: owners.bob }],
      ['getCompressedAccount', { hash }],
      ['getCompressedAccountProof', { hash }],
      ['getMultipleCompressedAccountProofs', [hash]],
      ['getCompressionSignaturesForOwner', { owner: owners.bob }],
      ['getCompressionSignaturesForAccount', { hash }],
    ]);
    const health = (await (await fetch(`${b.base}health`)).json()) as {
      components: Record<string, { status: string; detail?: string }>;
    };
    assert.equal(health.components.cluster?.status, 'ready', health.components.cluster?.detail);
  },
);

test(
  "a transfer proved by B (createRpc(A, B, B)) is accepted by A's programs; balances exact to the lamport on both",
  { timeout: 600_000 },
  async () => {
    const rpcA = rpcOf(a, a);
    const { bob } = await compressAndSend(rpcA);
    const carol = Keypair.generate();
    // bob pays his own fee.
    await rpcA.confirmTransaction(await rpcA.requestAirdrop(bob.publicKey, 1_000_000_000), 'confirmed');
    await caughtUp(a, b);
    // B's index gives bob's account and B proves it; A's programs verify the proof.
    await transfer(rpcOf(a, b), bob, 100_000_000, bob, carol.publicKey);
    await caughtUp(a, b);
    for (const rpc of [rpcA, rpcOf(a, b)]) {
      assert.equal((await rpc.getCompressedBalanceByOwner(bob.publicKey)).toString(), '150000000');
      assert.equal((await rpc.getCompressedBalanceByOwner(carol.publicKey)).toString(), '100000000');
    }
    await sameAnswers([
      ['getCompressedAccountsByOwner', { owner: bob.publicKey.toBase58() }],
      ['getCompressedAccountsByOwner', { owner: carol.publicKey.toBase58() }],
      ['getCompressionSignaturesForOwner', { owner: bob.publicKey.toBase58() }],
    ]);
  },
);

test("B's Solana methods are the cluster's, forwarded; getHealth and getVersion are B's own", async () => {
  assert.deepEqual(await call(b.url, 'getGenesisHash'), await call(a.url, 'getGenesisHash'));
  const params = [owners.payer, { commitment: 'finalized' }];
  const [balanceA, balanceB] = [await call(a.url, 'getBalance', params), await call(b.url, 'getBalance', params)];
  assert.equal((balanceB.result as { value: number }).value, (balanceA.result as { value: number }).value);
  assert.deepEqual((await call(b.url, 'getVersion')).result, { 'solana-core': '0.0.0-test', 'feature-set': 0 });
  assert.equal((await call(b.url, 'getHealth')).result, 'ok');
});

test(
  'one URL for clients: stateless.js with createRpc(B, B, B), websocket relayed to the cluster',
  { timeout: 600_000 },
  async () => {
    const rpcB = createRpc(b.url, b.url, b.url, {
      commitment: 'confirmed',
      wsEndpoint: `${b.gateway.wsUrl}?api-key=${TEST_KEY}`,
    });
    const payer = Keypair.generate();
    const dave = Keypair.generate();
    // Airdrop, blockhash, send and confirmation (signatureSubscribe) are A's, through B.
    await rpcB.confirmTransaction(await rpcB.requestAirdrop(payer.publicKey, 3_000_000_000), 'confirmed');
    const smt1 = (await rpcB.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
    await compress(rpcB, payer, 1_000_000_000, payer.publicKey, smt1);
    // B indexes A's finalized blocks: the compressed account is B's once finalized.
    await caughtUp(a, b);
    await transfer(rpcB, payer, 400_000_000, payer, dave.publicKey);
    await caughtUp(a, b);
    assert.equal((await rpcB.getCompressedBalanceByOwner(payer.publicKey)).toString(), '600000000');
    assert.equal((await rpcB.getCompressedBalanceByOwner(dave.publicKey)).toString(), '400000000');
    assert.equal(await rpcB.getBalance(dave.publicKey), 0);
  },
);

test("the consistency monitor compares B's trees with A's accounts; a tree that differs is named in /health and getIndexerHealth", async () => {
  const monitor = b.gateway.cluster!.writing()!.monitor;
  await caughtUp(a, b);
  const before = monitor.stats.compared;
  while (monitor.stats.compared < before + 10) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual([...monitor.divergent], [], 'every tree agrees with the cluster');
  assert.deepEqual((await call(b.url, 'getIndexerHealth')).result, 'ok');
  // B's copy of smt1 gets a leaf the cluster never had.
  const smt1 = 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT';
  b.gateway.cluster!.index.compression.trees.stateTree(smt1).append([12345n]);
  while (!monitor.divergent.has(smt1)) await new Promise((r) => setTimeout(r, 50));
  const health = (await (await fetch(`${b.base}health`)).json()) as {
    components: Record<string, { status: string; detail: string }>;
  };
  assert.equal(health.components.cluster!.status, 'degraded');
  assert.match(
    health.components.cluster!.detail,
    new RegExp(
      `indexed trees differ from the cluster's accounts: ${smt1} \\(root sequence: zkgate (\\d+), cluster (\\d+); next index: zkgate \\d+, cluster \\d+ \\(cluster at slot \\d+, index at slot \\d+\\)\\)`,
    ),
  );
  const indexerHealth = await call(b.url, 'getIndexerHealth');
  assert.ok(indexerHealth.error, JSON.stringify(indexerHealth));
  assert.match(indexerHealth.error.message, new RegExp(smt1));
});

test("simulateBundle on B runs on A's state, as A's own simulateBundle does", { timeout: 300_000 }, async () => {
  const rpcA = rpcOf(a, a);
  const alice = Keypair.generate();
  const bob = Keypair.generate();
  const carol = Keypair.generate();
  await rpcA.confirmTransaction(await rpcA.requestAirdrop(alice.publicKey, 3_000_000_000), 'confirmed');
  const { blockhash } = await rpcA.getLatestBlockhash();
  const signed = (from: Keypair, to: PublicKey, lamports: number, hash = blockhash) => {
    const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: hash }).add(
      SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }),
    );
    tx.sign(from);
    return tx.serialize().toString('base64');
  };
  // bob exists only once the first transfer ran: the second reads what the first wrote.
  const bundle = [signed(alice, bob.publicKey, 1_000_000_000), signed(bob, carol.publicKey, 400_000_000)];
  const params = (txs: string[]) => [
    { encodedTransactions: txs },
    {
      preExecutionAccountsConfigs: txs.map(() => ({ addresses: [bob.publicKey.toBase58()] })),
      postExecutionAccountsConfigs: txs.map(() => ({
        addresses: [bob.publicKey.toBase58(), carol.publicKey.toBase58()],
      })),
    },
  ];
  const same = async (txs: string[]) => {
    const [fromA, fromB] = await Promise.all([
      call(a.url, 'simulateBundle', params(txs)),
      call(b.url, 'simulateBundle', params(txs)),
    ]);
    assert.ok(fromA.result, JSON.stringify(fromA.error));
    assert.deepEqual(unslotted(fromB), unslotted(fromA));
    return (fromB.result as { value: { summary: unknown; transactionResults: { postBalances: number[] }[] } }).value;
  };
  const ran = await same(bundle);
  assert.equal(ran.summary, 'succeeded');
  assert.deepEqual(ran.transactionResults[1]!.postBalances.slice(0, 2), [
    1_000_000_000 - 400_000_000 - 5000,
    400_000_000,
  ]);
  // Nothing was committed, on A or B.
  assert.equal(await rpcA.getBalance(bob.publicKey), 0);
  // A compression: Light's programs run as the cluster deployed them (loaded from their program data).
  const smt1 = (await rpcA.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
  const compressTx = new Transaction({ feePayer: alice.publicKey, recentBlockhash: blockhash }).add(
    ComputeBudgetProgram.setComputeUnitLimit({ units: 1_000_000 }),
    await LightSystemProgram.compress({
      payer: alice.publicKey,
      toAddress: alice.publicKey,
      lamports: 500_000_000,
      outputStateTreeInfo: smt1,
    }),
  );
  compressTx.sign(alice);
  const compressed = await same([compressTx.serialize().toString('base64')]);
  assert.equal(compressed.summary, 'succeeded');
  // A blockhash A never made: refused on both alike.
  const unknownHash = encodeBase58(randomBytes(32));
  const stale = await same([signed(alice, bob.publicKey, 5, unknownHash)]);
  assert.match(JSON.stringify(stale.summary), /BlockhashNotFound|Blockhash not found/);
  // A transaction A already processed.
  const sent = signed(alice, carol.publicKey, 1_000_000);
  await rpcA.confirmTransaction(await rpcA.sendRawTransaction(Buffer.from(sent, 'base64')), 'confirmed');
  const again = await same([sent]);
  assert.match(JSON.stringify(again.summary), /AlreadyProcessed|already been processed/);
  // Its websocket would reconnect to A after A stops, keeping this file's process alive.
  await closeWeb3Websocket(rpcA);
});

test('a follower started after a tree was used knows its history is incomplete: /health names it, and proofs for it are refused naming the tree', async () => {
  // smt1 used before C starts following.
  const early = await compressAndSend(rpcOf(a, a));
  const startSlot = (await call(a.url, 'getSlot', [{ commitment: 'confirmed' }])).result as number;
  const cDir = tempDir();
  linkKeyCache(cDir);
  const c = await startTestGateway(
    { clusterRpc: a.url, upstreamTimeoutMs: 5000, startSlot, clusterCheckMs: 3_600_000 },
    {},
    { prover: true, dataDir: cDir },
  );
  try {
    // smt1 has leaves from before startSlot; its next output lands past what C has.
    const late = await compressAndSend(rpcOf(a, a));
    await caughtUp(a, c);
    const smt1 = 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT';
    const health = (await call(c.url, 'getIndexerHealth')).error;
    assert.ok(health);
    assert.match(health.message, new RegExp(`${smt1} \\(positions 0…\\d+ were never ingested`));
    const status = (await (await fetch(`${c.base}health`)).json()) as {
      components: Record<string, { status: string; detail: string }>;
    };
    assert.equal(status.components.cluster!.status, 'degraded');
    assert.match(status.components.cluster!.detail, new RegExp(`${smt1} \\(positions 0…\\d+ were never ingested`));
    const refused = await call(c.url, 'getValidityProof', {
      newAddressesWithTrees: [{ address: '12nCKqGG85jHxbTeA8i2Z7D4vnNUUrQ4r5e8dv2o16X', tree: smt1 }],
    });
    assert.equal(refused.error?.code, -32000);
    assert.equal(
      refused.error?.message,
      `tree ${smt1} holds leaves this index never saw (its history starts before slot ${startSlot}, where this index starts; found at slot ${refused.error!.message.match(/found at slot (\d+)/)![1]}): its proofs would be wrong. Follow the cluster from an earlier --start-slot (at or before the tree's first leaf) with an empty data dir`,
    );
    // An account made after C started, in that tree: C never indexed it (its leaf lands past what
    // C has), and a proof of it says why it may be missing.
    const hashOf = async (owner: Keypair) =>
      (
        (await call(a.url, 'getCompressedAccountsByOwner', { owner: owner.publicKey.toBase58() })).result as {
          value: { items: { hash: string }[] };
        }
      ).value.items[0]!.hash;
    const notIndexed = (hash: string) =>
      `account ${hash} is not in this index, which starts at slot ${startSlot}; trees ${smt1} hold leaves it never saw, and the account may be one of those. Follow the cluster from an earlier --start-slot with an empty data dir`;
    for (const owner of [late.bob, early.bob]) {
      const hash = await hashOf(owner);
      const missing = await call(c.url, 'getValidityProof', { hashes: [hash] });
      assert.equal(missing.error?.code, -32000);
      assert.equal(missing.error?.message, notIndexed(hash));
    }
    // A tree whose whole history C saw still proves: a new address in Light's V2 address tree.
    const amt2 = 'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx';
    const address = await call(c.url, 'getMultipleNewAddressProofsV2', [
      { address: '12nCKqGG85jHxbTeA8i2Z7D4vnNUUrQ4r5e8dv2o16X', tree: amt2 },
    ]);
    assert.deepEqual(
      address,
      await call(a.url, 'getMultipleNewAddressProofsV2', [
        { address: '12nCKqGG85jHxbTeA8i2Z7D4vnNUUrQ4r5e8dv2o16X', tree: amt2 },
      ]).then((r) => ({
        ...r,
        result: { ...(r.result as object), context: (address.result as { context: unknown }).context },
      })),
    );
  } finally {
    await c.stop();
    rmSync(cDir, { recursive: true, force: true });
  }
});
