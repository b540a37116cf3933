// The cluster questions and token balances through web3.js (whose response parsers check the
// shapes) and on the wire: a single-node test validator's answers, from the ledger's own state.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction,
} from '@solana/web3.js';
import { createMint, getOrCreateAssociatedTokenAccount, mintTo } from '@solana/spl-token';
import { rpcCall, startTestGateway, type TestGateway, stopWithConnection, web3Connection } from '../helpers/gateway.js';

let gw: TestGateway;
let conn: Connection;

before(async () => {
  gw = await startTestGateway({}, {}, { ledger: true });
  conn = web3Connection(gw);
});
after(() => stopWithConnection(gw, conn));

test('one node: identity, cluster nodes, leader, vote account, epoch schedule, snapshots', async () => {
  const { identity, vote } = gw.gateway.chain!.ledger.node;
  assert.deepEqual((await rpcCall(gw.url, 'getIdentity', [])).result, { identity });
  const [node] = await conn.getClusterNodes();
  assert.equal(node!.pubkey, identity);
  assert.equal(node!.rpc, new URL(gw.base).host);
  assert.equal((node as unknown as { pubsub: string }).pubsub, new URL(gw.gateway.wsUrl!).host);
  assert.equal(await conn.getSlotLeader(), identity);
  assert.deepEqual(
    (await conn.getSlotLeaders(100, 3)).map((k) => k.toBase58()),
    [identity, identity, identity],
  );
  const schedule = (await conn.getLeaderSchedule())!;
  assert.deepEqual(Object.keys(schedule), [identity]);
  assert.equal(schedule[identity]!.length, 432_000);
  const votes = await conn.getVoteAccounts();
  assert.equal(votes.current.length, 1);
  assert.equal(votes.current[0]!.votePubkey, vote);
  assert.equal(votes.current[0]!.nodePubkey, identity);
  assert.deepEqual(votes.delinquent, []);
  const es = await conn.getEpochSchedule();
  assert.equal(es.slotsPerEpoch, 432_000);
  assert.equal(es.warmup, false);
  assert.deepEqual((await rpcCall(gw.url, 'getHighestSnapshotSlot', [])).error, {
    code: -32008,
    message: 'No snapshot',
  });
  assert.equal(await conn.getStakeMinimumDelegation().then((r) => r.value), 1);
});

test('inflation: the default governor, its rate at this epoch, no rewards', async () => {
  const gov = await conn.getInflationGovernor();
  assert.deepEqual({ ...gov }, { initial: 0.08, terminal: 0.015, taper: 0.15, foundation: 0.05, foundationTerm: 7 });
  const rate = await conn.getInflationRate();
  const epoch = (await conn.getEpochInfo()).epoch;
  assert.equal(rate.epoch, epoch);
  assert.ok(Math.abs(rate.total - rate.validator - rate.foundation) < 1e-12);
  assert.ok(rate.total >= 0.015 && rate.total <= 0.08);
  assert.deepEqual(await conn.getInflationReward([Keypair.generate().publicKey]), [null]);
});

