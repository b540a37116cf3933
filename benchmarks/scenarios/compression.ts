// ZK compression on the embedded ledger, three parts:
//  1. ingest: real V2 compressed transfers (one account spent by index, two created) executed by
//     Light's programs on the ledger; the ingester's time per transaction inside the ledger's
//     commit, the self-checks that run just after, and the same transactions replayed into a fresh
//     store (warm caches, no VM in between), median of 10;
//  2. getCompressedAccountsByOwner through HTTP + auth with 10,000 accounts indexed (1,000 owners
//     × 10, made by real compressions), beside getHealth, 50 connections (gateway in a child process);
//  3. a full stateless.js transfer (indexer reads, getValidityProofV2, send, confirm, indexer
//     catch-up) of a V1 account, end to end, against getValidityProofV2 alone (proving), p50 of each.
// BENCH_COMPRESSION_PARTS=ingest,query,e2e selects; BENCH_DURATION sets the load seconds.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import {
  compress,
  confirmTx,
  createRpc,
  localTestActiveStateTreeInfos,
  merkletreePubkey,
  transfer,
} from '@lightprotocol/stateless.js';
import type { CommittedTransaction, StoredAccount } from '../../src/ledger/index.js';
import {
  compressIx,
  compressManyIx,
  openLightLedger,
  sendIxs,
  transferByIndexIx,
} from '../../test/compression/helpers.js';
import { measure, printTable } from '../lib/load.js';
import { startProcess } from '../lib/processes.js';
import { envList, table } from '../lib/table.js';
import { ROOT as root, BENCH_CACHE as CACHE, BENCH_KEY as KEY, QUIET_GATEWAY_ARGS } from '../lib/paths.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const PARTS = envList(process.env.BENCH_COMPRESSION_PARTS, ['ingest', 'query', 'e2e']);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const tmp = (label: string) => mkdtempSync(join(tmpdir(), `zkgate-bench-${label}-`));

/** 225 V2 transfers on a fresh ledger (5 chains, one per output queue: within the queues' capacity). */
async function transfersOnLedger(record: boolean) {
  const dir = tmp('ingest');
  const l = await openLightLedger(dir);
  const ing = l.compression.ingester;
  const apply = ing.applyTransaction.bind(ing);
  const verify = ing.verifyPending.bind(ing);
  let measuring = false;
  let applyMs = 0;
  let verifyMs = 0;
  const recorded: CommittedTransaction[] = [];
  const v2 = localTestActiveStateTreeInfos().filter((i) => i.treeType === 3);
  const watched = v2.flatMap((t) => [t.tree.toBytes(), t.queue.toBytes()]);
  ing.applyTransaction = (tx) => {
    // The ledger's ingest: transactions carry the accounts as the VM left them.
    const t = tx as CommittedTransaction;
    const t0 = performance.now();
    apply(t);
    if (measuring) applyMs += performance.now() - t0;
    if (!record) return;
    // Kept for the replay, with the tree and queue accounts as this transaction left them.
    const inner = t.innerInstructions();
    const after = new Map<string, StoredAccount | undefined>(
      watched.map((k) => [Buffer.from(k).toString('hex'), t.account(k)]),
    );
    recorded.push({ ...t, innerInstructions: () => inner, account: (k) => after.get(Buffer.from(k).toString('hex')) });
  };
  ing.verifyPending = () => {
    const t0 = performance.now();
    verify();
    if (measuring) verifyMs += performance.now() - t0;
  };
  const owners = v2.map(() => Keypair.generate());
  for (const [i, o] of owners.entries()) {
    l.ledger.airdrop(o.publicKey.toBytes(), 100_000_000_000n);
    sendIxs(l.ledger, o, [await compressIx(o, 10_000_000_000, v2[i]!)]);
  }
  ing.verifyPending();
  measuring = true;
  let n = 0;
  const t0 = performance.now();
  for (let k = 0; k < 45; k++)
    for (const o of owners) {
      const input = l.compression.store.accountsByOwner(o.publicKey.toBytes(), { limit: 1 })[0]!;
      const r = sendIxs(l.ledger, o, [await transferByIndexIx(o, input, Keypair.generate().publicKey, 1_000_000n)]);
      if (r.err) throw new Error(`transfer failed: ${r.err.display}`);
      n++;
    }
  ing.verifyPending();
  const totalMs = performance.now() - t0;
  if (ing.stats.skipped > 0 || ing.divergent.size > 0) throw new Error('ingest skipped events or diverged');
  await l.ledger.close();
  rmSync(dir, { recursive: true, force: true });
  return { n, applyMs, verifyMs, totalMs, recorded };
}

