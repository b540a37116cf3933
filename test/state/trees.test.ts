// State and address trees on disk: empty roots of the spec, appends, nullification, root history,
// indexed-tree inserts and non-inclusion witnesses, sparseness, persistence across reopen.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { StateError, TreeStore, type LeafProof, type NonInclusionProof } from '../../src/state/index.js';
import { fromHex, HIGHEST_ADDRESS_PLUS_ONE } from '../../src/zk/field.js';
import { loadPoseidon, poseidon } from '../../src/zk/poseidon.js';
import { open } from 'lmdb';
import { UndoLog } from '../../src/ingest/undo-log.js';
import { tempDir } from '../helpers/gateway.js';

const dirs: string[] = [];
async function freshStore(): Promise<{ store: TreeStore; dir: string }> {
  const dir = tempDir('zkgate-state-');
  dirs.push(dir);
  return { store: await TreeStore.open(dir), dir };
}
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Recomputes the root from a leaf and its path with the circuits' bit convention. */
function rootFromPath(leaf: bigint, index: number, path: bigint[]): bigint {
  let cur = leaf;
  let i = index;
  for (const sib of path) {
    cur = i % 2 === 0 ? poseidon([cur, sib]) : poseidon([sib, cur]);
    i = Math.floor(i / 2);
  }
  return cur;
}

const assertLeafProof = (p: LeafProof) => assert.equal(rootFromPath(p.leaf, p.leafIndex, p.pathElements), p.root);

function assertNonInclusion(p: NonInclusionProof, version: 1 | 2): void {
  const low = p.lowElement;
  assert.ok(low.value < p.address && p.address < low.nextValue, 'low < address < next');
  const leaf =
    version === 1 ? poseidon([low.value, BigInt(low.nextIndex), low.nextValue]) : poseidon([low.value, low.nextValue]);
  assert.equal(rootFromPath(leaf, low.index, p.pathElements), p.root);
}

let store: TreeStore;
before(async () => {
  ({ store } = await freshStore());
});

describe('empty trees match the spec', () => {
  test('V1 and V2 state trees', () => {
    const v1 = store.registerTree({ pubkey: 'smtV1', kind: 'state', version: 1 });
    assert.equal(v1.root, fromHex('0x120c58f143d491e95902f7f5277778a2e0ad5168f6add75669932630ce611518'));
    assert.deepEqual([v1.height, v1.rootHistoryCapacity, v1.nextIndex, v1.rootSeq], [26, 2400, 0, 0n]);
    const v2 = store.registerTree({ pubkey: 'bmtV2', kind: 'state', version: 2 });
    assert.equal(v2.root, fromHex('0x2f68a1c58e257e42a17a6c61dff5551ed560b9922ab119d5ac8e184c9734ead9'));
    assert.deepEqual([v2.height, v2.rootHistoryCapacity], [32, 60]);
  });

  test('V1 address tree: two elements, root at sequence 3', () => {
    const a = store.registerTree({ pubkey: 'amtV1', kind: 'address', version: 1 });
    assert.equal(a.root, fromHex('0x218538b88ea66ea1048ca9f773210fb54c59307e3a56cc511079b94d4b982b0f'));
    assert.equal(a.rootSeq, 3n);
    assert.equal(a.nextIndex, 2);
    const t = store.addressTree('amtV1');
    assert.deepEqual(t.element(1), { index: 1, value: HIGHEST_ADDRESS_PLUS_ONE, nextIndex: 0, nextValue: 0n });
    assert.equal(t.rootRef().rootIndex, 3);
  });

  test('V2 address tree: one element, ADDRESS_TREE_INIT_ROOT_40', () => {
    const a = store.registerTree({ pubkey: 'amtV2', kind: 'address', version: 2 });
    assert.equal(a.root, fromHex('0x1c416bffd0ea3303835f3e82cab1b01ad85140b8c8195f7cf8812c6de5926a4c'));
    assert.deepEqual([a.height, a.rootHistoryCapacity, a.rootSeq, a.nextIndex], [40, 120, 0n, 1]);
  });

  test('registering twice or with a bad height is refused', () => {
    assert.throws(
      () => store.registerTree({ pubkey: 'smtV1', kind: 'state', version: 1 }),
      (e: unknown) => e instanceof StateError && e.kind === 'tree_exists',
    );
    assert.throws(
      () => store.registerTree({ pubkey: 'x', kind: 'state', version: 1, height: 41 }),
      /height must be 1 to 40/,
    );
    assert.throws(
      () => store.stateTree('nope'),
      (e: unknown) => e instanceof StateError && e.kind === 'tree_not_found',
    );
    assert.throws(() => store.stateTree('amtV1'), /is an address tree/);
  });
});

