// The batch circuits (circuits/batch.circom) at the localnet zkp batch size: inputs built from
// zkgate's trees by the forester's builders, proved with dev keys by the native prover and
// verified by snarkjs and the independent noble verifier; the new root each proof commits to is the root the tree store
// computes when it applies the same batch; inputs that do not satisfy the statement give no proof.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import {
  addressAppendInputs,
  appendInputs,
  updateInputs,
  type IndexedSource,
  type NodeSource,
} from '../../src/forester/batch-inputs.js';
import { defaultConfig } from '../../src/config.js';
import { TreeStore, type AddressTree, type StateTree } from '../../src/state/index.js';
import { zeroValues } from '../../src/state/merkle.js';
import { buildWitnessCalculator, calculateWitness } from '../../src/prover/witness-calculator.js';
import { hashChain } from '../../src/zk/hash-chain.js';
import { NativeBackend } from '../../src/prover/native-backend.js';
import { UnsatisfiedWitnessError } from '../../src/prover/backend.js';
import { KeyStore, loadPoseidon, poseidon, shutdownZk, verifyGroth16 } from '../../src/zk/index.js';
import type { CircuitInputs } from '../../src/zk/inputs.js';
import { tempDir } from '../helpers/gateway.js';
import { assertVerifies, KEY_CACHE } from '../helpers/zk.js';

const keys = new KeyStore(KEY_CACHE);
let store: TreeStore;
let dir: string;

before(async () => {
  await loadPoseidon();
  dir = tempDir('zkgate-batch-');
  store = await TreeStore.open(dir);
  store.registerTree({ pubkey: 'state', kind: 'state', version: 2, rootHistoryCapacity: 200 });
  store.registerTree({ pubkey: 'addr', kind: 'address', version: 2, rootHistoryCapacity: 200 });
});

after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  await shutdownZk();
});

const nodes = (t: StateTree | AddressTree): NodeSource => ({ height: t.info().height, node: (l, i) => t.node(l, i) });
const indexed = (t: AddressTree): IndexedSource => ({
  ...nodes(t),
  lowElement: (v) => t.lowElement(v),
  element: (i) => t.element(i),
});

// Proved with the native prover (what the forester uses); verified by snarkjs and the noble verifier.
// A gateway's default budget: the tables the suite's prebuild wrote (test/prebuild-keys.ts) are planned for it.
const backend = new NativeBackend({ memoryBudgetBytes: defaultConfig().proverMemoryMb * 2 ** 20, curveThreads: 2 });
const job = async (shape: string, inputs: CircuitInputs) => {
  const key = await keys.ensure(shape);
  return { key, job: { shape, zkeyPath: key.zkeyPath, wasmPath: key.wasmPath, keyBytes: 0, inputs } };
};

async function proveBatch(shape: string, inputs: CircuitInputs, publicInputHash: bigint): Promise<void> {
  const { key, job: j } = await job(shape, inputs);
  const proof = await backend.prove(j);
  assert.deepEqual(proof.publicSignals, [publicInputHash]);
  await assertVerifies(key.vk, [publicInputHash], proof.points);
  assert.equal(verifyGroth16(key.vk, [publicInputHash + 1n], proof.points), false, 'another public input fails');
}

async function assertNoProof(shape: string, inputs: CircuitInputs, why: string): Promise<void> {
  await assert.rejects(backend.prove((await job(shape, inputs)).job), UnsatisfiedWitnessError, why);
}

const leaf = (i: number) => poseidon([BigInt(i), 77n]);
const txHash = (i: number) => poseidon([BigInt(i), 99n]);

