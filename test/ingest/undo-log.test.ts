// The undo log under a followed cluster's index (--cluster-commitment confirmed), on a real LMDB
// environment: what blocks wrote while recorded is taken back exactly (every table's bytes as they
// were), final writes are not, a rollback survives a reopen, and forgetting a finalized slot keeps
// its writes for good.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { open, type RootDatabase } from 'lmdb';
import { UndoLog } from '../../src/ingest/undo-log.js';
import { tempDir } from '../helpers/gateway.js';

function tables(root: RootDatabase, undo: UndoLog) {
  return undo.watching(() => ({
    bin: root.openDB<Buffer, Buffer>({ name: 't-bin', keyEncoding: 'binary', encoding: 'binary' }),
    json: root.openDB<unknown, string>({ name: 't-json', encoding: 'json' }),
    packed: root.openDB<unknown, number>({ name: 't-msgpack' }),
  }));
}

/** Every table's raw contents, to compare byte for byte. */
function dump(root: RootDatabase, t: ReturnType<typeof tables>): string {
  const out: string[] = [];
  for (const [name, db] of Object.entries(t))
    for (const { key } of (db as RootDatabase).getRange())
      out.push(`${name} ${JSON.stringify(key)} ${(db as RootDatabase).getBinary(key)!.toString('hex')}`);
  return out.join('\n');
}