describe('state tree', () => {
  test('append: paths verify, root sequence counts leaves (V1) or batches (V2), leaves found by hash', () => {
    const t = store.stateTree('smtV1');
    const leaves = Array.from({ length: 37 }, (_, i) => poseidon([BigInt(i + 1)]));
    const r1 = t.append(leaves.slice(0, 10), 5n);
    assert.deepEqual([r1.firstIndex, r1.rootSeq, r1.rootIndex], [0, 10n, 10]);
    const r2 = t.append(leaves.slice(10), 6n);
    assert.deepEqual([r2.firstIndex, r2.rootSeq], [10, 37n]);
    for (const i of [0, 9, 10, 36]) {
      const p = t.proofByHash(leaves[i]!);
      assert.equal(p.leafIndex, i);
      assert.equal(p.pathElements.length, 26);
      assertLeafProof(p);
      assert.equal(p.root, r2.root);
    }
    assert.equal(t.info().slot, 6n);
    const v2 = store.stateTree('bmtV2');
    assert.equal(v2.append(leaves.slice(0, 5)).rootSeq, 1n);
    assert.equal(v2.append(leaves.slice(5, 7)).rootSeq, 2n);
    assertLeafProof(v2.proofByIndex(6));
  });

  test('V1 nullification zeroes the leaf and forgets its hash; V2 writes the nullifier', () => {
    const t = store.stateTree('smtV1');
    const leaf = t.leaf(3);
    const before = t.info().rootSeq;
    const r = t.nullify([{ leafIndex: 3 }]);
    assert.equal(r.rootSeq, before + 1n);
    assert.equal(t.leaf(3), 0n);
    assert.equal(t.findLeaf(leaf), undefined);
    assertLeafProof(t.proofByIndex(3));
    assert.throws(() => t.nullify([{ leafIndex: 3 }]), /already nullified/);
    assert.throws(() => t.nullify([{ leafIndex: 99 }]), /not in state tree/);

    const v2 = store.stateTree('bmtV2');
    const old = v2.leaf(2);
    v2.nullify([{ leafIndex: 2, txHash: 77n }]);
    assert.equal(v2.leaf(2), poseidon([old, 2n, 77n]));
    assertLeafProof(v2.proofByIndex(2));
  });

  test('the root history ring buffer keeps the last `capacity` roots with their sequence numbers', () => {
    store.registerTree({ pubkey: 'ring', kind: 'state', version: 2, rootHistoryCapacity: 3 });
    const t = store.stateTree('ring');
    const roots = [t.info().root];
    for (let i = 0; i < 5; i++) roots.push(t.append([BigInt(100 + i)]).root);
    assert.deepEqual(t.rootHistory(), [
      { rootSeq: 3n, root: roots[3] },
      { rootSeq: 4n, root: roots[4] },
      { rootSeq: 5n, root: roots[5] },
    ]);
    assert.equal(t.rootRef().rootIndex, 5 % 3);
  });

  test('a V1 batch (a sequence number per leaf) clears the slots of older roots it passes, its own root alone in them', () => {
    store.registerTree({ pubkey: 'ring1', kind: 'state', version: 1, height: 8, rootHistoryCapacity: 3 });
    const t = store.stateTree('ring1');
    const first = t.append([7n]).root;
    assert.deepEqual(
      t.rootHistory().map((r) => r.rootSeq),
      [0n, 1n],
    );
    assert.equal(t.rootHistory()[1]!.root, first);
    // Sequence numbers 2..5: the last is materialised; slots of 3 and 4 (which held 0 and 1) are cleared.
    const last = t.append([8n, 9n, 10n, 11n]).root;
    assert.deepEqual(t.rootHistory(), [{ rootSeq: 5n, root: last }]);
    assert.equal(t.rootRef().rootIndex, 5 % 3);
  });

  test('a full tree refuses appends', () => {
    store.registerTree({ pubkey: 'tiny', kind: 'state', version: 1, height: 2 });
    const t = store.stateTree('tiny');
    t.append([1n, 2n, 3n]);
    assert.throws(
      () => t.append([4n, 5n]),
      (e: unknown) => e instanceof StateError && e.kind === 'tree_full',
    );
    assert.equal(t.info().nextIndex, 3);
  });
});

