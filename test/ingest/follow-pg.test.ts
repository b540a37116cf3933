// Two fronts on one Postgres (--index-db) following zkgate's dev chain A: one writes (it holds the
// writer's lease), the other serves what it wrote; both answer as A's own Photon does. The writer
// killed -9 during backfill and at the tip: the other takes over and catches up, nothing doubled
// or lost. Postgres
// stopped: the fronts answer a clear error meanwhile and recover without a restart.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Keypair, LAMPORTS_PER_SOL, type Connection } from '@solana/web3.js';
import { startCli, type RunningGateway } from '../helpers/cli.js';
import {
  startTestGateway,
  stopWithConnection,
  tempDir,
  TEST_KEY,
  web3Connection,
  type TestGateway,
} from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { SyncPg } from '../../src/pg/index.js';
import { call, rpcOf, compressInTurn, slowBlocks } from './helpers.js';

let pg: TestPostgres;
let a: TestGateway;
let conn: Connection;
const payer = Keypair.generate();
const dirs: string[] = [];
let sent = 0;

/** Compresses 0.001 SOL `n` times, V1 and V2 trees in turn. */
async function compressions(n: number): Promise<void> {
  sent = await compressInTurn(conn, payer, n, sent);
}

const slotOf = async (url: string, commitment: string) =>
  (await call(url, 'getSlot', [{ commitment }])).result as number;

/** `url`'s index at or past what A has confirmed now. */
async function caughtUp(url: string): Promise<void> {
  const target = await slotOf(a.url, 'confirmed');
  for (;;) {
    const r = await call(url, 'getIndexerSlot');
    if (typeof r.result === 'number' && r.result >= target) return;
    await new Promise((res) => setTimeout(res, 100));
  }
}

const owner = () => payer.publicKey.toBase58();
const QUERIES = () =>
  [
    ['getCompressedAccountsByOwner', { owner: owner() }],
    ['getCompressedBalanceByOwner', { owner: owner() }],
    ['getCompressionSignaturesForOwner', { owner: owner() }],
  ] as const;

/** Each front's Photon answers equal A's, exactly but for context.slot. */
async function sameAsA(...urls: string[]): Promise<void> {
  for (const [method, params] of QUERIES()) {
    const [fromA, ...others] = await Promise.all([a.url, ...urls].map((u) => call(u, method, params)));
    const strip = (r: { result?: unknown; error?: unknown }) => ({
      ...(r.result as object),
      error: r.error,
      context: null,
    });
    for (const o of others) assert.deepEqual(strip(o), strip(fromA!), method);
  }
}

/** `url` lists each of the owner's compressions once. */
async function eachSignatureOnce(url: string): Promise<void> {
  const sigs = (await call(url, 'getCompressionSignaturesForOwner', { owner: owner() })).result as {
    value: { items: { signature: string }[] };
  };
  const names = sigs.value.items.map((i) => i.signature);
  assert.equal(new Set(names).size, names.length, 'no signature twice');
  assert.equal(names.length, sent);
}

async function front(db = pg.url, cluster = a.url): Promise<RunningGateway> {
  const dir = tempDir();
  dirs.push(dir);
  const g = await startCli([
    ...['--cluster-rpc', cluster, '--index-db', db, '--index-db-timeout-ms', '3000'],
    ...['--data-dir', dir, '--api-keys', TEST_KEY, '--rate-limit', '0'],
  ]);
  // Its banner does not print a key given with --api-keys.
  return { ...g, url: `${g.base}?api-key=${TEST_KEY}` };
}

