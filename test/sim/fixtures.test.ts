// The ledger's starting state: --account-dir fixtures (exact u64 rentEpoch), --program, Light's
// localnet programs; return data from a real SPL Token instruction; a v0 transaction with a
// lookup table, in simulateBundle.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { AccountRole, address, createSolanaRpc, devnet, lamports, type Address } from '@solana/kit';
import { parseTransaction } from '../../src/ledger/index.js';
import { decodeBase58, encodeBase58 } from '../../src/zk/base58.js';
import { parseJsonExact } from '../../src/wire/index.js';
import { postJson, rpcCall, startTestGateway, tempDir, type TestGateway } from '../helpers/gateway.js';
import { accountFile, generateKeyPairSigner, transaction, type KeyPairSigner } from './helpers.js';

const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const ALT_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
const U64_MAX = 18446744073709551615n;
const mint = encodeBase58(new Uint8Array(32).fill(3));
const table = encodeBase58(new Uint8Array(32).fill(4));
const noop = encodeBase58(new Uint8Array(32).fill(5));
let gw: TestGateway;
let alice: KeyPairSigner;
let bob: KeyPairSigner;
let carol: KeyPairSigner;
const rpc = () => createSolanaRpc(devnet(gw.url));
/** A JSON-RPC call whose answer is parsed with u64 values kept exact. */
const rpcExact = async (method: string, params: unknown): Promise<any> =>
  parseJsonExact((await postJson(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).text);

before(async () => {
  [alice, bob, carol] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
  const dir = tempDir();
  const accounts = join(dir, 'accounts');
  mkdirSync(accounts);
  // An initialised SPL mint: no authority, supply 0, 6 decimals.
  const mintData = new Uint8Array(82);
  mintData[44] = 6;
  mintData[45] = 1;
  writeFileSync(
    join(accounts, 'mint.json'),
    accountFile(mint, { lamports: 1_461_600n, data: mintData, owner: TOKEN, rentEpoch: U64_MAX }),
  );
  // A lookup table (56-byte header, never deactivated) holding bob and carol.
  const alt = new Uint8Array(56 + 64);
  const view = new DataView(alt.buffer);
  view.setUint32(0, 1, true);
  view.setBigUint64(4, U64_MAX, true);
  alt.set(decodeBase58(bob.address), 56);
  alt.set(decodeBase58(carol.address), 88);
  writeFileSync(
    join(accounts, 'alt.json'),
    accountFile(table, { lamports: 1_000_000_000n, data: alt, owner: ALT_PROGRAM }),
  );
  writeFileSync(
    join(accounts, 'alice.json'),
    accountFile(alice.address, {
      lamports: 3_000_000_000n,
      data: new Uint8Array(0),
      owner: '11111111111111111111111111111111',
    }),
  );
  const noopSo = join(
    dirname(createRequire(import.meta.url).resolve('@lightprotocol/zk-compression-cli/package.json')),
    'bin/spl_noop.so',
  );
  gw = await startTestGateway({ accountDir: [accounts], program: [`${noop}=${noopSo}`] }, {}, { ledger: true });
});
after(() => gw.stop());

test('fixtures load with exact u64 values; Light programs are deployed', async () => {
  const m = await rpcExact('getAccountInfo', [mint, { encoding: 'base64' }]);
  assert.equal(m.result.value.owner, TOKEN);
  assert.equal(m.result.value.rentEpoch, U64_MAX, 'u64::MAX exact on the wire');
  assert.equal((await rpc().getBalance(alice.address).send()).value, 3_000_000_000n);
  const light = (
    await rpc().getAccountInfo(address('SySTEM1eSU2p4BGQfQpimFEWWSC1XDFeun3Nqzz3rT7'), { encoding: 'base64' }).send()
  ).value;
  assert.equal(light?.executable, true);
  const tree = (
    await rpc().getAccountInfo(address('amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx'), { encoding: 'base64' }).send()
  ).value;
  assert.equal(tree?.owner, 'compr6CUsB5m2jS4Y3831ztGSTnDpnKJTKS95d64XVq');
});

test('return data from SPL Token GetAccountDataSize, and a --program invoked in the same bundle', async () => {
  const bh = (await rpc().getLatestBlockhash().send()).value;
  const tx = await transaction(
    alice,
    [
      // The noop first: each top-level instruction starts with empty return data (agave), so the
      // transaction's return data is the last instruction's.
      { programAddress: address(noop), accounts: [], data: new Uint8Array([1, 2, 3]) },
      {
        programAddress: address(TOKEN),
        accounts: [{ address: address(mint), role: AccountRole.READONLY }],
        data: new Uint8Array([21]),
      },
    ],
    bh,
  );
  const res = await rpcExact('simulateBundle', [
    { encodedTransactions: [tx] },
    { preExecutionAccountsConfigs: [{ addresses: [mint] }], postExecutionAccountsConfigs: [null], skipSigVerify: true },
  ]);
  const r = res.result.value.transactionResults[0];
  assert.equal(r.err, null, JSON.stringify(r.logs));
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(165n);
  assert.deepEqual(r.returnData, { programId: TOKEN, data: [size.toString('base64'), 'base64'] });
  assert.ok(r.logs.includes(`Program ${noop} invoke [1]`));
  assert.equal(r.preExecutionAccounts[0].rentEpoch, U64_MAX, 'u64::MAX exact on the wire');
});

test('a v0 transaction with a lookup table: loaded addresses and balances include the table keys', async () => {
  const bh = (await rpc().getLatestBlockhash().send()).value;
  const { getTransferSolInstruction } = await import('@solana-program/system');
  const tx = await transaction(
    alice,
    [getTransferSolInstruction({ source: alice, destination: bob.address, amount: lamports(1_000_000_000n) })],
    bh,
    { [table]: [bob.address, carol.address] as Address[] },
  );
  const parsed = parseTransaction(new Uint8Array(Buffer.from(tx, 'base64')));
  assert.equal(parsed.lookups.length, 1);
  assert.ok(!parsed.staticKeys.some((k) => encodeBase58(k) === bob.address), 'bob is loaded through the table');
  const res = await rpcCall(gw.url, 'simulateBundle', [
    { encodedTransactions: [tx] },
    {
      preExecutionAccountsConfigs: [null],
      postExecutionAccountsConfigs: [{ addresses: [bob.address] }],
      skipSigVerify: true,
    },
  ]);
  const r = res.result.value.transactionResults[0];
  assert.equal(r.err, null, JSON.stringify(r));
  assert.deepEqual(r.loadedAddresses, { writable: [bob.address], readonly: [] });
  assert.equal(r.postExecutionAccounts[0].lamports, 1_000_000_000);
  assert.equal(r.postBalances[r.postBalances.length - 1], 1_000_000_000);
});

test('a transaction whose logs pass 1,000 bytes: kept while under the cap, then one "Log truncated"', async () => {
  const bh = (await rpc().getLatestBlockhash().send()).value;
  const ixs = Array.from({ length: 8 }, (_, i) => ({
    programAddress: address(noop),
    accounts: [],
    data: new Uint8Array([i]),
  }));
  const tx = await transaction(alice, ixs, bh);
  const res = await rpcCall(gw.url, 'simulateBundle', [
    { encodedTransactions: [tx] },
    { preExecutionAccountsConfigs: [null], postExecutionAccountsConfigs: [null], skipSigVerify: true },
  ]);
  const logs: string[] = res.result.value.transactionResults[0].logs;
  assert.equal(res.result.value.transactionResults[0].err, null);
  const cut = logs.indexOf('Log truncated');
  assert.ok(cut > 0, 'truncated');
  assert.equal(logs.lastIndexOf('Log truncated'), cut, 'said once');
  const kept = logs.filter((l) => l !== 'Log truncated').reduce((n, l) => n + Buffer.byteLength(l), 0);
  assert.ok(kept < 1000, `kept ${kept} bytes`);
});

test('a compute budget too small for the work fails the transaction with ComputationalBudgetExceeded', async () => {
  const bh = (await rpc().getLatestBlockhash().send()).value;
  const limit = new Uint8Array(5);
  limit[0] = 2; // SetComputeUnitLimit
  new DataView(limit.buffer).setUint32(1, 250, true); // the budget instruction itself takes 150
  const tx = await transaction(
    alice,
    [
      { programAddress: address('ComputeBudget111111111111111111111111111111'), accounts: [], data: limit },
      {
        programAddress: address(TOKEN),
        accounts: [{ address: address(mint), role: AccountRole.READONLY }],
        data: new Uint8Array([21]),
      },
    ],
    bh,
  );
  const res = await rpcCall(gw.url, 'simulateBundle', [
    { encodedTransactions: [tx] },
    { preExecutionAccountsConfigs: [null], postExecutionAccountsConfigs: [null], skipSigVerify: true },
  ]);
  const r = res.result.value.transactionResults[0];
  assert.deepEqual(r.err, { InstructionError: [1, 'ComputationalBudgetExceeded'] });
  assert.equal(
    res.result.value.summary.failed.error.TransactionFailure[1],
    'Error processing Instruction 1: Computational budget exceeded',
  );
});

test('an unknown program is a failed summary, not a crash; the ledger is unchanged', async () => {
  const bh = (await rpc().getLatestBlockhash().send()).value;
  const before = (await rpc().getBalance(alice.address).send()).value;
  const tx = await transaction(
    alice,
    [{ programAddress: address(encodeBase58(new Uint8Array(32).fill(9))), accounts: [], data: new Uint8Array([0]) }],
    bh,
  );
  const res = await rpcCall(gw.url, 'simulateBundle', [
    { encodedTransactions: [tx] },
    { preExecutionAccountsConfigs: [null], postExecutionAccountsConfigs: [null], skipSigVerify: true },
  ]);
  const r = res.result.value.transactionResults[0];
  assert.ok(r.err !== null, 'fails');
  assert.ok(res.result.value.summary.failed);
  assert.equal((await rpc().getBalance(alice.address).send()).value, before);
});

test('simulationBank variants: commitments label the slot, "tip" and the current slot are accepted', async () => {
  const call = (simulationBank: unknown) =>
    rpcCall(gw.url, 'simulateBundle', [
      { encodedTransactions: [] },
      { preExecutionAccountsConfigs: [], postExecutionAccountsConfigs: [], simulationBank },
    ]);
  const processed = (await call({ commitment: { commitment: 'processed' } })).result.context.slot;
  const finalized = (await call({ commitment: { commitment: 'finalized' } })).result.context.slot;
  assert.ok(processed - finalized >= 31 && processed - finalized <= 33, `${processed} vs ${finalized}`);
  assert.ok((await call('tip')).result.context.slot >= processed);
  const current = (await rpc().getSlot({ commitment: 'processed' }).send()) as bigint;
  const bySlot = await call({ slot: Number(current) });
  // The clock may tick between the two calls; either the bank is found or the slot just passed.
  if (bySlot.result) assert.equal(bySlot.result.context.slot, Number(current));
  else assert.equal(bySlot.error.message, `bank not found for the provided slot: ${current}`);
  // What jito-ts's types allow besides: a bare commitment and a bare slot number.
  const bare = (await call('finalized')).result.context.slot;
  assert.ok(bare >= finalized && bare <= processed, `${bare}`);
  const bareSlot = await call(Number(current));
  if (bareSlot.result) assert.equal(bareSlot.result.context.slot, Number(current));
  else assert.equal(bareSlot.error.message, `bank not found for the provided slot: ${current}`);
  const bad = await call('latest');
  assert.equal(bad.error.code, -32602);
  assert.match(bad.error.message, /simulationBank/);
});
