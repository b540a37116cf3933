// The DAS query methods (issue 38): getAssetsByOwner for an owner of 1,000 of 100,000 indexed
// pNFTs, a page of 1,000, beside getAsset in the same run (a gateway in a child process, HTTP +
// auth, autocannon); the gateway's RSS once the 100,000 are indexed; and the index's write cost
// per transfer (the two token-account writes), with the share the list indexes take; a page of a
// 100,000-asset collection by id and by creation slot, and getGrouping's count of it.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PublicKey } from '@solana/web3.js';
import { parseTokenProgramAccount } from '../../src/das/layouts.js';
import { measure, printTable } from '../lib/load.js';
import { percentile } from '../lib/stats.js';
import { startProcess } from '../lib/processes.js';
import { BENCH_KEY as KEY, ROOT as root } from '../lib/paths.js';
import { indexLedger, nft, storedAccount, writeAccountDir } from './asset.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ASSETS = Number(process.env.BENCH_DAS_ASSETS ?? 100_000);
const PER_OWNER = 1000;
const holder = (k: number) =>
  new PublicKey(
    Buffer.alloc(32, 0)
      .fill(k + 1, 0, 1)
      .fill(7, 1, 2),
  );

export const dasScenario = {
  name: 'das',
  describe: `getAssetsByOwner (1,000 of ${ASSETS} assets, a page of 1,000) vs getAsset, RSS, index cost per transfer`,
  explicitOnly: true,
  async run(): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'zkgate-bench-das-'));
    try {
      const accounts = join(dir, 'accounts');
      mkdirSync(accounts);
      // Owner k holds assets k·1000 … k·1000 + 999.
      // All in one collection (a marketplace's largest).
      const collection = new PublicKey(Buffer.alloc(32, 0).fill(5, 0, 1).fill(8, 1, 2));
      const all = Array.from({ length: ASSETS }, (_, i) =>
        nft(i, holder(Math.floor(i / PER_OWNER) % 250), collection),
      ).flat();
      let t = performance.now();
      writeAccountDir(accounts, all);
      console.log(`  ${all.length} account files in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      t = performance.now();
      const gw = await startProcess(
        [
          join(root, 'dist/main.js'),
          'start',
          ...['--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--data-dir', join(dir, 'data')],
          ...['--api-keys', KEY, '--rate-limit', '0', '--log-level', 'warn', '--account-dir', accounts],
          ...['--preload-circuits', '', '--build-at-start', 'none', '--forester', 'off'],
        ],
        /JSON-RPC\s+(http:\S+)\?api-key=/,
        { timeoutMs: 1_200_000 },
      );
      console.log(`  gateway up with ${ASSETS} assets indexed in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      const url = `${gw.match[1]!}?api-key=${KEY}`;
      try {
        const post = async (method: string, params: unknown) =>
          (await (
            await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
            })
          ).json()) as { result?: any; error?: unknown };
        const k = Math.floor(ASSETS / PER_OWNER / 2);
        const owner = holder(k).toBase58();
        const id = nft(k * PER_OWNER + 17)[0]!.pubkey.toBase58();
        const byOwner = { ownerAddress: owner, page: 1, limit: 1000 };
        const check = await post('getAssetsByOwner', byOwner);
        if (check.result?.items?.length !== PER_OWNER)
          throw new Error(`getAssetsByOwner: ${JSON.stringify(check).slice(0, 300)}`);
        const metrics = await (await fetch(`${gw.match[1]!}metrics`)).text();
        const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0);
        const [rss, anon, file] = [
          'process_resident_memory_bytes',
          'process_resident_anon_bytes',
          'process_resident_file_bytes',
        ].map(gauge) as [number, number, number];
        const one = await measure('getAsset (one pNFT)', {
          url,
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAsset', params: { id } }),
          connections: 10,
          durationSec: DURATION,
        });
        const page = await measure(`getAssetsByOwner (${PER_OWNER} of ${ASSETS}, one page)`, {
          url,
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAssetsByOwner', params: byOwner }),
          connections: 10,
          durationSec: DURATION,
        });
        console.log('\nDAS through HTTP + auth, 10 connections');
        printTable([one, page]);
        // Latency one call at a time (autocannon's is in whole milliseconds).
        const timed = async (n: number, method: string, params: unknown) => {
          const ms: number[] = [];
          for (let i = 0; i < n; i++) {
            const s = performance.now();
            await post(method, params);
            ms.push(performance.now() - s);
          }
          return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
        };
        const a = await timed(500, 'getAsset', { id });
        const b = await timed(50, 'getAssetsByOwner', byOwner);
        console.log(
          `one call at a time: getAsset p50 ${a.p50.toFixed(2)} / p99 ${a.p99.toFixed(2)} ms; ` +
            `getAssetsByOwner (${PER_OWNER} items) p50 ${b.p50.toFixed(1)} / p99 ${b.p99.toFixed(1)} ms ` +
            `(${(b.p50 / a.p50).toFixed(0)}× getAsset's p50 for ${PER_OWNER}× the assets)`,
        );
        console.log(`assets/s, a page of ${PER_OWNER} vs getAsset: ${((page.rps * PER_OWNER) / one.rps).toFixed(2)}×`);
        // The whole collection: a page by id is a range scan; a page by
        // creation slot reads and sorts every member (no slot index); getGrouping counts them.
        const group = { groupKey: 'collection', groupValue: collection.toBase58() };
        const byId = await timed(20, 'getAssetsByGroup', { ...group, page: 1, limit: 1000 });
        const byCreated = await timed(5, 'getAssetsByGroup', {
          ...group,
          page: 1,
          limit: 1000,
          sortBy: { sortBy: 'created', sortDirection: 'desc' },
        });
        const size = await timed(5, 'getGrouping', group);
        const counted = (await post('getGrouping', group)).result?.group_size;
        if (counted !== ASSETS) throw new Error(`getGrouping: ${counted}`);
        console.log(
          `a collection of ${ASSETS}, a page of 1,000: by id p50 ${byId.p50.toFixed(1)} ms; ` +
            `by created p50 ${byCreated.p50.toFixed(1)} ms (${(byCreated.p50 / byId.p50).toFixed(1)}× by id); ` +
            `getGrouping p50 ${size.p50.toFixed(1)} ms (${(size.p50 / a.p50).toFixed(0)}× getAsset)`,
        );
        const mib = (b: number) => (b / 2 ** 20).toFixed(0);
        console.log(
          `gateway RSS with ${ASSETS} assets indexed: ${mib(rss)} MiB (anonymous ${mib(anon)}, file-backed: LMDB's pages ${mib(file)})`,
        );
      } finally {
        await gw.stop();
      }

      // The index's cost per transfer: a source token account going 1 → 0 and a destination 0 → 1,
      // applied in one LMDB transaction each; the list indexes' own share timed apart.
      const { ledger, index, transaction } = indexLedger(join(dir, 'inproc'));
      const accountOf = storedAccount;
      try {
        const seedAssets = all.slice(0, 3 * 5000);
        ledger.importAccounts(
          seedAssets.map((a) => ({ pubkey: new Uint8Array(a.pubkey.toBuffer()), account: accountOf(a) })),
        );
        const transfers = 5000;
        const moves = Array.from({ length: transfers }, (_, i) => {
          const [, , ta] = nft(i, holder(0));
          const to = nft(i, holder(1))[2]!;
          // The receiver's own token account: another address.
          const toKey = Buffer.from(to.pubkey.toBuffer());
          toKey[31] = 9;
          return {
            from: { key: new Uint8Array(ta!.pubkey.toBuffer()), data: Buffer.from(ta!.data) },
            to: { key: new Uint8Array(toKey), data: Buffer.from(to.data) },
          };
        });
        for (const m of moves) m.from.data.writeBigUInt64LE(0n, 64);
        let listsMs = 0;
        const lists = index.lists;
        const original = lists.tokenAccount.bind(lists);
        lists.tokenAccount = (...args) => {
          const s = performance.now();
          original(...args);
          listsMs += performance.now() - s;
        };
        const tok = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
        t = performance.now();
        for (const m of moves)
          transaction(() => {
            index.apply(m.from.key, accountOf({ owner: tok, data: m.from.data }), 2n);
            index.apply(m.to.key, accountOf({ owner: tok, data: m.to.data }), 2n);
          });
        const totalMs = performance.now() - t;
        if (!parseTokenProgramAccount(moves[0]!.to.data, tok.toBase58())) throw new Error('bad token account');
        console.log(
          `\nindex per transfer (two token-account writes, ${transfers} transfers, one LMDB transaction each): ` +
            `${((totalMs / transfers) * 1000).toFixed(1)} µs, of which the list indexes ${((listsMs / transfers) * 1000).toFixed(1)} µs ` +
            `(${((100 * listsMs) / totalMs).toFixed(0)} %)`,
        );
      } finally {
        await ledger.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
