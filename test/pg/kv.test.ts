// The index's tables on a real Postgres (--index-db): the same operations on LMDB and on Postgres
// leave the same tables and answer the same ranges; transactions and savepoints commit or vanish
// whole; trees built on Postgres give LMDB's roots and proofs; readers see one snapshot per
// synchronous run; a newer schema is refused naming both versions; a Postgres that stops fails
// calls at once with a clear error, and one that comes back is used again.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { open, type RootDatabase } from 'lmdb';
import { BalanceDeltas, CompressionStore } from '../../src/compression/store.js';
import { UndoLog } from '../../src/ingest/undo-log.js';
import { byteaArray, PgRoot } from '../../src/pg/kv.js';
import { migrate, SCHEMA_VERSION } from '../../src/pg/schema.js';
import { IndexDbUnavailableError, redactDbUrl, SyncPg } from '../../src/pg/sync-pg.js';
import { TreeStore } from '../../src/state/index.js';
import { loadPoseidon, poseidon } from '../../src/zk/poseidon.js';
import { tempDir } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

let pg: TestPostgres;
const dirs: string[] = [];
const clients: SyncPg[] = [];
before(async () => {
  pg = await startPostgres();
  await loadPoseidon();
});
after(() => {
  for (const c of clients) c.close();
  pg?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function connect(timeoutMs = 5000): SyncPg {
  const c = new SyncPg({ url: pg.url, timeoutMs });
  clients.push(c);
  return c;
}

/** A fresh schema for one test: its own database. */
let dbs = 0;
function freshDb(): string {
  const name = `t${++dbs}`;
  connect().query('writer', [{ sql: `CREATE DATABASE ${name}` }]);
  return pg.url.replace(/\/zkgate$/, `/${name}`);
}

function lmdb(): RootDatabase {
  const dir = tempDir('zkgate-kv-');
  dirs.push(dir);
  return open({ path: dir, maxDbs: 32, compression: false });
}

type Any = RootDatabase<any, any>;
function tablesOf(root: Any) {
  return {
    bin: root.openDB({ name: 't-bin', keyEncoding: 'binary', encoding: 'binary' }) as Any,
    json: root.openDB({ name: 't-json', encoding: 'json' }) as Any,
    packed: root.openDB({ name: 't-msgpack' }) as Any,
  };
}

/** Every table's keys and values, as each engine's API gives them back. */
function dump(t: ReturnType<typeof tablesOf>): unknown {
  return Object.fromEntries(
    Object.entries(t).map(([name, db]) => [
      name,
      [...db.getRange()].map(({ key, value }) => [
        Buffer.isBuffer(key) ? key.toString('hex') : key,
        Buffer.isBuffer(value) ? value.toString('hex') : value,
      ]),
    ]),
  );
}

test('tables on Postgres read as LMDB’s: encodings, ranges both ways with limits, counts, transactions and savepoints', () => {
  const sync = new SyncPg({ url: freshDb(), timeoutMs: 5000 });
  clients.push(sync);
  migrate(sync, 'test');
  const engines = [lmdb() as Any, new PgRoot(sync) as unknown as Any];
  const views = engines.map((root) => {
    const t = tablesOf(root);
    root.transactionSync(() => {
      for (let i = 0; i < 1200; i++) void t.bin.put(Buffer.from([i >> 8, i & 255, 7]), Buffer.from(`v${i}`));
      for (const s of ['b', 'a', 'c', 'ab']) void t.json.put(s, { s, n: s.length, list: [1, 2] });
      for (const k of [5, 300, 2 ** 40, [3, 1], [3, 0], [2, 9]]) void t.packed.put(k, { k, big: 5n });
      void t.bin.remove(Buffer.from([0, 5, 7]));
    });
    // A transaction that throws leaves nothing; a savepoint that throws leaves its transaction's other writes.
    assert.throws(() =>
      root.transactionSync(() => {
        void t.json.put('lost', 1);
        throw new Error('no');
      }),
    );
    root.transactionSync(() => {
      void t.json.put('kept', 1);
      assert.throws(() =>
        root.transactionSync(() => {
          void t.json.put('kept', 2);
          void t.json.put('gone', 3);
          throw new Error('inner');
        }),
      );
      assert.equal(t.json.get('kept'), 1);
      root.transactionSync(() => void t.packed.remove(300));
    });
    // Nested transactions whose writes a range read sent to Postgres (there, a SAVEPOINT each), three
    // deep: each one taken back or kept on its own.
    const deep = () => [...t.json.getKeys({ start: 'deep', end: 'deeq' })];
    root.transactionSync(() => {
      void t.json.put('deep0', 0);
      root.transactionSync(() => {
        void t.json.put('deep1', 1);
        assert.throws(() =>
          root.transactionSync(() => {
            void t.json.put('deep2', 2);
            void t.json.put('deep0', 'overwritten');
            assert.deepEqual(deep(), ['deep0', 'deep1', 'deep2']);
            void t.json.put('deep3', 3);
            throw new Error('inner');
          }),
        );
        assert.equal(t.json.get('deep0'), 0);
        assert.equal(t.json.get('deep2'), undefined);
        void t.json.remove('deep1');
        assert.deepEqual(deep(), ['deep0']);
        void t.json.put('deep4', 4);
      });
      assert.throws(() =>
        root.transactionSync(() => {
          void t.json.put('deep5', 5);
          assert.equal(t.json.getCount({ start: 'deep', end: 'deeq' }), 3);
          throw new Error('inner');
        }),
      );
      assert.equal(t.json.get('deep5'), undefined);
      assert.deepEqual(deep(), ['deep0', 'deep4']);
    });
    const ranges = [
      [...t.bin.getRange({ start: Buffer.from([1, 0]), end: Buffer.from([3, 0]), limit: 700 })].length,
      [...t.bin.getKeys({ start: Buffer.from([4, 200]), reverse: true, limit: 3 })].map((k: Buffer) =>
        k.toString('hex'),
      ),
      [...t.bin.getRange({ start: Buffer.from([2]), end: Buffer.from([1, 250]), reverse: true })].length,
      t.bin.getCount({ start: Buffer.from([0]), end: Buffer.from([1]) }),
      [...t.json.getKeys({ start: 'a', end: 'b' })],
      [...t.packed.getKeys({ start: [3], end: [4] })],
      t.packed.get(2 ** 40),
      t.bin.doesExist(Buffer.from([0, 5, 7])),
      t.json.get('missing'),
    ];
    return { dump: dump(t), ranges };
  });
  assert.deepEqual(views[1], views[0]);
  assert.equal((views[0]!.ranges[0] as number) > 500, true, 'a range longer than one page of rows');
});

test('bytea arrays go in Postgres’s binary form: empty arrays, empty and long elements come back as sent', () => {
  const sync = connect();
  for (const items of [[], [Buffer.alloc(0)], [Buffer.from([0, 255, 7]), Buffer.alloc(0), Buffer.alloc(70_000, 9)]]) {
    const [r] = sync.query<{ a: Uint8Array[] }>('writer', [
      { sql: 'SELECT $1::bytea[] AS a', params: [byteaArray(items)] },
    ]);
    assert.deepEqual(
      r!.a.map((b) => Buffer.from(b).toString('hex')),
      items.map((b) => b.toString('hex')),
    );
  }
});

test('balances summed over a run (one read each, ahead, on Postgres) equal balances written per transaction; a failed one’s are taken back', () => {
  const sync = new SyncPg({ url: freshDb(), timeoutMs: 5000 });
  clients.push(sync);
  migrate(sync, 'test');
  const owner = (i: number) => Buffer.alloc(32, i);
  const mint = (i: number) => Buffer.alloc(32, 100 + i);
  // Two runs of transactions' balance changes: [owner, lamports, token changes, fails after writing
  // them]; the first only credits, the second also debits, and changes that sum to zero.
  type Tx = [number, bigint, [number, bigint][], boolean];
  const rounds: Tx[][] = [[], []];
  for (let i = 0; i < 60; i++) {
    rounds[0]!.push([i % 7, BigInt((i % 11) + 1) * 1000n, [[i % 3, 10n]], i % 9 === 4]);
    rounds[1]!.push([i % 7, BigInt((i % 5) - 2) * 100n, [[i % 3, BigInt((i % 3) - 1)]], i % 8 === 3]);
  }
  rounds[1]!.push([7, 5n, [[0, 5n]], false], [7, -5n, [[0, -5n]], false], [8, 0n, [[1, 0n]], false]);
  const tables = (root: Any) =>
    ['cmp-owner-balances', 'cmp-token-balances', 'cmp-mint-holders'].map((name) =>
      [...root.openDB({ name, keyEncoding: 'binary', encoding: 'binary' }).getRange()].map(({ key, value }) => [
        Buffer.from(key).toString('hex'),
        Buffer.from(value).toString('hex'),
      ]),
    );
  const run = (root: Any, deferred: boolean) => {
    const store = new CompressionStore(root);
    // Balances start non-zero: the first run writes them one transaction at a time.
    for (const [r, txs] of rounds.entries()) {
      const body = () => {
        for (const [o, lamports, tokens, fails] of txs) {
          const one = () => {
            const d = new BalanceDeltas();
            d.lamports(owner(o), lamports);
            for (const [m, amount] of tokens) d.tokens(owner(o), mint(m), amount);
            store.applyBalances(d);
            if (fails) throw new Error('a transaction ingest fails on');
          };
          if (fails) assert.throws(() => root.transactionSync(() => store.balancesTransaction(one)), /ingest fails/);
          else root.transactionSync(() => store.balancesTransaction(one));
        }
      };
      root.transactionSync(() => (deferred && r === 1 ? store.deferringBalances(body) : body()));
    }
    return tables(root);
  };
  const perTransaction = run(lmdb() as Any, false);
  assert.deepEqual(run(lmdb() as Any, true), perTransaction);
  assert.deepEqual(run(new PgRoot(sync) as unknown as Any, true), perTransaction);
  assert.ok(perTransaction.every((t) => t.length > 3));
});

test('trees on Postgres give LMDB’s roots and proofs, deferred appends, savepoints and the undo log included', () => {
  const sync = new SyncPg({ url: freshDb(), timeoutMs: 5000 });
  clients.push(sync);
  migrate(sync, 'test');
  const results = [lmdb() as Any, new PgRoot(sync) as unknown as Any].map((root) => {
    const undo = new UndoLog(root);
    const trees = undo.watching(() => root.transactionSync(() => TreeStore.attach(root)));
    const pgRoot = root instanceof PgRoot ? root : undefined;
    trees.useSavepoints((fn) => (pgRoot ? pgRoot.savepoint(fn) : undo.savepoint(fn)));
    trees.registerTree({ pubkey: 'state', kind: 'state', version: 1, rootHistoryCapacity: 8 });
    trees.registerTree({ pubkey: 'addr', kind: 'address', version: 2 });
    let n = 0;
    const leaves = (k: number) => Array.from({ length: k }, () => poseidon([BigInt(++n)]));
    root.transactionSync(() =>
      trees.deferringAppends(() => {
        trees.transaction(() => trees.stateTree('state').append(leaves(5), 3n));
        assert.throws(() =>
          trees.transaction(() => {
            trees.stateTree('state').append(leaves(4), 3n);
            throw new Error('skipped event');
          }),
        );
        trees.transaction(() => trees.stateTree('state').append(leaves(3), 4n));
        trees.transaction(() => trees.stateTree('state').nullify([{ leafIndex: 1 }], 4n));
        trees.transaction(() => trees.addressTree('addr').insert([123456789n, 42n], 4n));
      }),
    );
    // A block recorded under a slot, then taken back.
    root.transactionSync(() => undo.record(5n, () => trees.stateTree('state').append(leaves(2), 5n)));
    const before = trees.info('state');
    root.transactionSync(() => undo.rollback(5n));
    const state = trees.stateTree('state');
    return {
      info: trees.info('state'),
      before: [before.nextIndex, before.root],
      proofs: [0, 1, 7].map((i) => state.proofByIndex(i)),
      address: trees.addressTree('addr').nonInclusionProof(77n),
    };
  });
  assert.deepEqual(results[1], results[0]);
  assert.equal(results[0]!.info.nextIndex, 8);
});

test('readers see one snapshot per synchronous run (keys read ahead with it); the next run sees what was committed since', async () => {
  const url = freshDb();
  let answers = 0;
  const a = new SyncPg({ url, timeoutMs: 5000, onAnswer: () => answers++ });
  const b = new SyncPg({ url, timeoutMs: 5000 });
  clients.push(a, b);
  migrate(a, 'test');
  const reader = new PgRoot(a);
  const writer = new PgRoot(b);
  const r = reader.openDB({ name: 'snap', encoding: 'json' });
  const w = writer.openDB({ name: 'snap', encoding: 'json' });
  w.putSync('x', 1);
  assert.equal(r.get('x'), 1);
  w.putSync('x', 2);
  w.putSync('y', 2);
  assert.equal(r.get('x'), 1, 'the same synchronous run: the same snapshot');
  assert.equal(r.get('y'), undefined);
  await new Promise((res) => setImmediate(res));
  assert.deepEqual([r.get('x'), r.get('y')], [2, 2]);
  // Keys read ahead belong to the snapshot they were read in.
  await new Promise((res) => setImmediate(res));
  r.prefetch(['x', 'y', 'z']);
  w.putSync('x', 3);
  w.putSync('z', 3);
  assert.deepEqual([r.get('x'), r.get('y'), r.get('z')], [2, 2, undefined]);
  await new Promise((res) => setImmediate(res));
  assert.deepEqual([r.get('x'), r.get('z')], [3, 3]);
  // A key read again in one snapshot is not asked for again.
  await new Promise((res) => setImmediate(res));
  const before = answers;
  assert.deepEqual([r.get('x'), r.get('x'), r.get('nothing'), r.get('nothing')], [3, 3, undefined, undefined]);
  assert.equal(answers - before, 2);
});

test('schema: migrated once, refused when newer than this zkgate, naming both versions; the password redacted', () => {
  const url = freshDb();
  const sync = new SyncPg({ url, timeoutMs: 5000 });
  clients.push(sync);
  assert.equal(migrate(sync, 'test'), 0);
  assert.equal(migrate(sync, 'test'), SCHEMA_VERSION);
  sync.query('writer', [{ sql: 'INSERT INTO zkgate_schema (version) VALUES ($1)', params: [SCHEMA_VERSION + 1] }]);
  assert.throws(
    () => migrate(sync, '9.9.9'),
    (e: Error) =>
      e.message.includes(`schema version ${SCHEMA_VERSION + 1}`) &&
      e.message.includes(`up to ${SCHEMA_VERSION}`) &&
      e.message.includes('9.9.9'),
  );
  assert.equal(
    redactDbUrl('postgresql://u:secret@h:5/db?sslmode=require'),
    'postgresql://u:***@h:5/db?sslmode=require',
  );
});

test('a Postgres that stops fails calls at once with a clear error; when it is back the same client works again', () => {
  const sync = connect(2000);
  const root = new PgRoot(sync);
  const t = root.openDB({ name: 'outage', encoding: 'json' });
  t.putSync('a', 1);
  pg.stop();
  try {
    assert.throws(
      () => root.transactionSync(() => void t.put('a', 2)),
      (e: Error) => e instanceof IndexDbUnavailableError && /unreachable|did not answer/.test(e.message),
    );
    assert.throws(() => t.get('a'), IndexDbUnavailableError);
  } finally {
    pg.start();
  }
  assert.equal(t.get('a'), 1);
  t.putSync('a', 3);
  assert.equal(t.get('a'), 3);
});

test('a Postgres that hangs costs one timeout: later calls fail at once until a probe finds it answering', async () => {
  const sync = connect(1500);
  const root = new PgRoot(sync);
  const t = root.openDB({ name: 'hang', encoding: 'json' });
  t.putSync('a', 1);
  await new Promise((r) => setImmediate(r));
  pg.freeze();
  try {
    assert.throws(
      () => t.get('a'),
      (e: Error) => e instanceof IndexDbUnavailableError && /did not answer within 1500 ms$/.test(e.message),
    );
    // No round trip now: the message says calls fail at once.
    for (const call of [() => t.get('a'), () => t.putSync('a', 2)])
      assert.throws(call, (e: Error) => e instanceof IndexDbUnavailableError && /fail at once/.test(e.message));
  } finally {
    pg.thaw();
  }
  // The probe finds the server again; the next turns of the event loop hear of it.
  let value: unknown;
  for (let i = 0; i < 200 && value === undefined; i++) {
    await new Promise((r) => setTimeout(r, 100));
    try {
      value = t.get('a');
    } catch (e) {
      assert.ok(e instanceof IndexDbUnavailableError);
    }
  }
  assert.equal(value, 1);
  t.putSync('a', 3);
  await new Promise((r) => setImmediate(r));
  assert.equal(t.get('a'), 3);
});

test('at 1,000,000 accounts every query shape the index sends is an index scan, never a sequential scan', () => {
  const url = freshDb();
  const seen: { sql: string; params: unknown[] }[] = [];
  /** SyncPg as it is, keeping the SELECTs it sends (to EXPLAIN them afterwards with their parameters). */
  class Recording extends SyncPg {
    override query<R>(conn: string, statements: { sql: string; params?: unknown[] }[]): R[] {
      for (const s of statements) if (/^SELECT/.test(s.sql)) seen.push({ sql: s.sql, params: s.params ?? [] });
      return super.query<R>(conn, statements);
    }
  }
  const sync = new Recording({ url, timeoutMs: 120_000 });
  clients.push(sync);
  migrate(sync, 'test');
  const root = new PgRoot(sync);
  // The tables the account queries read: accounts by hash, and the owner index (owner ‖ hash keys).
  const accounts = root.openDB({ name: 'cmp-accounts-v2', keyEncoding: 'binary', encoding: 'binary' });
  const byOwner = root.openDB({ name: 'cmp-by-owner', keyEncoding: 'binary', encoding: 'binary' });
  sync.query('writer', [
    {
      sql: `INSERT INTO ${accounts.sql} SELECT sha256(int8send(i)), int8send(i) FROM generate_series(1, 1000000) i`,
    },
    {
      // 1,000 owners of 1,000 accounts each.
      sql: `INSERT INTO ${byOwner.sql} SELECT sha256(int8send(i % 1000)) || sha256(int8send(i)), ''::bytea FROM generate_series(1, 1000000) i`,
    },
    { sql: `ANALYZE ${accounts.sql}` },
    { sql: `ANALYZE ${byOwner.sql}` },
  ]);
  const someHash = sync.query<{ k: Uint8Array }>('writer', [{ sql: `SELECT k FROM ${accounts.sql} LIMIT 1` }])[0]!.k;
  const owner = sync.query<{ h: Uint8Array }>('writer', [{ sql: `SELECT sha256(int8send(7::bigint)) AS h` }])[0]!.h;
  seen.length = 0;
  const prefix = Buffer.from(owner);
  // The first key past the owner's: the prefix plus one, carried.
  const after = Buffer.from(prefix);
  for (let i = 31; i >= 0 && ++after[i]! === 256; i--) after[i] = 0;
  assert.ok(accounts.get(Buffer.from(someHash)));
  assert.equal([...byOwner.getKeys({ start: prefix, end: after, limit: 600 })].length, 600);
  assert.equal([...byOwner.getKeys({ start: prefix, end: after })].length, 1000, 'pages of 500 rows');
  assert.equal(byOwner.getCount({ start: prefix, end: after }), 1000);
  assert.equal([...byOwner.getRange({ start: after, end: prefix, reverse: true, limit: 3 })].length, 3);
  assert.equal(accounts.doesExist(Buffer.alloc(32)), false);
  // Keys read ahead inside a transaction (a run's balances): one statement for them all.
  root.transactionSync(() => {
    accounts.prefetch([Buffer.from(someHash), Buffer.alloc(32), Buffer.alloc(32, 1)]);
    assert.ok(accounts.get(Buffer.from(someHash)));
    assert.equal(accounts.get(Buffer.alloc(32)), undefined);
  });
  assert.ok(seen.some((s) => /= ANY/.test(s.sql)));
  assert.ok(seen.length >= 7);
  for (const s of seen) {
    const [plan] = sync.query<{ 'QUERY PLAN': unknown }>('writer', [
      { sql: `EXPLAIN (FORMAT JSON) ${s.sql}`, params: s.params },
    ]);
    const text = JSON.stringify(plan!['QUERY PLAN']);
    assert.doesNotMatch(text, /Seq Scan/, `${s.sql}: ${text}`);
    assert.match(text, /Index (Only )?Scan/, s.sql);
  }
});