test('writes recorded under slots are taken back exactly; final writes and forgotten slots stay', async () => {
  const dir = tempDir();
  try {
    let root = open({ path: dir, maxDbs: 8, compression: false });
    let undo = new UndoLog(root);
    let t = tables(root, undo);
    // Final: not recorded.
    root.transactionSync(() => {
      void t.bin.put(Buffer.from('a'), Buffer.from('final-a'));
      void t.json.put('tree', { nextIndex: 3, root: 'r3' });
      void t.packed.put(7, { n: 1n });
    });
    const before = dump(root, t);
    // Slot 10: changes, adds, removes; slot 11: changes the same keys again.
    root.transactionSync(() =>
      undo.record(10n, () => {
        void t.bin.put(Buffer.from('a'), Buffer.from('slot10-a'));
        void t.bin.put(Buffer.from('b'), Buffer.from('slot10-b'));
        void t.json.put('tree', { nextIndex: 5, root: 'r5' });
        void t.packed.remove(7);
      }),
    );
    root.transactionSync(() =>
      undo.record(11n, () => {
        void t.bin.put(Buffer.from('a'), Buffer.from('slot11-a'));
        void t.bin.remove(Buffer.from('b'));
        void t.json.put('tree', { nextIndex: 6, root: 'r6' });
        void t.packed.put(7, { n: 2n });
      }),
    );
    assert.equal(undo.oldest(), 10n);
    const at11 = dump(root, t);
    assert.notEqual(at11, before);

    // A rollback from 11 leaves slot 10's writes; across a reopen, one from 10 leaves the final ones.
    root.transactionSync(() => assert.equal(undo.rollback(11n), 4));
    assert.equal(t.bin.get(Buffer.from('a'))!.toString(), 'slot10-a');
    assert.equal(t.bin.get(Buffer.from('b'))!.toString(), 'slot10-b');
    assert.deepEqual(t.json.get('tree'), { nextIndex: 5, root: 'r5' });
    assert.equal(t.packed.get(7), undefined);
    await root.close();
    root = open({ path: dir, maxDbs: 8, compression: false });
    undo = new UndoLog(root);
    t = tables(root, undo);
    assert.equal(undo.oldest(), 10n);
    root.transactionSync(() => assert.equal(undo.rollback(10n), 4));
    assert.equal(dump(root, t), before);
    assert.equal(undo.oldest(), undefined);

    // A forgotten (finalized) slot's writes are kept; a later slot's are still taken back.
    root.transactionSync(() => undo.record(12n, () => void t.json.put('tree', { nextIndex: 8, root: 'r8' })));
    root.transactionSync(() => undo.record(13n, () => void t.json.put('tree', { nextIndex: 9, root: 'r9' })));
    root.transactionSync(() => undo.forget(12n));
    assert.equal(undo.oldest(), 13n);
    root.transactionSync(() => undo.rollback(undo.oldest()!));
    assert.deepEqual(t.json.get('tree'), { nextIndex: 8, root: 'r8' });
    // A write recorded inside a nested transaction that fails is dropped with its record.
    root.transactionSync(() =>
      undo.record(14n, () => {
        try {
          root.transactionSync(() => {
            void t.json.put('tree', { nextIndex: 99, root: 'bad' });
            throw new Error('ingest failed');
          });
        } catch {
          // the block goes on without this transaction's writes
        }
        void t.json.put('other', 1);
      }),
    );
    assert.deepEqual(t.json.get('tree'), { nextIndex: 8, root: 'r8' });
    root.transactionSync(() => assert.equal(undo.rollback(14n), 1));
    assert.equal(t.json.get('other'), undefined);
    assert.deepEqual(t.json.get('tree'), { nextIndex: 8, root: 'r8' });
    await root.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a savepoint that throws takes back exactly what it wrote (nested ones too), with its undo records', async () => {
  const dir = tempDir();
  try {
    const root = open({ path: dir, maxDbs: 8, compression: false });
    const undo = new UndoLog(root);
    const t = tables(root, undo);
    root.transactionSync(() => {
      void t.bin.put(Buffer.from('a'), Buffer.from('final-a'));
      void t.json.put('tree', { nextIndex: 3 });
      void t.packed.put(7, { n: 1n });
    });
    const before = dump(root, t);
    // Outside a recorded slot: an inner savepoint that succeeds, then its outer one fails; both go.
    root.transactionSync(() => {
      assert.throws(
        () =>
          undo.savepoint(() => {
            void t.bin.put(Buffer.from('a'), Buffer.from('outer-a'));
            undo.savepoint(() => {
              void t.bin.put(Buffer.from('b'), Buffer.from('inner-b'));
              void t.packed.remove(7);
              void t.json.put('tree', { nextIndex: 4 });
            });
            // An inner one that fails leaves its outer one's earlier writes.
            assert.throws(() =>
              undo.savepoint(() => {
                void t.json.put('tree', { nextIndex: 99 });
                throw new Error('inner');
              }),
            );
            assert.deepEqual(t.json.get('tree'), { nextIndex: 4 });
            assert.equal(t.bin.get(Buffer.from('b'))!.toString(), 'inner-b');
            throw new Error('outer');
          }),
        /outer/,
      );
      assert.equal(dump(root, t), before);
      // One that succeeds keeps its writes.
      undo.savepoint(() => void t.json.put('kept', 1));
    });
    assert.equal(t.json.get('kept'), 1);
    // Inside a recorded slot: a failed savepoint's records go with its writes; the slot's others stay.
    const atSlot = dump(root, t);
    root.transactionSync(() =>
      undo.record(20n, () => {
        void t.json.put('kept', 2);
        assert.throws(() =>
          undo.savepoint(() => {
            void t.bin.put(Buffer.from('c'), Buffer.from('lost'));
            void t.json.put('kept', 3);
            throw new Error('ingest failed');
          }),
        );
        void t.bin.put(Buffer.from('d'), Buffer.from('slot20-d'));
      }),
    );
    assert.equal(t.bin.get(Buffer.from('c')), undefined);
    assert.equal(t.json.get('kept'), 2);
    root.transactionSync(() => assert.equal(undo.rollback(20n), 2));
    assert.equal(dump(root, t), atSlot);
    await root.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('savepoints keep writes in memory until they return; a range read inside sends them to LMDB, and a throw still takes back exactly its own, slot records included', async () => {
  const dir = tempDir();
  try {
    const root = open({ path: dir, maxDbs: 8, compression: false });
    const undo = new UndoLog(root);
    const t = tables(root, undo);
    const B = (s: string) => Buffer.from(s);
    const binKeys = () => [...t.bin.getKeys()].map((k) => k.toString());
    root.transactionSync(() => {
      void t.bin.put(B('a'), B('final-a'));
      void t.json.put('tree', { nextIndex: 3 });
      void t.packed.put(7, { n: 1n });
    });
    const before = dump(root, t);
    root.transactionSync(() =>
      undo.record(30n, () => {
        void t.json.put('kept', 'slot30');
        undo.savepoint(() => {
          void t.bin.put(B('x'), B('l1-x'));
          void t.bin.put(B('a'), B('l1-a'));
          // Point reads see the kept writes.
          assert.equal(t.bin.get(B('x'))!.toString(), 'l1-x');
          assert.equal(t.bin.getBinary(B('a'))!.toString(), 'l1-a');
          assert.equal(t.bin.doesExist(B('x')), true);
          assert.throws(
            () =>
              undo.savepoint(() => {
                void t.bin.put(B('y'), B('l2-y'));
                void t.bin.remove(B('x'));
                assert.equal(t.bin.get(B('x')), undefined);
                assert.equal(t.bin.doesExist(B('x')), false);
                void t.json.put('tree', { nextIndex: 4 });
                assert.deepEqual(t.json.get('tree'), { nextIndex: 4 });
                // A range read sees both savepoints' writes: they went to LMDB for it.
                assert.deepEqual(binKeys(), ['a', 'y']);
                // From then on writes go through, each recording what it replaced.
                void t.bin.put(B('z'), B('l2-z'));
                void t.packed.remove(7);
                throw new Error('inner');
              }),
            /inner/,
          );
          assert.deepEqual(binKeys(), ['a', 'x']);
          assert.equal(t.bin.get(B('a'))!.toString(), 'l1-a');
          assert.deepEqual(t.json.get('tree'), { nextIndex: 3 });
          assert.deepEqual(t.packed.get(7), { n: 1n });
          // A savepoint over one whose writes went to LMDB: kept, then written through as it returns.
          undo.savepoint(() => void t.json.put('tree', { nextIndex: 5 }));
          assert.deepEqual(t.json.get('tree'), { nextIndex: 5 });
          // A write LMDB's own encoding must make (msgpack) goes through at once.
          undo.savepoint(() => void t.packed.put(8, { n: 2n }));
        });
        // One that throws before anything went to LMDB: nothing of it remains.
        assert.throws(() =>
          undo.savepoint(() => {
            void t.json.put('kept', 'lost');
            void t.bin.put(B('w'), B('lost'));
            throw new Error('outer');
          }),
        );
      }),
    );
    assert.deepEqual(binKeys(), ['a', 'x']);
    assert.equal(t.json.get('kept'), 'slot30');
    assert.deepEqual(t.json.get('tree'), { nextIndex: 5 });
    assert.deepEqual(t.packed.get(8), { n: 2n });
    // The slot's records take back exactly what stayed: the bytes are as before it.
    root.transactionSync(() => undo.rollback(30n));
    assert.equal(dump(root, t), before);
    await root.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
