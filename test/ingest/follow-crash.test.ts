// The follower killed -9 five times, during backfill and at the tip, while the cluster (zkgate's
// dev chain) keeps taking Light transactions: each restart resumes from the index's checkpoint,
// and in the end the index answers as the cluster's own does, nothing doubled or lost.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Keypair, LAMPORTS_PER_SOL, type Connection } from '@solana/web3.js';
import { startTestGateway, stopWithConnection, tempDir, web3Connection, type TestGateway } from '../helpers/gateway.js';
import { LOADER, sibling } from '../helpers/paths.js';
import { ClusterIndex } from '../../src/ingest/index.js';
import { createLogger } from '../../src/obs/log.js';
import { compressInTurn } from './helpers.js';

let a: TestGateway;
let conn: Connection;
const dir = tempDir();
const payer = Keypair.generate();
let sent = 0;

const call = async (url: string, method: string, params: unknown = []) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: unknown };
};
const slotOf = async (commitment: string) => (await call(a.url, 'getSlot', [{ commitment }])).result as number;

/** Compresses 0.001 SOL `n` times, V1 and V2 trees in turn. */
async function compressions(n: number): Promise<void> {
  sent = await compressInTurn(conn, payer, n, sent);
}

/** One run of the follower: killed -9 once its index has passed `slot`. */
async function runUntil(slot: number): Promise<number> {
  const child = spawn(
    process.execPath,
    [...LOADER, sibling(import.meta.url, 'follow-child'), a.url, join(dir, 'cluster')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let last = -1;
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const seen = [...out.matchAll(/^indexed (-?\d+)$/gm)].map((m) => Number(m[1]));
      last = seen.at(-1) ?? last;
      if (last >= slot && child.exitCode === null) child.kill('SIGKILL');
    });
    child.on('exit', () => resolve());
    child.on('error', reject);
  });
  return last;
}

before(async () => {
  a = await startTestGateway({ slotTimeMs: 20 }, {}, { ledger: true });
  conn = web3Connection(a);
  await conn.confirmTransaction(await conn.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL), 'confirmed');
  await compressions(12);
});
after(async () => {
  await stopWithConnection(a, conn);
  rmSync(dir, { recursive: true, force: true });
});

test(
  'killed -9 five times during backfill and at the tip: the index resumes and answers as the cluster does',
  { timeout: 600_000 },
  async () => {
    const first = (await call(a.url, 'getFirstAvailableBlock')).result as number;
    // A history to backfill: 300 blocks at least.
    while ((await slotOf('finalized')) < first + 300) await new Promise((r) => setTimeout(r, 100));
    // Backfill: killed twice before it reaches the tip.
    const tip = await slotOf('finalized');
    const mid = await runUntil(first + Math.floor((tip - first) / 3));
    assert.ok(mid < tip, `killed during backfill (at ${mid}, the tip ${tip})`);
    const later = await runUntil(first + Math.floor((2 * (tip - first)) / 3));
    assert.ok(later >= mid, 'resumed from its checkpoint, not from the start');
    // At the tip, with more Light transactions between the kills.
    for (let i = 0; i < 3; i++) {
      await compressions(4);
      await runUntil(await slotOf('confirmed'));
    }
    // Restarted as a gateway on the same data dir: it resumes and serves.
    const b = await startTestGateway({ clusterRpc: a.url, upstreamTimeoutMs: 5000 }, {}, { dataDir: dir });
    try {
      const target = await slotOf('confirmed');
      while (((await call(b.url, 'getIndexerSlot')).result as number) < target)
        await new Promise((r) => setTimeout(r, 50));
      const owner = payer.publicKey.toBase58();
      for (const [method, params] of [
        ['getCompressedAccountsByOwner', { owner }],
        ['getCompressedBalanceByOwner', { owner }],
        ['getCompressionSignaturesForOwner', { owner }],
      ] as const) {
        const [fromA, fromB] = await Promise.all([call(a.url, method, params), call(b.url, method, params)]);
        const strip = (r: { result?: unknown }) => ({ ...(r.result as object), context: null });
        assert.deepEqual(strip(fromB), strip(fromA), method);
      }
      const balance = (await call(b.url, 'getCompressedBalanceByOwner', { owner })).result as { value: number };
      assert.equal(balance.value, sent * 1_000_000, 'every compression counted once');
    } finally {
      await b.stop();
    }
  },
);

test("an index is bound to its cluster: another cluster's is refused, naming both genesis hashes", async () => {
  const d = tempDir();
  try {
    const index = ClusterIndex.open(d, createLogger('silent'));
    assert.equal(index.bind('GenesisOfA', 100n).slot, 99n);
    await index.close();
    const again = ClusterIndex.open(d, createLogger('silent'));
    assert.equal(again.bind('GenesisOfA', 5n).startSlot, 100n, 'a restart keeps where it started');
    assert.throws(() => again.bind('GenesisOfB', 0n), {
      message:
        'the index in this data dir follows the cluster with genesis GenesisOfA, not GenesisOfB: use another --data-dir',
    });
    await again.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});
