// Ingest of Light transactions on the ledger: trees equal the chain after each transaction,
// malformed or hostile transactions are skipped (counted) without touching state, the index
// survives a restart, and a kill -9 loses nothing committed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { Keypair } from '@solana/web3.js';
import { compareWithChain } from '../../src/compression/index.js';
import type { CommittedTransaction, InnerInstruction } from '../../src/ledger/index.js';
import { decodeBase58, encodeBase58 } from '../../src/zk/index.js';
import { tempDir } from '../helpers/gateway.js';
import { LOADER, sibling } from '../helpers/paths.js';
import { compressIx, openLightLedger, sendIxs, stateTrees, type LightLedger } from './helpers.js';

const SMT1 = 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT';
const BMT1 = 'bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU';
const dirs: string[] = [];
const dir = () => {
  const d = tempDir('zkgate-ingest-');
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function inSync(l: LightLedger): string[] {
  l.compression.ingester.verifyPending();
  assert.deepEqual([...l.compression.ingester.divergent], []);
  return l.compression.trees
    .listTrees()
    .filter((t) => t.ledger)
    .flatMap((t) => compareWithChain(t, (k) => l.ledger.getAccount(decodeBase58(k))));
}

test('V1 and V2 compressions: trees, queues and the index follow the chain after each transaction', async () => {
  const l = await openLightLedger(dir());
  const { v1, v2 } = stateTrees();
  const payer = Keypair.generate();
  l.ledger.airdrop(payer.publicKey.toBytes(), 10_000_000_000n);
  for (let i = 1; i <= 3; i++) {
    assert.equal(sendIxs(l.ledger, payer, [await compressIx(payer, 1_000_000 * i, i % 2 ? v1 : v2)]).err, null);
    assert.deepEqual(inSync(l), [], `after transaction ${i}`);
  }
  const smt1 = l.compression.trees.info(SMT1);
  const bmt1 = l.compression.trees.info(BMT1);
  assert.deepEqual([smt1.nextIndex, smt1.rootSeq], [2, 2n], 'two V1 appends, one root each');
  assert.deepEqual([bmt1.nextIndex, bmt1.outputNext, bmt1.rootSeq], [0, 1, 0n], 'one V2 output waits in oq1');
  const owner = payer.publicKey.toBytes();
  assert.equal(l.compression.store.ownerBalance(owner), 6_000_000n);
  const accounts = l.compression.store.accountsByOwner(owner, { limit: 10 });
  // Photon's order: leaf index, then hash.
  const order = accounts.map((a) => [a.leafIndex, Buffer.from(a.hash).toString('hex')] as const);
  assert.deepEqual(
    order,
    [...order].sort((x, y) => x[0] - y[0] || x[1].localeCompare(y[1])),
  );
  assert.deepEqual(
    accounts
      .map((a) => [a.tree, a.leafIndex, a.lamports, a.seq, a.inOutputQueue])
      .sort((x, y) => Number(x[2]) - Number(y[2])),
    [
      [SMT1, 0, 1_000_000n, 1n, false],
      [BMT1, 0, 2_000_000n, null, true],
      [SMT1, 1, 3_000_000n, 2n, false],
    ],
  );
  assert.equal(l.compression.ingester.stats.skipped, 0);
  await l.ledger.close();
});

/** A copy of a committed transaction with its Light instructions edited. */
function variant(
  t: CommittedTransaction,
  edit: (top: { data: Uint8Array }, inner: InnerInstruction[]) => void,
  err: CommittedTransaction['err'] = null,
): CommittedTransaction {
  const top = t.tx.instructions.map((ix) => ({ ...ix, data: new Uint8Array(ix.data) }));
  const inner = t
    .innerInstructions()
    .map((list) => list.map((ix) => ({ ...ix, data: new Uint8Array(ix.data), accounts: new Uint8Array(ix.accounts) })));
  const at = top.findIndex((ix) => encodeBase58(t.accountKeys[ix.programIdIndex]!).startsWith('SySTEM1'));
  edit(top[at]!, inner[at]!);
  return {
    ...t,
    signature: new Uint8Array(randomBytes(64)),
    err,
    tx: { ...t.tx, instructions: top },
    innerInstructions: () => inner,
  };
}

const iiqOf = (inner: InnerInstruction[]): InnerInstruction =>
  inner.find((ix) => Buffer.from(ix.data.subarray(0, 8)).toString('hex') === 'b48f9f99232ef8a3')!;

test('malformed and hostile Light transactions are skipped and counted; state is untouched', async () => {
  const l = await openLightLedger(dir());
  const { v1 } = stateTrees();
  const payer = Keypair.generate();
  l.ledger.airdrop(payer.publicKey.toBytes(), 10_000_000_000n);
  assert.equal(sendIxs(l.ledger, payer, [await compressIx(payer, 5_000_000, v1)]).err, null);
  const real = l.seen[l.seen.length - 1]!;
  const { ingester, trees, store } = l.compression;
  const snapshot = () => ({
    smt1: trees.info(SMT1),
    balance: store.ownerBalance(payer.publicKey.toBytes()),
    compressionTxs: store.signatures('compression', { limit: 100 }).length,
  });
  const before = snapshot();
  const cases: [string, CommittedTransaction, number][] = [
    [
      'truncated insert_into_queues',
      variant(real, (_, inner) => (iiqOf(inner).data = iiqOf(inner).data.subarray(0, 60))),
      1,
    ],
    ['unknown system discriminator', variant(real, (top) => (top.data[0] = top.data[0]! ^ 0xff)), 1],
    ['truncated system instruction', variant(real, (top) => (top.data = top.data.subarray(0, 20))), 1],
    [
      'leaf that its body does not hash to',
      variant(real, (_, inner) => (iiqOf(inner).data[56] = iiqOf(inner).data[56]! ^ 1)),
      1,
    ],
    [
      'absurd vector length',
      variant(real, (_, inner) => {
        const d = iiqOf(inner).data;
        d.set([0xff, 0xff, 0xff, 0xff], d.length - 4);
      }),
      1,
    ],
    ['replayed transaction (its leaves are taken)', variant(real, () => {}), 1],
    [
      "insert_into_queues of another program's PDA",
      variant(real, (_, inner) => {
        const ix = iiqOf(inner);
        ix.accounts[1] = ix.accounts[0]!;
      }),
      0,
    ],
    [
      'failed transaction',
      variant(real, () => {}, { json: { InstructionError: [1, 'InvalidArgument'] }, display: 'x' } as never),
      0,
    ],
  ];
  for (const [name, tx, skips] of cases) {
    const skipped = ingester.stats.skipped;
    assert.doesNotThrow(() => trees.transaction(() => ingester.applyTransaction(tx)), name);
    assert.equal(ingester.stats.skipped - skipped, skips, name);
    assert.deepEqual(snapshot(), before, `${name}: state unchanged`);
  }
  assert.deepEqual(inSync(l), []);
  // Ingest goes on with the next real transaction.
  assert.equal(sendIxs(l.ledger, payer, [await compressIx(payer, 7_000_000, v1)]).err, null);
  assert.deepEqual(inSync(l), []);
  assert.equal(store.ownerBalance(payer.publicKey.toBytes()), 12_000_000n);
  const warnings = l.logs().filter((line) => line.includes('compression ingest skipped an event'));
  assert.equal(warnings.length, 6);
  await l.ledger.close();
});

test('a restart keeps the trees, queues and index, and the self-check still passes', async () => {
  const d = dir();
  const l = await openLightLedger(d);
  const { v1, v2 } = stateTrees();
  const payer = Keypair.generate();
  l.ledger.airdrop(payer.publicKey.toBytes(), 10_000_000_000n);
  sendIxs(l.ledger, payer, [await compressIx(payer, 1_111_111, v1)]);
  sendIxs(l.ledger, payer, [await compressIx(payer, 2_222_222, v2)]);
  const trees = l.compression.trees.listTrees();
  const accounts = l.compression.store.accountsByOwner(payer.publicKey.toBytes(), { limit: 10 });
  await l.ledger.close();
  const again = await openLightLedger(d);
  assert.deepEqual(again.compression.trees.listTrees(), trees);
  assert.deepEqual(again.compression.store.accountsByOwner(payer.publicKey.toBytes(), { limit: 10 }), accounts);
  assert.deepEqual([...again.compression.ingester.divergent], []);
  assert.deepEqual(inSync(again), []);
  await again.ledger.close();
});

test('kill -9 while Light transactions are ingested loses nothing committed', { timeout: 180_000 }, async () => {
  const d = dir();
  const child = spawn(process.execPath, [...LOADER, sibling(import.meta.url, 'crash-child'), d], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if ((out.match(/^sent /gm) ?? []).length >= 12) setTimeout(() => child.kill('SIGKILL'), 23);
    });
    child.on('exit', () => resolve());
    child.on('error', reject);
  });
  const sent = [...out.matchAll(/^sent (\w+) (\w+)$/gm)].map((m) => ({ signature: m[1]!, owner: m[2]! }));
  assert.ok(sent.length >= 12);
  const l = await openLightLedger(d);
  // Every transaction the child saw committed is in the ledger and in the index.
  const indexed = new Set(
    l.compression.store.signatures('compression', { limit: 10_000 }).map((s) => encodeBase58(s.signature)),
  );
  for (const s of sent) assert.ok(indexed.has(s.signature), `${s.signature} is indexed`);
  assert.deepEqual([...l.compression.ingester.divergent], [], 'trees equal the chain after the crash');
  const owner = sent[0]!.owner;
  const compressed = [...indexed].length;
  assert.equal(l.compression.store.ownerBalance(Keypair.generate().publicKey.toBytes()), 0n);
  assert.equal(
    l.compression.store.ownerBalance(new (await import('@solana/web3.js')).PublicKey(owner).toBytes()),
    BigInt(compressed) * 1_000_000n,
  );
  await l.ledger.close();
});
