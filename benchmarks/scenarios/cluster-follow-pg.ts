// The cluster index on Postgres (issue 51, --index-db) against LMDB, in the same run: the bench
// cache's dev chain A (cluster-follow.ts) followed by B_lmdb (its data dir) and B_pg (a private
// Postgres, fsync on, as an operator's); then a second front on the same Postgres, serving what
// B_pg writes. Figures: backfill rates; getCompressedAccountsByOwner (an owner with 20 accounts)
// and getValidityProof latencies, p50 and p99, on each.
import { rmSync } from 'node:fs';
import { startPostgres } from '../../test/helpers/postgres.js';
import type { Started } from '../lib/processes.js';
import { table } from '../lib/table.js';
import { benchDataDir } from '../lib/paths.js';
import { cluster, follow, gateway, median, pct, rpc, timedProofs, TXS, urlOf } from './cluster-follow.js';

const READS = Number(process.env.BENCH_PG_READS ?? 300);

async function readLatencies(url: string, owner: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now();
    await rpc(url, 'getCompressedAccountsByOwner', { owner });
    out.push(performance.now() - t0);
  }
  return out;
}

const ms = (x: number) => x.toFixed(1);

export const clusterFollowPgScenario = {
  name: 'cluster-follow-pg',
  describe: `the cluster index on Postgres (--index-db) against LMDB: backfill of ${TXS} Light transactions, reads and proofs, two fronts`,
  async run(): Promise<void> {
    const built = await cluster();
    const pg = await startPostgres({ durable: true });
    const procs: Started[] = [];
    const dirs = [built.dataDir];
    try {
      const a = await gateway(built.dataDir, []);
      procs.push(a);
      const aUrl = urlOf(a);
      const finalized = await rpc<number>(aUrl, 'getSlot', [{ commitment: 'finalized' }]);
      const lmdb = await follow(aUrl, finalized);
      procs.push(lmdb.g);
      dirs.push(lmdb.dir);
      await lmdb.g.stop();
      const pgB = await follow(aUrl, finalized, ['--index-db', pg.url]);
      procs.push(pgB.g);
      dirs.push(pgB.dir);
      console.log(`backfill of ${TXS} Light transactions from A (a local RPC), each follower alone beside A`);
      table(
        ['index', 'seconds (RPC up to tip)', 'Light transactions/s'],
        [
          ['B_lmdb: LMDB in its data dir', lmdb.fromReady.toFixed(1), (TXS / lmdb.fromReady).toFixed(0)],
          ['B_pg: Postgres (fsync on)', pgB.fromReady.toFixed(1), (TXS / pgB.fromReady).toFixed(0)],
        ],
      );
      console.log(`Postgres backfill / LMDB backfill: ${(lmdb.fromReady / pgB.fromReady).toFixed(2)}`);

      // Reads: B_lmdb restarted on its index (it resumes, caught up); a second front on the Postgres.
      const lmdbAgain = await follow(aUrl, finalized, [], lmdb.dir);
      procs.push(lmdbAgain.g);
      const front2 = await follow(aUrl, finalized, ['--index-db', pg.url]);
      procs.push(front2.g);
      dirs.push(front2.dir);
      const hash = (
        await rpc<{ value: { items: { hash: string }[] } }>(aUrl, 'getCompressedAccountsByOwner', {
          owner: built.owner,
        })
      ).value.items[0]!.hash;
      const rows: string[][] = [];
      const p99: Record<string, number> = {};
      for (const [name, url] of [
        ['B_lmdb', lmdbAgain.url],
        ['B_pg (the writer)', pgB.url],
        ['second front on the Postgres', front2.url],
      ] as const) {
        const reads = await readLatencies(url, built.owner);
        await rpc(url, 'getValidityProof', { hashes: [hash] }); // loads the key
        const [proofs] = await timedProofs([url], hash);
        p99[name] = pct(reads, 0.99);
        rows.push([name, ms(median(reads)), ms(pct(reads, 0.99)), ms(median(proofs!)), ms(pct(proofs!, 0.99))]);
      }
      console.log(`\nreads (${READS} getCompressedAccountsByOwner of 20 accounts) and proofs, one at a time`);
      table(['index', 'owner p50 ms', 'owner p99 ms', 'proof p50 ms', 'proof p99 ms'], rows);
      console.log(
        `getCompressedAccountsByOwner p99, Postgres / LMDB: writer ${(p99['B_pg (the writer)']! / p99['B_lmdb']!).toFixed(2)}, second front ${(p99['second front on the Postgres']! / p99['B_lmdb']!).toFixed(2)}`,
      );
    } finally {
      for (const p of procs.reverse()) await p.stop().catch(() => undefined);
      pg.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  },
};
