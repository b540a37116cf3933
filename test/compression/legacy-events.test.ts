// Light's V1 event format (issue 50 §3), on a real transaction: a compressed-token transfer on
// devnet by Light's V1 programs (test/fixtures/light-v1-event-devnet.json, as getTransaction
// answers it), whose state change is told by a PublicTransactionEvent in a noop CPI of the Light
// system program. It reads as the cluster source reads it; its event gives the outputs whose
// hashes the program computed (checked here by recomputing them from the bodies, trees and leaf
// indices), and the spent accounts' trees and leaves come from the Light system instruction (their
// hashes recomputed likewise). A noop call the Light system program did not make is no event; a
// truncated event is skipped with its reason, never thrown. Outputs stored in a CPI context are
// paired with their leaves in the order the program release that made them used.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { lightEvents } from '../../src/compression/index.js';
import { cpiContextOrder, type LightEvent } from '../../src/compression/events.js';
import { decodeSystemInstruction, type OutputAccount } from '../../src/compression/instructions.js';
import type { ChainTransaction, InnerInstruction } from '../../src/ledger/index.js';
import { readBlock } from '../../src/ingest/rpc-block.js';
import { compressedAccountHash } from '../../src/zk/account.js';
import { decodeBase58, encodeBase58 } from '../../src/zk/base58.js';
import { bigIntToBytes32, bytesToBigInt } from '../../src/zk/field.js';
import { loadPoseidon } from '../../src/zk/poseidon.js';
import { ROOT } from '../helpers/paths.js';

// From the repository root: the compiled suite (.test-js/) has no copy of the fixtures.
const fixture = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/light-v1-event-devnet.json'), 'utf8')) as {
  slot: number;
  blockTime: number;
  version: unknown;
  transaction: unknown;
  meta: unknown;
};

function devnetTransaction(): ChainTransaction {
  const block = readBlock(BigInt(fixture.slot), {
    parentSlot: fixture.slot - 1,
    blockhash: '11111111111111111111111111111111',
    previousBlockhash: '11111111111111111111111111111111',
    blockTime: fixture.blockTime,
    transactions: [{ transaction: fixture.transaction, meta: fixture.meta, version: fixture.version }],
  });
  assert.deepEqual(block.unreadable, []);
  return block.transactions[0]!;
}

const hashOf = (
  body: {
    owner: Uint8Array;
    lamports: bigint;
    address: Uint8Array | null;
    data: { discriminator: Uint8Array; dataHash: Uint8Array } | null;
  },
  tree: Uint8Array,
  leafIndex: number,
) =>
  compressedAccountHash(
    {
      owner: body.owner,
      lamports: body.lamports,
      tree,
      leafIndex,
      ...(body.address ? { address: body.address } : {}),
      ...(body.data ? { data: body.data } : {}),
    },
    1,
  );

test('the V1 event of a devnet transfer reads into the outputs and spent accounts the program hashed', async () => {
  await loadPoseidon();
  const t = devnetTransaction();
  assert.equal(encodeBase58(t.signature).slice(0, 6), '2cBteg');
  const { events, skipped } = lightEvents(t);
  assert.deepEqual(skipped, []);
  assert.equal(events.length, 1);
  const [ev] = events;
  const { queues, accounts, outputs } = ev!;
  const name = (i: number) => encodeBase58(accounts[i]!);
  // Two outputs, into smt1 and smt2 at the leaves the program appended them at.
  assert.deepEqual(
    queues.leaves.map((l, i) => [name(l.accountIndex), queues.outputLeafIndices[i]]),
    [
      ['smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT', 4936216],
      ['smt2rJAFdyJJupwMKAqTNAJwvjhmiZ4JYGZmbVRw1Ho', 96437],
    ],
  );
  queues.leaves.forEach((l, i) => {
    const expected = bytesToBigInt(l.leaf);
    assert.equal(hashOf(outputs[i]!.account, accounts[l.accountIndex]!, queues.outputLeafIndices[i]!), expected);
  });
  // Sequence numbers: one per output tree, each the seq of its first new leaf.
  assert.deepEqual(
    queues.outputSequences.map((s) => [encodeBase58(s.tree), s.treeType]),
    [
      ['smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT', 1n],
      ['smt2rJAFdyJJupwMKAqTNAJwvjhmiZ4JYGZmbVRw1Ho', 1n],
    ],
  );
  // The spent accounts: their hashes recomputed from the Light system instruction's inputs, at the
  // trees and leaves read from it, are the hashes the event says were nullified.
  const exec = t.innerInstructions()[2]!.find((ix) => decodeSystemInstruction(ix.data))!;
  const inputs = decodeSystemInstruction(exec.data)!.inputs.filter((x) => !x.readOnly);
  assert.ok(queues.nullifiers.length > 0);
  assert.equal(queues.nullifiers.length, inputs.length);
  queues.nullifiers.forEach((n, i) => {
    assert.equal(name(n.treeIndex), name(inputs[i]!.treeIndex));
    assert.equal(hashOf(inputs[i]!.account, accounts[n.treeIndex]!, n.leafIndex), bytesToBigInt(n.accountHash));
  });
  assert.deepEqual(queues.addresses, []);
});

