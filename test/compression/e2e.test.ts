// ZK compression end to end on the embedded ledger with the unmodified clients from npm
// (@lightprotocol/stateless.js and @lightprotocol/compressed-token 0.23.3): zkgate is the RPC, the
// indexer and the prover; Light's programs on the ledger verify zkgate's proofs. After every
// transaction zkgate's trees equal the tree and queue accounts the programs wrote.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Keypair, PublicKey } from '@solana/web3.js';
import {
  compress,
  confirmTx,
  createRpc,
  decompress,
  merkletreePubkey,
  transfer,
  type Rpc,
  type TreeInfo,
} from '@lightprotocol/stateless.js';
import { createMint, mintTo, transfer as transferTokens } from '@lightprotocol/compressed-token';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { assertTreesInSync } from './helpers.js';

let gw: TestGateway;
let rpc: Rpc;
let smt1: TreeInfo;

before(async () => {
  gw = await startTestGateway({}, {}, { prover: true, ledger: true, keys: ['v1_inclusion_26_1'] });
  rpc = createRpc(gw.url, gw.url);
  smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
});
after(() => gw?.stop());

const assertInSync = (step: string) => assertTreesInSync(gw.gateway.chain!, step);

async function funded(lamports: number): Promise<Keypair> {
  const kp = Keypair.generate();
  await confirmTx(rpc, await rpc.requestAirdrop(kp.publicKey, lamports));
  assert.equal(await rpc.getBalance(kp.publicKey), lamports);
  return kp;
}

const compressedBalance = async (kp: Keypair) => (await rpc.getCompressedBalanceByOwner(kp.publicKey)).toString();

test(
  'compressed SOL: compress, transfer with a proof verified on the ledger, transfer the change, decompress',
  { timeout: 600_000 },
  async () => {
    const payer = await funded(10_000_000_000);
    const bob = Keypair.generate();
    await compress(rpc, payer, 1_000_000_000, payer.publicKey, smt1);
    assertInSync('compress');
    assert.equal(await compressedBalance(payer), '1000000000');
    const [first] = (await rpc.getCompressedAccountsByOwner(payer.publicKey)).items;
    assert.equal(first!.lamports.toString(), '1000000000');
    assert.equal(first!.treeInfo.tree.toBase58(), smt1.tree.toBase58());
    assert.equal(first!.proveByIndex, false);

    // A V1 account: the transfer carries a zkgate proof (v1_inclusion_26_1) that Light's system program verifies.
    const proof = await rpc.getValidityProof([first!.hash]);
    assert.equal(proof.compressedProof?.a.length, 32);
    await transfer(rpc, payer, 300_000_000, payer, bob.publicKey);
    assertInSync('transfer');
    assert.equal(await compressedBalance(payer), '700000000');
    assert.equal(await compressedBalance(bob), '300000000');
    assert.equal(
      (await rpc.getCompressedAccountsByOwner(payer.publicKey)).items.length,
      1,
      'the spent account is gone',
    );

    // The second transfer spends the change account.
    await transfer(rpc, payer, 200_000_000, payer, bob.publicKey);
    assertInSync('second transfer');
    assert.equal(await compressedBalance(payer), '500000000');
    assert.equal(await compressedBalance(bob), '500000000');
    const bobs = (await rpc.getCompressedAccountsByOwner(bob.publicKey)).items.map((a) => a.lamports.toString()).sort();
    assert.deepEqual(bobs, ['200000000', '300000000']);

    const before = await rpc.getBalance(payer.publicKey);
    const sig = await decompress(rpc, payer, 500_000_000, payer.publicKey);
    assertInSync('decompress');
    assert.equal(await compressedBalance(payer), '0');
    const fee = (await rpc.getTransaction(sig, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' }))!.meta!
      .fee;
    assert.equal(fee, 5000);
    // The 0.5 SOL come back, less the transaction fee and the V1 state tree's network fee (5,000).
    assert.equal((await rpc.getBalance(payer.publicKey)) - before, 500_000_000 - fee - 5000);
  },
);

test(
  'compressed tokens: createMint, mintTo, transfer (V1 proof, outputs to a V2 queue), transfer again by index',
  { timeout: 600_000 },
  async () => {
    const payer = await funded(10_000_000_000);
    const bob = await funded(1_000_000_000);
    const carol = Keypair.generate();
    const { mint } = await createMint(rpc, payer, payer.publicKey, 2);
    await mintTo(rpc, payer, mint, payer.publicKey, payer, 1000, smt1);
    assertInSync('mintTo');
    await transferTokens(rpc, payer, mint, 300, payer, bob.publicKey);
    assertInSync('transfer');
    const bobs = (await rpc.getCompressedTokenAccountsByOwner(bob.publicKey, { mint })).items;
    assert.equal(bobs.length, 1);
    assert.equal(bobs[0]!.parsed.amount.toString(), '300');
    // The client moves V1 token inputs' outputs to a V2 queue: bob's account waits there, provable by index.
    assert.equal(bobs[0]!.compressedAccount.proveByIndex, true);
    assert.equal(bobs[0]!.compressedAccount.treeInfo.tree.toBase58(), 'bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU');
    await transferTokens(rpc, bob, mint, 100, bob, carol.publicKey);
    assertInSync('transfer by index');

    const balance = async (kp: Keypair) =>
      (await rpc.getCompressedTokenBalancesByOwnerV2(kp.publicKey, { mint })).value.items.map((b) => [
        b.mint.toBase58(),
        b.balance.toString(),
      ]);
    assert.deepEqual(await balance(payer), [[mint.toBase58(), '700']]);
    assert.deepEqual(await balance(bob), [[mint.toBase58(), '200']]);
    assert.deepEqual(await balance(carol), [[mint.toBase58(), '100']]);
    const holders = (await rpc.getCompressedMintTokenHolders(mint)).value.items.map((h) => [
      h.owner.toBase58(),
      h.balance.toString(),
    ]);
    assert.deepEqual(holders, [
      [payer.publicKey.toBase58(), '700'],
      [bob.publicKey.toBase58(), '200'],
      [carol.publicKey.toBase58(), '100'],
    ]);
  },
);