describe('address tree', () => {
  for (const version of [1, 2] as const) {
    test(`V${version}: inserts keep the sorted linked list; witnesses verify; duplicates and big values refused`, () => {
      const t = store.addressTree(`amtV${version}`);
      const addrs = [50n, 10n, 30n, 1n << 200n, 20n];
      const r = t.insert(addrs, 9n);
      assert.equal(r.rootSeq, version === 1 ? 3n + 10n : 1n);
      for (const a of addrs) assert.ok(t.has(a));
      const p = t.nonInclusionProof(25n);
      assert.deepEqual([p.lowElement.value, p.lowElement.nextValue], [20n, 30n]);
      assertNonInclusion(p, version);
      assertNonInclusion(t.nonInclusionProof((1n << 200n) + 1n), version);
      assertNonInclusion(t.nonInclusionProof(5n), version);
      for (const bad of [30n, 0n, HIGHEST_ADDRESS_PLUS_ONE]) {
        assert.throws(
          () => t.nonInclusionProof(bad),
          (e: unknown) => e instanceof StateError && e.kind === 'address_exists',
        );
      }
      assert.throws(
        () => t.insert([1n << 248n]),
        (e: unknown) => e instanceof StateError && e.kind === 'address_out_of_range',
      );
      const before = t.info();
      assert.throws(
        () => t.insert([7n, 8n, 7n]),
        (e: unknown) => e instanceof StateError && e.kind === 'address_exists',
      );
      assert.deepEqual(t.info(), before, 'a failed batch changes nothing');
      assert.ok(!t.has(7n));
    });
  }
});

test('sparse: 2,000 leaves in a height-26 tree store about 2n nodes', async () => {
  const { store: s, dir } = await freshStore();
  s.registerTree({ pubkey: 'big', kind: 'state', version: 1 });
  s.stateTree('big').append(Array.from({ length: 2000 }, (_, i) => BigInt(i + 1)));
  const { openDbs } = await import('../../src/state/store.js');
  await s.close();
  const dbs = openDbs(dir);
  const nodes = dbs.nodes.getKeysCount();
  await dbs.root.close();
  assert.ok(nodes >= 2000 && nodes < 2 * 2000 + 26 + 20, `${nodes} nodes`);
});

test('persistence: reopening gives the same roots, paths and elements', async () => {
  const { store: s, dir } = await freshStore();
  s.registerTree({ pubkey: 'st', kind: 'state', version: 1 });
  s.registerTree({ pubkey: 'ad', kind: 'address', version: 2 });
  s.stateTree('st').append([11n, 22n, 33n]);
  s.addressTree('ad').insert([5n, 500n]);
  const before = {
    st: s.info('st'),
    ad: s.info('ad'),
    path: s.stateTree('st').proofByIndex(1),
    non: s.addressTree('ad').nonInclusionProof(50n),
  };
  await s.close();
  const again = await TreeStore.open(dir);
  assert.deepEqual(again.info('st'), before.st);
  assert.deepEqual(again.info('ad'), before.ad);
  assert.deepEqual(again.stateTree('st').proofByIndex(1), before.path);
  assert.deepEqual(again.addressTree('ad').nonInclusionProof(50n), before.non);
  assert.deepEqual(
    again
      .listTrees()
      .map((t) => t.pubkey)
      .sort(),
    ['ad', 'st'],
  );
  await again.close();
});