test('supply and largest accounts add up what the ledger holds; token balances as UiTokenAmount', async () => {
  const whale = Keypair.generate();
  gw.gateway.chain!.ledger.airdrop(whale.publicKey.toBytes(), 10n ** 17n);
  const supply = (await conn.getSupply()).value;
  let total = 0n;
  for (const { lamports } of gw.gateway.chain!.ledger.balances()) total += lamports;
  assert.equal(BigInt(supply.total), total);
  assert.equal(supply.circulating, supply.total);
  const largest = (await conn.getLargestAccounts()).value;
  assert.equal(largest.length, 20);
  assert.equal(largest[0]!.address.toBase58(), whale.publicKey.toBase58());

  const payer = Keypair.generate();
  gw.gateway.chain!.ledger.airdrop(payer.publicKey.toBytes(), BigInt(LAMPORTS_PER_SOL));
  const mint = await createMint(conn, payer, payer.publicKey, null, 6);
  const a = await getOrCreateAssociatedTokenAccount(conn, payer, mint, Keypair.generate().publicKey);
  const b = await getOrCreateAssociatedTokenAccount(conn, payer, mint, Keypair.generate().publicKey);
  await mintTo(conn, payer, mint, a.address, payer, 1_500_000n);
  await mintTo(conn, payer, mint, b.address, payer, 2_250_001n);
  const bal = await rpcCall(gw.url, 'getTokenAccountBalance', [a.address.toBase58()]);
  assert.deepEqual(bal.result.value, { uiAmount: 1.5, decimals: 6, amount: '1500000', uiAmountString: '1.5' });
  assert.equal((await conn.getTokenSupply(mint)).value.uiAmountString, '3.750001');
  const holders = (await conn.getTokenLargestAccounts(mint)).value;
  assert.deepEqual(
    holders.map((h) => [h.address.toBase58(), h.amount]),
    [
      [b.address.toBase58(), '2250001'],
      [a.address.toBase58(), '1500000'],
    ],
  );
  assert.deepEqual((await rpcCall(gw.url, 'getTokenSupply', [a.address.toBase58()])).error, {
    code: -32602,
    message: 'Invalid param: not a Token mint',
  });
  assert.deepEqual((await rpcCall(gw.url, 'getTokenAccountBalance', [mint.toBase58()])).error, {
    code: -32602,
    message: 'Invalid param: not a Token account',
  });
});

test('prioritization fees per slot from the transactions that wrote the accounts; block production', async () => {
  const from = Keypair.generate();
  gw.gateway.chain!.ledger.airdrop(from.publicKey.toBytes(), BigInt(LAMPORTS_PER_SOL));
  const to = Keypair.generate().publicKey;
  const tx = new Transaction().add(
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 7_000 }),
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 1_000_000 }),
  );
  await sendAndConfirmTransaction(conn, tx, [from], { commitment: 'confirmed' });
  const fees = await conn.getRecentPrioritizationFees({ lockedWritableAccounts: [to] });
  assert.ok(fees.length > 0);
  assert.equal(Math.max(...fees.map((f) => f.prioritizationFee)), 7_000);
  const other = await conn.getRecentPrioritizationFees({ lockedWritableAccounts: [Keypair.generate().publicKey] });
  assert.equal(Math.max(...other.map((f) => f.prioritizationFee)), 0);
  const production = (await conn.getBlockProduction()).value;
  const entries = Object.entries(production.byIdentity);
  assert.equal(entries.length, 1);
  const [leader, [slots, produced]] = entries[0]!;
  assert.equal(leader, gw.gateway.chain!.ledger.node.identity);
  assert.equal(slots, production.range.lastSlot - production.range.firstSlot + 1);
  assert.ok(produced! <= slots! && produced! > 0);
  assert.deepEqual(await conn.getRecentPerformanceSamples(5), []);
});

test('the same signed transaction twice: the second is refused as already processed, charged once', async () => {
  const from = Keypair.generate();
  gw.gateway.chain!.ledger.airdrop(from.publicKey.toBytes(), BigInt(LAMPORTS_PER_SOL));
  const to = Keypair.generate().publicKey;
  const { blockhash } = await conn.getLatestBlockhash();
  const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: blockhash }).add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 1_000_000 }),
  );
  tx.sign(from);
  const raw = tx.serialize();
  const sig = await conn.sendRawTransaction(raw);
  await conn.confirmTransaction({ signature: sig, blockhash, lastValidBlockHeight: 1e12 }, 'confirmed');
  await assert.rejects(conn.sendRawTransaction(raw), /This transaction has already been processed/);
  // Without preflight it is dropped, as a validator's status cache drops it: nothing moves twice.
  assert.equal(await conn.sendRawTransaction(raw, { skipPreflight: true }), sig);
  assert.equal(await conn.getBalance(to), 1_000_000);
  assert.equal(await conn.getBalance(from.publicKey), LAMPORTS_PER_SOL - 1_000_000 - 5_000);
});