async function ingestPart(): Promise<void> {
  const runs = [await transfersOnLedger(true), await transfersOnLedger(false)];
  const n = runs.reduce((s, r) => s + r.n, 0);
  const apply = runs.reduce((s, r) => s + r.applyMs, 0) / n;
  const verify = runs.reduce((s, r) => s + r.verifyMs, 0) / n;
  const total = runs.reduce((s, r) => s + r.totalMs, 0) / n;
  // The same transactions replayed into fresh stores: the ingester's own work on warm caches.
  const { recorded } = runs[0]!;
  const replayRates: number[] = [];
  for (let round = 0; round < 10; round++) {
    const dir = tmp('replay');
    const r = await openLightLedger(dir);
    const trees = r.compression.trees;
    for (const t of recorded.slice(0, 5)) trees.transaction(() => r.compression.ingester.applyTransaction(t));
    const t0 = performance.now();
    trees.transaction(() => {
      for (const t of recorded.slice(5)) trees.transaction(() => r.compression.ingester.applyTransaction(t));
    });
    replayRates.push(((recorded.length - 5) / (performance.now() - t0)) * 1000);
    await r.ledger.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\ningest of V2 compressed transfers (1 account spent by index, 2 created), ${n} on 2 ledgers`);
  table(
    ['measure', 'ms per transfer', 'transfers/s'],
    [
      ['ingest in the ledger commit', apply.toFixed(3), (1000 / apply).toFixed(0)],
      ['self-checks just after (hashes, tree accounts)', verify.toFixed(3), (1000 / verify).toFixed(0)],
      ['ingest + self-checks', (apply + verify).toFixed(3), (1000 / (apply + verify)).toFixed(0)],
      [
        'ingest replayed, warm caches (median of 10)',
        (1000 / median(replayRates)).toFixed(3),
        median(replayRates).toFixed(0),
      ],
      ['whole ledger.send (VM, commit, ingest) + building the tx', total.toFixed(3), (1000 / total).toFixed(0)],
    ],
  );
}

/** A data dir whose ledger holds 10,000 compressed accounts: 1,000 owners × 10, via real compressions. */
async function indexedDataDir(): Promise<{ dataDir: string; owner: string }> {
  const dataDir = tmp('query');
  const l = await openLightLedger(join(dataDir, 'ledger'));
  const smt = localTestActiveStateTreeInfos().filter((i) => i.treeType === 1);
  const payer = Keypair.generate();
  l.ledger.airdrop(payer.publicKey.toBytes(), 10n ** 15n);
  const owners = Array.from({ length: 1000 }, () => Keypair.generate().publicKey);
  let sent = 0;
  for (let round = 0; round < 10; round++)
    for (let i = 0; i < owners.length; i += 16) {
      const r = sendIxs(l.ledger, payer, [
        await compressManyIx(payer, owners.slice(i, i + 16), 1_000_000n + BigInt(round), smt[sent++ % 2]!),
      ]);
      if (r.err) throw new Error(`compression failed: ${r.err.display}`);
    }
  l.compression.ingester.verifyPending();
  if (l.compression.ingester.divergent.size > 0) throw new Error('the trees diverged from the chain');
  await l.ledger.close();
  return { dataDir, owner: owners[500]!.toBase58() };
}

async function queryPart(): Promise<void> {
  const { dataDir, owner } = await indexedDataDir();
  try {
    const gw = await startProcess(
      [
        join(root, 'dist/main.js'),
        'start',
        ...['--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--data-dir', dataDir],
        ...QUIET_GATEWAY_ARGS,
      ],
      /JSON-RPC\s+(http:\S+)\?api-key=/,
      { timeoutMs: 120_000 },
    );
    const url = `${gw.match[1]!}?api-key=${KEY}`;
    try {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getCompressedAccountsByOwner',
        params: { owner },
      });
      const check = (await (
        await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      ).json()) as { result?: { value: { items: unknown[] } } };
      if (check.result?.value.items.length !== 10) throw new Error(`unexpected answer: ${JSON.stringify(check)}`);
      const health = await measure('getHealth (auth + envelope)', {
        url,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' }),
        connections: 50,
        durationSec: DURATION,
      });
      const byOwner = await measure('getCompressedAccountsByOwner (10 of 10,000 accounts)', {
        url,
        body,
        connections: 50,
        durationSec: DURATION,
      });
      console.log('\nPhoton reads through HTTP + auth, 50 connections, 10,000 compressed accounts indexed');
      printTable([health, byOwner]);
      console.log(`getCompressedAccountsByOwner / getHealth throughput: ${(byOwner.rps / health.rps).toFixed(2)}`);
    } finally {
      await gw.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function e2ePart(): Promise<void> {
  const dataDir = tmp('e2e');
  for (const sub of ['keys', 'circuits']) {
    mkdirSync(join(CACHE, sub), { recursive: true });
    symlinkSync(join(CACHE, sub), join(dataDir, sub), 'dir');
  }
  try {
    const gw = await startProcess(
      [
        join(root, 'dist/main.js'),
        'start',
        ...['--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--data-dir', dataDir],
        ...['--api-keys', KEY, '--rate-limit', '0', '--log-level', 'warn', '--proof-timeout-ms', '600000'],
        ...['--preload-circuits', 'v1_inclusion_26_1', '--build-at-start', 'none'],
      ],
      /JSON-RPC\s+(http:\S+)\?api-key=/,
      { timeoutMs: 120_000 },
    );
    const url = `${gw.match[1]!}?api-key=${KEY}`;
    try {
      const rpc = createRpc(url, url);
      const payer = Keypair.generate();
      await confirmTx(rpc, await rpc.requestAirdrop(payer.publicKey, 100_000_000_000));
      const smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
      await compress(rpc, payer, 50_000_000_000, payer.publicKey, smt1);
      const N = Number(process.env.BENCH_E2E_TRANSFERS ?? 12);
      const prove: number[] = [];
      const full: number[] = [];
      // Warm-up: the first proof loads the key (built on first use if the bench cache has none).
      await transfer(rpc, payer, 1_000_000, payer, Keypair.generate().publicKey);
      for (let i = 0; i < N; i++) {
        const [account] = (await rpc.getCompressedAccountsByOwner(payer.publicKey)).items;
        let t0 = performance.now();
        await rpc.getValidityProof([account!.hash]);
        prove.push(performance.now() - t0);
        t0 = performance.now();
        await transfer(rpc, payer, 1_000_000, payer, Keypair.generate().publicKey);
        full.push(performance.now() - t0);
      }
      console.log(`\nstateless.js transfer of a V1 account end to end vs its proof alone (${N} each, p50)`);
      table(
        ['step', 'p50 ms', 'min ms', 'max ms'],
        [
          ['getValidityProofV2 (v1_inclusion_26_1)', median(prove), Math.min(...prove), Math.max(...prove)].map((x) =>
            typeof x === 'number' ? x.toFixed(0) : x,
          ) as string[],
          [
            'transfer: reads, proof, send, confirm, indexer slot',
            median(full),
            Math.min(...full),
            Math.max(...full),
          ].map((x) => (typeof x === 'number' ? x.toFixed(0) : x)) as string[],
        ],
      );
      console.log(`end to end / proving alone: ${(median(full) / median(prove)).toFixed(2)}`);
    } finally {
      await gw.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const compressionScenario = {
  name: 'compression',
  describe:
    'ingest of Light transfers on the ledger, getCompressedAccountsByOwner with 10,000 accounts, a stateless.js transfer end to end',
  async run(): Promise<void> {
    if (PARTS.includes('ingest')) await ingestPart();
    if (PARTS.includes('query')) await queryPart();
    if (PARTS.includes('e2e')) await e2ePart();
  },
};
