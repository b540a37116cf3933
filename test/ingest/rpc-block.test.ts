// A getBlock answer read by the cluster source (rpc-block.ts): a transaction that does not read is
// set aside with its signature and why, and the rest of the block is kept; the transaction's
// base64 must be standard padded base64 (Node's decoder would skip a stray character or take the
// URL alphabet, so the source refuses those itself); inner instructions keep their accounts as
// bytes and refuse an index past the keys.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { readBlock } from '../../src/ingest/rpc-block.js';
import { encodeBase58 } from '../../src/zk/base58.js';

const payer = Keypair.generate();
const to = Keypair.generate().publicKey;

/** A signed transfer, its wire bytes as base64, and its signature in base58. */
function transfer(lamports: number) {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: encodeBase58(new Uint8Array(32).fill(7)) });
  tx.add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports }));
  tx.sign(payer);
  return { b64: tx.serialize().toString('base64'), signature: encodeBase58(tx.signature!) };
}

/** The system program's transfer of 5 lamports, as instruction data. */
const TRANSFER_5 = Uint8Array.from([2, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]);

const meta = (extra: Record<string, unknown> = {}) => ({
  err: null,
  fee: 5000,
  preBalances: [10, 0, 1],
  postBalances: [5, 5, 1],
  innerInstructions: [],
  logMessages: ['Program 11111111111111111111111111111111 invoke [1]'],
  preTokenBalances: [],
  postTokenBalances: [],
  loadedAddresses: { writable: [], readonly: [] },
  ...extra,
});

const block = (transactions: unknown[]) => ({
  parentSlot: 9,
  blockhash: encodeBase58(new Uint8Array(32).fill(1)),
  previousBlockhash: encodeBase58(new Uint8Array(32).fill(2)),
  blockTime: 1_700_000_000,
  transactions,
});

test('a block keeps the transactions that read and sets the others aside with their signature and why', () => {
  const good = transfer(5);
  const stray = transfer(6);
  const url = transfer(7);
  const short = transfer(8);
  const inner = transfer(9);
  // A character Node's decoder skips (past the signature, which the log still names); the URL
  // alphabet; a length that is not a multiple of 4.
  const strayB64 = stray.b64.slice(0, 120) + '!' + stray.b64.slice(121);
  const urlB64 = url.b64.replace(/\+/g, '-').replace(/\//g, '_');
  assert.notEqual(urlB64, url.b64, 'the fixture has a + or / to turn into the URL alphabet');
  const read = readBlock(
    10n,
    block([
      { transaction: [good.b64, 'base64'], meta: meta(), version: 'legacy' },
      { transaction: [strayB64, 'base64'], meta: meta(), version: 'legacy' },
      { transaction: [urlB64, 'base64'], meta: meta(), version: 'legacy' },
      { transaction: [short.b64.slice(0, -1), 'base64'], meta: meta(), version: 'legacy' },
      {
        transaction: [inner.b64, 'base64'],
        meta: meta({
          innerInstructions: [
            { index: 0, instructions: [{ programIdIndex: 2, accounts: [0, 3], data: '3Bxs4c2mUub8wCSj' }] },
          ],
        }),
        version: 'legacy',
      },
      { transaction: ['AAAA', 'base64'], meta: meta(), version: 'legacy' },
    ]),
  );
  assert.equal(read.transactions.length, 1);
  const t = read.transactions[0]!;
  assert.equal(encodeBase58(t.signature), good.signature);
  assert.equal(t.position, 0);
  assert.equal(t.slot, 10n);
  assert.deepEqual(Buffer.from(t.tx.bytes).toString('base64'), good.b64);
  assert.ok(
    t.tx.bytes instanceof Uint8Array && !Buffer.isBuffer(t.tx.bytes),
    'a plain Uint8Array, as the ledger gives',
  );
  assert.deepEqual(
    t.accountKeys.map((k) => encodeBase58(k)),
    [payer.publicKey.toBase58(), to.toBase58(), SystemProgram.programId.toBase58()],
  );
  assert.deepEqual(read.unreadable, [
    { signature: stray.signature, reason: 'transaction: not base64' },
    { signature: url.signature, reason: 'transaction: not base64' },
    { signature: short.signature, reason: 'transaction: not base64' },
    {
      signature: inner.signature,
      reason: 'innerInstructions[0].instructions[0].accounts: an account index past the keys',
    },
    { signature: '#5', reason: 'io error: unexpected end of file' },
  ]);
});

test("inner instructions keep their accounts as bytes, their data decoded, a missing stack height as a direct call's", () => {
  const tx = transfer(5);
  const read = readBlock(
    11n,
    block([
      {
        transaction: [tx.b64, 'base64'],
        meta: meta({
          innerInstructions: [
            {
              index: 0,
              instructions: [
                { programIdIndex: 2, accounts: [0, 1], data: encodeBase58(TRANSFER_5), stackHeight: 3 },
                { programIdIndex: 2, accounts: [], data: '' },
              ],
            },
          ],
        }),
      },
    ]),
  );
  assert.deepEqual(read.unreadable, []);
  const inner = read.transactions[0]!.innerInstructions();
  assert.equal(inner.length, 1);
  assert.deepEqual(inner[0], [
    { programIdIndex: 2, accounts: Uint8Array.from([0, 1]), data: TRANSFER_5, stackHeight: 3 },
    { programIdIndex: 2, accounts: new Uint8Array(0), data: new Uint8Array(0), stackHeight: 2 },
  ]);
});