describe('queues in front of the trees (what user transactions do before a forester runs)', () => {
  test('V2 outputs wait in the output queue, provable by index; spending one queues its nullifier', async () => {
    const { store: s } = await freshStore();
    s.registerTree({ pubkey: 'bmt', kind: 'state', version: 2, queue: 'oq', ledger: true });
    const t = s.stateTree('bmt');
    const root = t.info().root;
    t.enqueue(0, [71n, 72n, 73n], 4n);
    assert.throws(() => t.enqueue(5, [74n]), /outputs start at 5, the queue's next index is 3/);
    const info = t.info();
    assert.deepEqual([info.root, info.rootSeq, info.nextIndex, info.outputNext, info.slot], [root, 0n, 0, 3, 4n]);
    assert.deepEqual(s.locateAccount(72n), { tree: 'bmt', leafIndex: 1, spent: false, queued: true });
    assert.equal(s.treeOfQueue('oq'), 'bmt');
    assert.deepEqual(t.queuedOutput(2), { hash: 73n, spent: false });

    assert.deepEqual(t.spend([{ hash: 72n, leafIndex: 1, txHash: 9n }]), [0]);
    assert.deepEqual(s.locateAccount(72n), { tree: 'bmt', leafIndex: 1, spent: true, queued: true });
    assert.deepEqual(t.queuedOutput(1), { hash: 72n, spent: true });
    assert.deepEqual(
      [...t.nullifierQueue()],
      [{ position: 0, hash: 72n, leafIndex: 1, nullifier: poseidon([72n, 1n, 9n]), txHash: 9n }],
    );
    assert.equal(t.info().inputNext, 1);
    assert.equal(t.info().root, root, 'the tree itself is unchanged');
    assert.throws(() => t.spend([{ hash: 72n, leafIndex: 1 }]), /already spent/);
    assert.throws(() => t.spend([{ hash: 71n, leafIndex: 2 }]), /is not leaf 2 of bmt/);
  });

  test('V1 spends go to the nullifier queue without touching the tree; addresses wait in the address queue', async () => {
    const { store: s } = await freshStore();
    s.registerTree({ pubkey: 'smt', kind: 'state', version: 1, queue: 'nfq' });
    s.registerTree({ pubkey: 'amt', kind: 'address', version: 1, queue: 'aq' });
    s.registerTree({ pubkey: 'amt2', kind: 'address', version: 2, addressNext: 1 });
    const t = s.stateTree('smt');
    t.append([5n, 6n]);
    const before = t.info();
    assert.deepEqual(t.spend([{ hash: 6n, leafIndex: 1 }]), [0]);
    assert.deepEqual([t.info().root, t.info().rootSeq], [before.root, before.rootSeq]);
    assert.deepEqual(s.locateAccount(6n), { tree: 'smt', leafIndex: 1, spent: true, queued: false });
    assert.deepEqual([...t.nullifierQueue()], [{ position: 0, hash: 6n, leafIndex: 1 }]);

    const a = s.addressTree('amt');
    const aRoot = a.info().root;
    assert.deepEqual(a.enqueue([1000n, 2000n]), [0, 1]);
    assert.ok(a.has(1000n));
    assert.equal(a.info().root, aRoot);
    assert.throws(
      () => a.enqueue([2000n]),
      (e: unknown) => e instanceof StateError && e.kind === 'address_exists',
    );
    assert.deepEqual(s.addressTree('amt2').enqueue([77n]), [1]);
    assert.deepEqual([...s.addressTree('amt2').addressQueue()], [{ position: 1, address: 77n }]);
  });
});

describe('deferred appends (a followed cluster’s blocks): the same trees as appending one by one', () => {
  /** A store in an environment of its own; with `savepoints`, nested transactions are the undo log's savepoints. */
  async function storeWith(savepoints: boolean): Promise<TreeStore> {
    await loadPoseidon();
    const dir = tempDir('zkgate-state-');
    dirs.push(dir);
    const root = open({ path: dir, maxDbs: 32, compression: false });
    const undo = new UndoLog(root);
    const s = undo.watching(() => root.transactionSync(() => TreeStore.attach(root)));
    if (savepoints) s.useSavepoints((fn) => undo.savepoint(fn));
    for (const pubkey of ['t1', 't2']) s.registerTree({ pubkey, kind: 'state', version: 1, rootHistoryCapacity: 16 });
    return s;
  }
  const leaf = (i: number) => poseidon([BigInt(i + 1000)]);

  for (const savepoints of [false, true])
    test(`with ${savepoints ? 'savepoints' : 'LMDB nested transactions'}: reads, nullifies and failures in between`, async () => {
      const plain = await storeWith(savepoints);
      const deferred = await storeWith(savepoints);
      // What both do, in order; `nested` runs the step in a nested transaction, `fail` makes it throw after.
      const steps: { tree: string; op: 'append' | 'nullify' | 'read'; n: number; fail?: boolean }[] = [
        { tree: 't1', op: 'append', n: 3 },
        { tree: 't2', op: 'append', n: 2 },
        { tree: 't1', op: 'append', n: 4 },
        { tree: 't1', op: 'append', n: 5, fail: true },
        { tree: 't1', op: 'read', n: 6 },
        { tree: 't1', op: 'append', n: 2 },
        { tree: 't1', op: 'nullify', n: 1 },
        { tree: 't2', op: 'append', n: 3, fail: true },
        { tree: 't1', op: 'append', n: 1 },
        { tree: 't2', op: 'append', n: 2 },
      ];
      let next = 0;
      const run = (s: TreeStore, reads: bigint[][]) => {
        for (const st of steps) {
          const t = s.stateTree(st.tree);
          try {
            s.transaction(() => {
              if (st.op === 'append')
                t.append(
                  Array.from({ length: st.n }, () => leaf(next++)),
                  9n,
                );
              else if (st.op === 'nullify') t.nullify([{ leafIndex: st.n }], 9n);
              else reads.push(t.proofByIndex(st.n).pathElements);
              // A read in a failing step hashes the deferred leaves in; the failure takes that back too.
              if (st.fail) {
                reads.push([t.node(26, 0)]);
                throw new Error('skipped event');
              }
            });
          } catch (e) {
            if (!st.fail) throw e;
          }
        }
      };
      const plainReads: bigint[][] = [];
      const deferredReads: bigint[][] = [];
      next = 0;
      run(plain, plainReads);
      next = 0;
      deferred.deferringAppends(() => {
        const before = deferred.info('t1').root;
        run(deferred, deferredReads);
        // Inside the scope the next index is current; the root catches up when the scope ends.
        assert.equal(deferred.info('t1').nextIndex, plain.info('t1').nextIndex);
        assert.equal(deferred.info('t2').root, before);
      });
      assert.deepEqual(deferredReads, plainReads);
      for (const tree of ['t1', 't2']) {
        const [a, b] = [plain.info(tree), deferred.info(tree)];
        assert.deepEqual([b.nextIndex, b.rootSeq, b.root], [a.nextIndex, a.rootSeq, a.root]);
        assert.equal(b.slot, 9n);
        for (let i = 0; i < a.nextIndex; i++)
          assert.deepEqual(deferred.stateTree(tree).proofByIndex(i), plain.stateTree(tree).proofByIndex(i));
        // The ring holds the final root at its sequence number (roots in between are never served).
        assert.deepEqual(deferred.stateTree(tree).rootHistory().at(-1), plain.stateTree(tree).rootHistory().at(-1));
      }
      assert.equal(plain.info('t1').nextIndex, 3 + 4 + 2 + 1);
    });
});