test('a noop call the Light system program did not make is no event; a truncated event is skipped, not thrown', () => {
  const t = devnetTransaction();
  // Two compute-budget instructions, then the compressed-token transfer and what it invoked.
  const inner = t.innerInstructions()[2]!;
  const noopAt = inner.findIndex((ix) => ix.data.length > 600 && ix.stackHeight === 3);
  assert.ok(noopAt > 0);
  const withInner = (list: InnerInstruction[]): ChainTransaction => ({
    ...t,
    innerInstructions: () => [[], [], list],
  });

  // The same bytes, at the stack height of the top-level instruction's own CPIs: invoked by the
  // compressed-token program, not by the Light system program.
  const moved = inner.map((ix, i) => (i === noopAt ? { ...ix, stackHeight: 2 } : ix));
  assert.deepEqual(lightEvents(withInner(moved)), { events: [], skipped: [] });

  const cut = inner.map((ix, i) => (i === noopAt ? { ...ix, data: ix.data.subarray(0, ix.data.length - 5) } : ix));
  const r = lightEvents(withInner(cut));
  assert.deepEqual(r.events, []);
  assert.equal(r.skipped.length, 1);
  assert.match(r.skipped[0]!.reason, /^the Light system program's event in instruction 2 is malformed: /);
});

test("outputs stored in a CPI context come first (Light's programs from 2.0.0) or last (before): the leaves' hashes tell", async () => {
  await loadPoseidon();
  const tree = decodeBase58('smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT');
  const body = (lamports: bigint): OutputAccount => ({
    treeIndex: 0,
    account: { owner: new Uint8Array(32).fill(7), lamports, address: null, data: null },
  });
  const stored = [body(1n)];
  const executing = [body(2n), body(3n)];
  const leavesFor = (order: OutputAccount[]) =>
    order.map((o, i) => ({ accountIndex: 0, leaf: bigIntToBytes32(hashOf(o.account, tree, 10 + i)) }));
  const eventWith = (order: OutputAccount[]): LightEvent => ({
    queues: { leaves: leavesFor(order), outputLeafIndices: [10, 11, 12] } as LightEvent['queues'],
    accounts: [tree],
    outputs: [...stored, ...executing],
    executingFirst: [...executing, ...stored],
  });
  const hash = (o: OutputAccount, i: number) => hashOf(o.account, tree, 10 + i);
  assert.deepEqual(cpiContextOrder(eventWith([...stored, ...executing]), hash), [...stored, ...executing]);
  assert.deepEqual(cpiContextOrder(eventWith([...executing, ...stored]), hash), [...executing, ...stored]);
  // Neither order hashes to the first leaf: the event's own order stays (ingest's checks speak).
  const neither = { ...eventWith([...stored, ...executing]), outputs: [body(9n), ...executing] };
  assert.deepEqual(cpiContextOrder(neither, hash), neither.outputs);
});
