// A wire transaction's version read alone (what getBlock's wire encodings need) against the full
// parse, on transactions web3.js builds: legacy, v0 with a lookup table, and versions refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  Keypair,
  MessageV0,
  SystemProgram,
  Transaction,
  VersionedTransaction,
  AddressLookupTableAccount,
} from '@solana/web3.js';
import { parseTransaction, transactionVersion, TxDecodeError } from '../../src/ledger/index.js';

const payer = Keypair.generate();
const to = Keypair.generate().publicKey;
const blockhash = Keypair.generate().publicKey.toBase58();

function legacy(): Uint8Array {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash });
  tx.add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 5 }));
  tx.sign(payer);
  return tx.serialize();
}

function v0(): Uint8Array {
  const table = new AddressLookupTableAccount({
    key: Keypair.generate().publicKey,
    state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: [to] },
  });
  const msg = MessageV0.compile({
    payerKey: payer.publicKey,
    recentBlockhash: blockhash,
    instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 5 })],
    addressLookupTableAccounts: [table],
  });
  const tx = new VersionedTransaction(msg);
  tx.sign([payer]);
  return tx.serialize();
}

test('transactionVersion reads what parseTransaction finds, and refuses what it refuses', () => {
  for (const bytes of [legacy(), v0()]) assert.equal(transactionVersion(bytes), parseTransaction(bytes).version);
  assert.equal(transactionVersion(legacy()), 'legacy');
  assert.equal(transactionVersion(v0()), 0);
  // Version 1: the prefix byte 0x81 where v0 has 0x80.
  const v1 = v0();
  v1[1 + 64] = 0x81;
  assert.throws(
    () => parseTransaction(v1),
    (e) => e instanceof TxDecodeError && /version 1/.test(e.message),
  );
  assert.throws(
    () => transactionVersion(v1),
    (e) => e instanceof TxDecodeError && /version 1/.test(e.message),
  );
  // Cut inside the signatures: no message to read a version from.
  assert.throws(() => transactionVersion(legacy().subarray(0, 40)), TxDecodeError);
});
