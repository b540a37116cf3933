// The blocks the ledger produces, one per slot, through web3.js and on the wire: getBlock in its
// detail levels, the chain of blockhashes, the slot-range methods and their errors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction,
} from '@solana/web3.js';
import { rpcCall, startTestGateway, type TestGateway, stopWithConnection, web3Connection } from '../helpers/gateway.js';

let gw: TestGateway;
let conn: Connection;
let sig: string;
let slot: number;

before(async () => {
  gw = await startTestGateway({}, {}, { ledger: true });
  conn = web3Connection(gw);
  // A new ledger's first block is its first slot: let a few blocks be produced first.
  const ledger = gw.gateway.chain!.ledger;
  const first = ledger.slot;
  while (ledger.slot < first + 4n) await new Promise((r) => setTimeout(r, 50));
  const from = Keypair.generate();
  gw.gateway.chain!.ledger.airdrop(from.publicKey.toBytes(), BigInt(LAMPORTS_PER_SOL));
  const tx = new Transaction().add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 5_000_000 }),
  );
  sig = await sendAndConfirmTransaction(conn, tx, [from], { commitment: 'confirmed' });
  slot = (await conn.getSignatureStatus(sig)).value!.slot;
});
after(() => stopWithConnection(gw, conn));

test('getBlock: the transaction in its slot, parent and previous blockhash chained', async () => {
  const block = await conn.getBlock(slot, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
  assert.ok(block);
  assert.deepEqual(
    block.transactions.map((t) => t.transaction.signatures[0]),
    [sig],
  );
  assert.equal(block.transactions[0]!.meta!.fee, 5000);
  assert.equal(block.parentSlot, slot - 1);
  assert.equal((block as unknown as { blockHeight: number }).blockHeight, slot);
  assert.ok(Math.abs(block.blockTime! - Date.now() / 1000) < 30);
  // One time per block: its transactions' blockTime is the block's (an index built from blocks and
  // one built from the transactions then agree).
  const got = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
  assert.equal(got!.blockTime, block.blockTime);
  assert.equal(got!.blockTime, await conn.getBlockTime(slot));
  const parent = await conn.getBlock(slot - 1, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
  assert.equal(block.previousBlockhash, parent!.blockhash);
  assert.notEqual(block.blockhash, parent!.blockhash);
  // The blockhash a transaction cites is one the ledger produced as a block's.
  assert.equal(typeof (await conn.getBlockTime(slot)), 'number');
});

test("getBlock on the wire: signatures only, without rewards, in Agave's key order", async () => {
  const res = await rpcCall(gw.url, 'getBlock', [
    slot,
    { transactionDetails: 'signatures', rewards: false, commitment: 'confirmed' },
  ]);
  assert.deepEqual(Object.keys(res.result), [
    'previousBlockhash',
    'blockhash',
    'parentSlot',
    'signatures',
    'blockTime',
    'blockHeight',
  ]);
  assert.deepEqual(res.result.signatures, [sig]);
  const none = await rpcCall(gw.url, 'getBlock', [slot, { transactionDetails: 'none', commitment: 'confirmed' }]);
  assert.deepEqual(Object.keys(none.result), [
    'previousBlockhash',
    'blockhash',
    'parentSlot',
    'rewards',
    'blockTime',
    'blockHeight',
  ]);
  assert.deepEqual(none.result.rewards, []);
});

test('getBlocks / getBlocksWithLimit list every produced slot; first available block', async () => {
  const blocks = await conn.getBlocks(slot - 3, slot, 'confirmed');
  assert.deepEqual(blocks, [slot - 3, slot - 2, slot - 1, slot]);
  const limited = await rpcCall(gw.url, 'getBlocksWithLimit', [slot - 3, 2, { commitment: 'confirmed' }]);
  assert.deepEqual(limited.result, [slot - 3, slot - 2]);
  const first = (await rpcCall(gw.url, 'getFirstAvailableBlock', [])).result;
  assert.ok(first <= slot - 3);
  assert.equal((await rpcCall(gw.url, 'minimumLedgerSlot', [])).result, first);
});

test('errors: a block not produced yet (-32004), processed commitment and bad params (-32602)', async () => {
  const ledger = gw.gateway.chain!.ledger;
  const future = Number(ledger.slot) + 100;
  assert.deepEqual((await rpcCall(gw.url, 'getBlock', [future, { commitment: 'confirmed' }])).error, {
    code: -32004,
    message: `Block not available for slot ${future}`,
  });
  assert.deepEqual((await rpcCall(gw.url, 'getBlock', [slot, { commitment: 'processed' }])).error, {
    code: -32602,
    message: 'Method does not support commitment below `confirmed`',
  });
  assert.equal((await rpcCall(gw.url, 'getBlock', [-1])).error.code, -32602);
  assert.equal((await rpcCall(gw.url, 'getBlock', [slot, { transactionDetails: 'everything' }])).error.code, -32602);
  assert.equal(
    (await rpcCall(gw.url, 'getBlocks', [0, 600_000])).error.message,
    'Invalid params: Slot range too large; max 500000',
  );
});