test('batch append and batch update (32 × 10): an update may overtake an append', { timeout: 1_800_000 }, async () => {
  const s = store.stateTree('state');
  s.enqueue(
    0,
    Array.from({ length: 20 }, (_, i) => leaf(i)),
  );
  // Append the first zkp batch.
  const a1 = appendInputs(
    nodes(s),
    0,
    Array.from({ length: 10 }, (_, i) => leaf(i)),
  );
  assert.equal(a1.hashChain, hashChain(Array.from({ length: 10 }, (_, i) => leaf(i))));
  assert.equal(a1.oldRoot, s.info().root);
  await proveBatch('batch_append_32_10', a1.inputs, a1.publicInputHash);
  const applied = s.batchAppend(10, 5n);
  assert.equal(applied.root, a1.newRoot, 'the proof commits to the root the store computes');
  assert.equal(s.info().nextIndex, 10);

  // Spend 10: eight appended accounts and two still in the output queue (leaves 12 and 15).
  const spent = [0, 1, 2, 3, 4, 5, 6, 7, 12, 15].map((i) => ({ hash: leaf(i), leafIndex: i, txHash: txHash(i) }));
  s.spend(spent);
  const u = updateInputs(
    nodes(s),
    spent.map((e) => ({ leaf: e.hash, leafIndex: e.leafIndex, txHash: e.txHash })),
  );
  assert.equal(u.hashChain, hashChain(spent.map((e) => poseidon([e.hash, BigInt(e.leafIndex), e.txHash]))));
  await proveBatch('batch_update_32_10', u.inputs, u.publicInputHash);
  assert.equal(s.batchNullify(10, 6n).root, u.newRoot);

  // The second append keeps the nullifiers written at 12 and 15.
  const a2 = appendInputs(
    nodes(s),
    10,
    Array.from({ length: 10 }, (_, i) => leaf(10 + i)),
  );
  assert.equal(a2.inputs.oldLeaves![2], poseidon([leaf(12), 12n, txHash(12)]).toString());
  await proveBatch('batch_append_32_10', a2.inputs, a2.publicInputHash);
  assert.equal(s.batchAppend(10, 7n).root, a2.newRoot);
  assert.equal(s.leaf(15), poseidon([leaf(15), 15n, txHash(15)]));
  assert.equal(s.leaf(16), leaf(16));

  // A wrong old leaf or a leaf outside the hash chain gives no proof.
  const bad = appendInputs(
    nodes(s),
    20,
    Array.from({ length: 10 }, (_, i) => leaf(20 + i)),
  );
  await assertNoProof(
    'batch_append_32_10',
    { ...bad.inputs, oldLeaves: ['5', ...(bad.inputs.oldLeaves as string[]).slice(1)] },
    'old leaf not in the tree',
  );
  await assertNoProof(
    'batch_append_32_10',
    { ...bad.inputs, leaves: ['5', ...(bad.inputs.leaves as string[]).slice(1)] },
    'leaves not matching the hash chain',
  );
  const badUpdate = updateInputs(nodes(s), [
    ...[8, 9, 10, 11, 13, 14, 16, 17, 18].map((i) => ({ leaf: leaf(i), leafIndex: i, txHash: txHash(i) })),
    { leaf: leaf(19), leafIndex: 19, txHash: txHash(19) },
  ]);
  await assertNoProof(
    'batch_update_32_10',
    { ...badUpdate.inputs, pathIndices: [...(badUpdate.inputs.pathIndices as string[]).slice(0, 9), '18'] },
    'a nullifier at another leaf than the account',
  );
});

/** A sparse tree in memory, to put leaves anywhere (the store's trees append in order). */
class MemoryTree implements NodeSource {
  private readonly nodes = new Map<string, bigint>();
  private readonly zeros: bigint[];
  constructor(readonly height: number) {
    this.zeros = zeroValues(height);
  }
  node(level: number, index: number): bigint {
    return this.nodes.get(`${level}:${index}`) ?? this.zeros[level]!;
  }
  set(index: number, leaf: bigint): void {
    let cur = leaf;
    for (let level = 0, i = index; level <= this.height; level++, i = Math.floor(i / 2)) {
      this.nodes.set(`${level}:${i}`, cur);
      const other = this.node(level, i % 2 === 0 ? i + 1 : i - 1);
      cur = i % 2 === 0 ? poseidon([cur, other]) : poseidon([other, cur]);
    }
  }
  root(): bigint {
    return this.node(this.height, 0);
  }
}

