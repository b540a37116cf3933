// simulateBundle on the embedded ledger with real transactions (@solana/kit): results checked to
// the lamport, chained state, a failure in the middle, nothing committed, Jito's request checks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSolanaRpc, devnet, lamports, type Address } from '@solana/kit';
import { truncateLogs } from '../../src/sim/index.js';
import { decodeBase58, encodeBase58 } from '../../src/zk/base58.js';
import { rpcCall, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { generateKeyPairSigner, transfer, type KeyPairSigner } from './helpers.js';

let gw: TestGateway;
let rpc: ReturnType<typeof createSolanaRpc<ReturnType<typeof devnet>>>;
let alice: KeyPairSigner;
let bob: KeyPairSigner;
let carol: KeyPairSigner;
const SOL = 1_000_000_000n;

before(async () => {
  gw = await startTestGateway({}, {}, { ledger: true });
  rpc = createSolanaRpc(devnet(gw.url));
  [alice, bob, carol] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
  await rpc.requestAirdrop(alice.address, lamports(10n * SOL)).send();
});
after(() => gw.stop());

const latest = async () => (await rpc.getLatestBlockhash().send()).value;
const balance = async (a: Address) => (await rpc.getBalance(a).send()).value;
const simulate = (txs: string[], config?: unknown) =>
  rpcCall(
    gw.url,
    'simulateBundle',
    config === undefined ? [{ encodedTransactions: txs }] : [{ encodedTransactions: txs }, config],
  );
const accounts = (...addresses: Address[]) => ({ addresses });

describe('execution', () => {
  test('chained transfers: each sees the one before; pre/post states to the lamport; nothing committed', async () => {
    const bh = await latest();
    const tx1 = await transfer(alice, bob.address, 2n * SOL, bh);
    const tx2 = await transfer(bob, carol.address, SOL / 2n, bh); // spends what tx1 gave bob
    const res = await simulate([tx1, tx2], {
      preExecutionAccountsConfigs: [accounts(alice.address, bob.address), accounts(bob.address)],
      postExecutionAccountsConfigs: [accounts(bob.address), accounts(bob.address, carol.address)],
      skipSigVerify: false,
    });
    const v = res.result.value;
    assert.equal(v.summary, 'succeeded');
    assert.equal(v.transactionResults.length, 2);
    const [r1, r2] = v.transactionResults;
    assert.deepEqual(Object.keys(r1), [
      'err',
      'logs',
      'preExecutionAccounts',
      'postExecutionAccounts',
      'unitsConsumed',
      'returnData',
      'replacementBlockhash',
      'fee',
      'preBalances',
      'postBalances',
      'loadedAddresses',
    ]);
    assert.deepEqual(r1.preExecutionAccounts, [
      {
        data: ['', 'base64'],
        executable: false,
        lamports: 10 * 1e9,
        owner: '11111111111111111111111111111111',
        rentEpoch: 0,
        space: 0,
      },
      {
        data: ['', 'base64'],
        executable: false,
        lamports: 0,
        owner: '11111111111111111111111111111111',
        rentEpoch: 0,
        space: 0,
      },
    ]);
    assert.equal(r1.postExecutionAccounts[0].lamports, 2e9);
    assert.equal(r1.err, null);
    assert.equal(r1.unitsConsumed, 150);
    assert.equal(r1.fee, 5000);
    assert.deepEqual(r1.logs, [
      'Program 11111111111111111111111111111111 invoke [1]',
      'Program 11111111111111111111111111111111 success',
    ]);
    assert.deepEqual(r1.preBalances, [10e9, 0, 1]);
    assert.deepEqual(r1.postBalances, [10e9 - 2e9 - 5000, 2e9, 1]);
    assert.deepEqual(r1.loadedAddresses, { writable: [], readonly: [] });
    assert.equal(r1.returnData, null);
    assert.equal(r1.replacementBlockhash, null);
    assert.equal(r2.preExecutionAccounts[0].lamports, 2e9);
    assert.equal(r2.postExecutionAccounts[0].lamports, 2e9 - 0.5e9 - 5000);
    assert.equal(r2.postExecutionAccounts[1].lamports, 0.5e9);
    assert.equal(res.result.context.apiVersion, '0.0.0-test');
    assert.equal(await balance(bob.address), 0n, 'nothing committed');
    assert.equal(await balance(alice.address), 10n * SOL);
  });

  test('a failure in the middle: summary, results up to it, nothing committed', async () => {
    const bh = await latest();
    const poor = await generateKeyPairSigner();
    const tx1 = await transfer(alice, bob.address, SOL, bh);
    const tx2 = await transfer(poor, carol.address, 1n, bh);
    const tx3 = await transfer(alice, carol.address, SOL, bh);
    const res = await simulate([tx1, tx2, tx3], {
      preExecutionAccountsConfigs: [null, null, null],
      postExecutionAccountsConfigs: [null, accounts(poor.address), null],
      skipSigVerify: true,
    });
    const v = res.result.value;
    assert.equal(v.transactionResults.length, 2);
    const sig2 = Buffer.from(tx2, 'base64').subarray(1, 65);
    assert.deepEqual(v.summary, {
      failed: {
        error: {
          TransactionFailure: [[...sig2], 'Attempt to debit an account but found no record of a prior credit.'],
        },
        tx_signature: encodeBase58(sig2),
      },
    });
    const r2 = v.transactionResults[1];
    assert.equal(r2.err, 'AccountNotFound');
    assert.deepEqual(r2.logs, []);
    assert.equal(r2.unitsConsumed, 0);
    assert.equal(r2.fee, null);
    assert.deepEqual(r2.postExecutionAccounts, [
      {
        data: ['', 'base64'],
        executable: false,
        lamports: 0,
        owner: '11111111111111111111111111111111',
        rentEpoch: 0,
        space: 0,
      },
    ]);
    assert.equal(await balance(bob.address), 0n);
    assert.equal(await balance(alice.address), 10n * SOL);
  });

  test('an instruction error: Solana error JSON, fee charged in the overlay only', async () => {
    const bh = await latest();
    const tx = await transfer(alice, bob.address, 100n * SOL, bh);
    const res = await simulate([tx], {
      preExecutionAccountsConfigs: [null],
      postExecutionAccountsConfigs: [accounts(alice.address)],
      skipSigVerify: true,
    });
    const r = res.result.value.transactionResults[0];
    assert.deepEqual(r.err, { InstructionError: [0, { Custom: 1 }] });
    assert.equal(r.postExecutionAccounts[0].lamports, 10e9 - 5000);
    assert.equal(
      res.result.value.summary.failed.error.TransactionFailure[1],
      'Error processing Instruction 0: custom program error: 0x1',
    );
    assert.equal(await balance(alice.address), 10n * SOL);
  });

  test('replaceRecentBlockhash runs a transaction with an unknown blockhash and reports the replacement', async () => {
    const stale = { blockhash: encodeBase58(new Uint8Array(32).fill(7)), lastValidBlockHeight: 0n };
    const tx = await transfer(alice, bob.address, SOL, stale, 'legacy');
    const without = await simulate([tx], {
      preExecutionAccountsConfigs: [null],
      postExecutionAccountsConfigs: [null],
      skipSigVerify: true,
    });
    assert.equal(without.result.value.transactionResults[0].err, 'BlockhashNotFound');
    const res = await simulate([tx], {
      preExecutionAccountsConfigs: [null],
      postExecutionAccountsConfigs: [null],
      skipSigVerify: true,
      replaceRecentBlockhash: true,
    });
    const r = res.result.value.transactionResults[0];
    assert.equal(r.err, null);
    assert.equal(typeof r.replacementBlockhash.blockhash, 'string');
    assert.equal(decodeBase58(r.replacementBlockhash.blockhash).length, 32);
  });

  test('an empty bundle succeeds with no results', async () => {
    const res = await simulate([]);
    assert.deepEqual(res.result.value, { summary: 'succeeded', transactionResults: [] });
  });
});

describe("Jito's request checks, in order (-32602)", () => {
  const cases: [string, () => Promise<[string[], unknown]>, string][] = [
    [
      'more than 20 transactions',
      async () => [Array(21).fill('AA=='), undefined],
      'bundle size too large, max 20 transactions',
    ],
    [
      'config lengths',
      async () => [
        [await transfer(alice, bob.address, 1n, await latest())],
        { preExecutionAccountsConfigs: [], postExecutionAccountsConfigs: [null] },
      ],
      'pre/post_execution_accounts_configs must be equal in length to the number of transactions',
    ],
    [
      'transaction encoding',
      async () => [
        [],
        { preExecutionAccountsConfigs: [], postExecutionAccountsConfigs: [], transactionEncoding: 'base58' },
      ],
      'Base64 is the only supported encoding for transactions',
    ],
    [
      'pre account encoding',
      async () => [
        ['AA=='],
        {
          preExecutionAccountsConfigs: [{ addresses: [], encoding: 'jsonParsed' }],
          postExecutionAccountsConfigs: [null],
        },
      ],
      'Base64 is the only supported encoding for pre-execution accounts',
    ],
    [
      'post account encoding',
      async () => [
        ['AA=='],
        { preExecutionAccountsConfigs: [null], postExecutionAccountsConfigs: [{ addresses: [], encoding: 'base58' }] },
      ],
      'Base64 is the only supported encoding for post-execution accounts',
    ],
    ['bad base64', async () => [['!!!!'], undefined], 'invalid base64 encoding: InvalidByte(0, 33)'],
    [
      'undecodable bytes',
      async () => [['AQID'], undefined],
      'failed to deserialize solana_transaction::versioned::VersionedTransaction: io error: unexpected end of file',
    ],
    [
      'too long',
      async () => [['A'.repeat(1648)], undefined],
      'base64 encoded solana_transaction::versioned::VersionedTransaction too large: 1648 bytes (max: encoded/raw 1644/1232)',
    ],
    [
      'decoded too large',
      async () => [[Buffer.alloc(1233, 1).toString('base64')], undefined],
      'decoded solana_transaction::versioned::VersionedTransaction too large: 1233 bytes (max: 1232 bytes)',
    ],
    [
      'a truncated transaction',
      async () => [
        [
          Buffer.from(await transfer(alice, bob.address, 1n, await latest()), 'base64')
            .subarray(0, 150)
            .toString('base64'),
        ],
        undefined,
      ],
      'failed to deserialize solana_transaction::versioned::VersionedTransaction: io error: unexpected end of file',
    ],
    [
      'duplicates',
      async () => {
        const t = await transfer(alice, bob.address, 1n, await latest());
        return [[t, t], undefined];
      },
      'duplicate transactions',
    ],
    [
      'a slot zkgate holds no bank for',
      async () => [
        [],
        { preExecutionAccountsConfigs: [], postExecutionAccountsConfigs: [], simulationBank: { slot: 5 } },
      ],
      'bank not found for the provided slot: 5',
    ],
    [
      'more than 64 pre/post addresses',
      async () => [
        [await transfer(alice, bob.address, 1n, await latest())],
        {
          preExecutionAccountsConfigs: [{ addresses: Array(65).fill(bob.address) }],
          postExecutionAccountsConfigs: [null],
        },
      ],
      'Too many accounts provided; max 64',
    ],
    [
      'a lookup table the bank does not hold',
      async () => {
        const { transaction } = await import('./helpers.js');
        const { getTransferSolInstruction } = await import('@solana-program/system');
        const missingTable = encodeBase58(new Uint8Array(32).fill(11));
        const t = await transaction(
          alice,
          [getTransferSolInstruction({ source: alice, destination: bob.address, amount: lamports(1n) })],
          await latest(),
          { [missingTable]: [bob.address] },
        );
        return [
          [t],
          { preExecutionAccountsConfigs: [null], postExecutionAccountsConfigs: [null], skipSigVerify: true },
        ];
      },
      "invalid transaction: Transaction loads an address table account that doesn't exist",
    ],
    [
      'replace without skipping signature checks',
      async () => [
        [],
        { preExecutionAccountsConfigs: [], postExecutionAccountsConfigs: [], replaceRecentBlockhash: true },
      ],
      'replace_recent_blockhash cannot be used with !skip_sig_verify',
    ],
    [
      'a bad signature',
      async () => {
        const t = Buffer.from(await transfer(alice, bob.address, 1n, await latest()), 'base64');
        t[5] = t[5]! ^ 1;
        return [[t.toString('base64')], undefined];
      },
      'transaction signature is invalid: Transaction did not pass signature verification',
    ],
    [
      'a bad pre/post pubkey',
      async () => [
        [await transfer(alice, bob.address, 1n, await latest())],
        { preExecutionAccountsConfigs: [{ addresses: ['nope'] }], postExecutionAccountsConfigs: [null] },
      ],
      'invalid pubkey for pre/post accounts provided: nope',
    ],
  ];
  for (const [name, make, message] of cases) {
    test(name, async () => {
      const [txs, config] = await make();
      const res = await simulate(txs, config);
      assert.deepEqual(res.error, { code: -32602, message });
    });
  }
});

test('log truncation follows the 1,000-byte collector rule', () => {
  const long = 'x'.repeat(600);
  assert.deepEqual(truncateLogs([long, long, 'short']), [long, 'Log truncated', 'short']);
  assert.deepEqual(truncateLogs(['a'.repeat(999)]), ['a'.repeat(999)]);
  assert.deepEqual(truncateLogs(['a'.repeat(1000)]), ['Log truncated']);
});