before(async () => {
  pg = await startPostgres();
  a = await startTestGateway({ slotTimeMs: 20 }, {}, { ledger: true });
  conn = web3Connection(a);
  await conn.confirmTransaction(await conn.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL), 'confirmed');
  await compressions(6);
});
after(async () => {
  await stopWithConnection(a, conn);
  pg?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test(
  'the writer killed -9 during backfill: the other front takes over from the checkpoint; nothing doubled or lost',
  { timeout: 300_000 },
  async () => {
    // An empty index of its own, and a history long enough to be killed in.
    const admin = new SyncPg({ url: pg.url, timeoutMs: 5000 });
    admin.query('writer', [{ sql: 'CREATE DATABASE backfill' }]);
    admin.close();
    const db = pg.url.replace(/\/zkgate$/, '/backfill');
    const first = (await call(a.url, 'getFirstAvailableBlock')).result as number;
    while ((await slotOf(a.url, 'finalized')) < first + 1500) await new Promise((res) => setTimeout(res, 200));
    // Its blocks 10 ms late: about 1,500 blocks, 8 at a time, take two seconds or more to read, so
    // the kill at a third lands before the end however fast the writer applies them.
    const slow = await slowBlocks(a.url, 10);
    const w1 = await front(db, slow.url);
    const w2 = await front(db, slow.url);
    try {
      const tip = await slotOf(a.url, 'finalized');
      // w2 reads the checkpoint w1 writes.
      const third = first + Math.floor((tip - first) / 3);
      for (;;) {
        const s = (await call(w2.url, 'getIndexerSlot')).result as number;
        if (s >= third) break;
        await new Promise((res) => setTimeout(res, 20));
      }
      w1.child.kill('SIGKILL');
      await w1.exited;
      const at = (await call(w2.url, 'getIndexerSlot')).result as number;
      assert.ok(at < tip, `killed during backfill (indexed through ${at}, the tip ${tip})`);
      await caughtUp(w2.url);
      await sameAsA(w2.url);
      await eachSignatureOnce(w2.url);
    } finally {
      for (const w of [w1, w2]) if (w.child.exitCode === null) w.child.kill('SIGKILL');
      await slow.close();
    }
  },
);

test(
  'two fronts on one Postgres: one writes, both answer as the cluster; the writer killed -9, the other takes over',
  { timeout: 300_000 },
  async () => {
    const w = await front();
    let r: TestGateway | undefined;
    try {
      await caughtUp(w.url);
      r = await startTestGateway({ clusterRpc: a.url, indexDb: pg.url, indexDbTimeoutMs: 3000 });
      assert.equal(
        r.gateway.cluster!.writing(),
        undefined,
        'the second front does not write: the first holds the lease',
      );
      await caughtUp(r.url);
      await sameAsA(w.url, r.url);
      // Both read the one checkpoint: the second front's slot lies between two of the first's.
      const s1 = (await call(w.url, 'getIndexerSlot')).result as number;
      const s2 = (await call(r.url, 'getIndexerSlot')).result as number;
      const s3 = (await call(w.url, 'getIndexerSlot')).result as number;
      assert.ok(s1 <= s2 && s2 <= s3, `${s1} <= ${s2} <= ${s3}`);
      // An unmodified stateless.js against the front that does not write.
      const rpc = rpcOf(a, r);
      assert.equal((await rpc.getCompressedBalanceByOwner(payer.publicKey)).toNumber(), sent * 1_000_000);

      // The writer killed -9 at the tip, with more Light transactions after it.
      w.child.kill('SIGKILL');
      await w.exited;
      await compressions(3);
      while (!r.gateway.cluster!.writing()) await new Promise((res) => setTimeout(res, 100));
      await caughtUp(r.url);
      await sameAsA(r.url);
      const balance = (await call(r.url, 'getCompressedBalanceByOwner', { owner: owner() })).result as {
        value: number;
      };
      assert.equal(balance.value, sent * 1_000_000, 'every compression counted once');
      await eachSignatureOnce(r.url);
    } finally {
      if (w.child.exitCode === null) w.child.kill('SIGKILL');
      await r?.stop();
    }
  },
);

test(
  'Postgres stopped: a front answers a clear error at once and /health says so; restarted, it recovers by itself',
  { timeout: 300_000 },
  async () => {
    const r = await startTestGateway({ clusterRpc: a.url, indexDb: pg.url, indexDbTimeoutMs: 2000 });
    try {
      while (!r.gateway.cluster!.writing()) await new Promise((res) => setTimeout(res, 100));
      await caughtUp(r.url);
      pg.stop();
      try {
        const during = await call(r.url, 'getCompressedAccountsByOwner', { owner: owner() });
        assert.equal(during.error?.code, -32019);
        assert.match(during.error!.message, /index database postgres:\/\/zkgate@127\.0\.0\.1:\d+\/zkgate/);
        const answer = await fetch(`${r.base}health`);
        const health = (await answer.json()) as {
          status: string;
          components: Record<string, { status: string; detail: string }>;
        };
        // Degraded, not out of the load balancer: the cluster's own methods still work.
        assert.equal(answer.status, 200);
        assert.equal(health.status, 'degraded');
        assert.equal(health.components.cluster!.status, 'degraded');
        assert.match(health.components.cluster!.detail, /does not answer/);
        await compressions(2);
      } finally {
        pg.start();
      }
      // Back: the writer's lease went with its connection; it takes it again and catches up.
      for (;;) {
        const w = r.gateway.cluster!.writing();
        if (w && !w.follower.failure) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      await caughtUp(r.url);
      await sameAsA(r.url);
      const balance = (await call(r.url, 'getCompressedBalanceByOwner', { owner: owner() })).result as {
        value: number;
      };
      assert.equal(balance.value, sent * 1_000_000);
    } finally {
      await r.stop();
    }
  },
);
