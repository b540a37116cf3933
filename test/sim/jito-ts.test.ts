// jito-ts 4.2.1's own simulateBundle against the embedded ledger: its default call (no account
// configs), bare simulationBank values, and the null account-config rule.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Keypair, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { JitoRpcConnection } from 'jito-ts/dist/sdk/rpc/connection.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let jito: JitoRpcConnection;
const payer = Keypair.generate();
const bob = Keypair.generate();

before(async () => {
  gw = await startTestGateway({}, {}, { ledger: true });
  jito = new JitoRpcConnection(gw.url, 'processed');
  gw.gateway.chain!.ledger.airdrop(payer.publicKey.toBytes(), 1_000_000_000n);
});
after(() => gw?.stop());

function transfer(lamports: number): VersionedTransaction {
  const { blockhash } = gw.gateway.chain!.ledger.latestBlockhash();
  const msg = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: blockhash,
    instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: bob.publicKey, lamports })],
  }).compileToV0Message();
  const tx = new VersionedTransaction(msg);
  tx.sign([payer]);
  return tx;
}

test('simulateBundle(bundle) with jito-ts defaults: runs in order, account lists null', async () => {
  const res = await jito.simulateBundle([transfer(10_000_000), transfer(20_000_000)]);
  assert.equal(res.value.summary, 'succeeded');
  assert.equal(res.value.transactionResults.length, 2);
  for (const r of res.value.transactionResults) {
    assert.equal(r.err, null);
    assert.equal(r.preExecutionAccounts, null);
    assert.equal(r.postExecutionAccounts, null);
  }
  // Nothing committed.
  assert.equal(gw.gateway.chain!.ledger.getAccount(bob.publicKey.toBytes()), undefined);
});

test('bare simulationBank values jito-ts allows: "tip", a commitment, a slot', async () => {
  const ledger = gw.gateway.chain!.ledger;
  for (const bank of ['tip', 'confirmed', 'finalized'] as const) {
    const res = await jito.simulateBundle([transfer(1_000_000)], {
      preExecutionAccountsConfigs: [null],
      postExecutionAccountsConfigs: [null],
      simulationBank: bank as never,
    });
    assert.equal(res.value.summary, 'succeeded', bank);
    const expected = bank === 'tip' ? ledger.slot : ledger.slotAt(bank);
    assert.ok(Math.abs(res.context.slot - Number(expected)) <= 1, `${bank}: ${res.context.slot} vs ${expected}`);
  }
  const slot = Number(ledger.slot);
  try {
    const res = await jito.simulateBundle([transfer(1_000_000)], {
      preExecutionAccountsConfigs: [null],
      postExecutionAccountsConfigs: [null],
      simulationBank: slot as never,
    });
    assert.equal(res.context.slot, slot);
  } catch (e) {
    // The 400 ms clock may have moved on between reading the slot and the call.
    assert.match(String(e), new RegExp(`bank not found for the provided slot: ${slot}`));
  }
});

test('a null account config answers null for that transaction; addresses answer accounts', async () => {
  const res = await jito.simulateBundle([transfer(30_000_000), transfer(40_000_000)], {
    preExecutionAccountsConfigs: [null, { encoding: 'base64', addresses: [bob.publicKey.toBase58()] }],
    postExecutionAccountsConfigs: [{ encoding: 'base64', addresses: [bob.publicKey.toBase58()] }, null],
  });
  const [first, second] = res.value.transactionResults;
  assert.equal(first!.preExecutionAccounts, null);
  assert.equal(first!.postExecutionAccounts![0]!.lamports, 30_000_000);
  assert.equal(second!.preExecutionAccounts![0]!.lamports, 30_000_000);
  assert.equal(second!.postExecutionAccounts, null);
});