test('batch append (32 × 10): the range root holds for every alignment, up to the end of the tree', async () => {
  // The circuit hashes the union of the range's paths; where the range starts decides which boundary
  // siblings it takes. Witnesses only (the circuit's constraints are checked while computing them);
  // proofs are made in the test above.
  const key = await keys.ensure('batch_append_32_10');
  const wc = await buildWitnessCalculator(readFileSync(key.wasmPath));
  const witness = (inputs: CircuitInputs) => calculateWitness(wc, 'batch_append_32_10', inputs);
  const last = 2 ** 32 - 10;
  for (const start of [0, 1, 2, 3, 5, 6, 7, 10, 15, 16, 17, 22, 31, 1014, 1017, 2 ** 20 - 3, last - 1, last]) {
    const t = new MemoryTree(32);
    // Leaves on both sides of the range and a nullifier inside it, so every boundary sibling matters.
    for (const i of [start - 3, start - 1, start + 4, start + 10, start + 11, start + 40])
      if (i >= 0 && i < 2 ** 32) t.set(i, leaf(i));
    const leaves = Array.from({ length: 10 }, (_, i) => leaf(1000 + i));
    const a = appendInputs(t, start, leaves);
    assert.equal(a.oldRoot, t.root());
    leaves.forEach((l, i) => i !== 4 && t.set(start + i, l));
    assert.equal(a.newRoot, t.root(), `start ${start}: the new root keeps the leaf at ${start + 4}`);
    await witness(a.inputs);
    // A moved root or start (the public input recomputed to match) or a boundary sibling the range
    // uses, changed, is refused.
    const pih = (r: bigint, st: number) => hashChain([a.oldRoot, r, a.hashChain, BigInt(st)]).toString();
    const other = start === 0 ? 10 : start - 1;
    await assert.rejects(
      witness({ ...a.inputs, newRoot: String(a.newRoot + 1n), publicInputHash: pih(a.newRoot + 1n, start) }),
      UnsatisfiedWitnessError,
      `start ${start}: new root`,
    );
    await assert.rejects(
      witness({ ...a.inputs, startIndex: String(other), publicInputHash: pih(a.newRoot, other) }),
      UnsatisfiedWitnessError,
      `start ${start}: start index`,
    );
    const leftLevel = usedLevel((lv) => Math.floor(start / 2 ** lv) % 2 === 1);
    const rightLevel = usedLevel((lv) => Math.floor((start + 9) / 2 ** lv) % 2 === 0);
    if (start > 0) {
      assert.notEqual(leftLevel, undefined);
      await assert.rejects(
        witness({ ...a.inputs, leftSiblings: bump(a.inputs.leftSiblings, leftLevel!) }),
        UnsatisfiedWitnessError,
        `start ${start}: left sibling`,
      );
    }
    if (start < last) {
      assert.notEqual(rightLevel, undefined);
      await assert.rejects(
        witness({ ...a.inputs, rightSiblings: bump(a.inputs.rightSiblings, rightLevel!) }),
        UnsatisfiedWitnessError,
        `start ${start}: right sibling`,
      );
    }
    // A sibling the range does not use is not constrained (the witness builder sends zero there).
    if (leftLevel !== 0) await witness({ ...a.inputs, leftSiblings: bump(a.inputs.leftSiblings, 0) });
  }
  await assert.rejects(
    Promise.resolve().then(() => appendInputs(new MemoryTree(32), last + 1, Array(10).fill(1n))),
    /do not fit/,
  );
});

const bump = (values: CircuitInputs[string] | undefined, i: number): string[] =>
  (values as string[]).map((v, j) => (j === i ? (BigInt(v) + 1n).toString() : v));
/** The lowest level (of 32) where a boundary sibling is used, by the predicate. */
const usedLevel = (uses: (level: number) => boolean): number | undefined =>
  Array.from({ length: 32 }, (_, lv) => lv).find(uses);

test(
  'batch address append (40 × 10): low elements from the tree and from the batch',
  { timeout: 1_800_000 },
  async () => {
    const a = store.addressTree('addr');
    const first = Array.from({ length: 10 }, (_, i) => (BigInt(i + 1) << 240n) + 12345n);
    a.enqueue(first);
    const b1 = addressAppendInputs(indexed(a), a.info().nextIndex, first);
    assert.equal(b1.oldRoot, a.info().root);
    await proveBatch('batch_address_append_40_10', b1.inputs, b1.publicInputHash);
    assert.equal(a.batchInsert(10, 3n).root, b1.newRoot);
    assert.equal(a.info().nextIndex, 11);

    // Values between earlier ones, out of order, two sharing a low element within the batch.
    const second = [5n, 3n, 4n, ...first.slice(0, 7).map((v) => v + 7n)];
    a.enqueue(second);
    const b2 = addressAppendInputs(indexed(a), 11, second);
    await proveBatch('batch_address_append_40_10', b2.inputs, b2.publicInputHash);
    assert.equal(a.batchInsert(10, 4n).root, b2.newRoot);
    for (const v of [...first, ...second]) assert.equal(a.has(v), true);

    // A value not between its low element and the next one gives no proof.
    const third = Array.from({ length: 10 }, (_, i) => BigInt(1000 + i));
    const b3 = addressAppendInputs(indexed(a), 21, third);
    const lowValues = b3.inputs.lowElementValues as string[];
    await assertNoProof(
      'batch_address_append_40_10',
      { ...b3.inputs, lowElementValues: ['1001', ...lowValues.slice(1)] },
      'low element above the new value',
    );
  },
);
