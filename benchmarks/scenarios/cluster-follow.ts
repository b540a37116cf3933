// Following a cluster (issue 50): zkgate's dev chain A, built with BENCH_CLUSTER_TXS Light
// transactions (compressions of 1 account each into Light's V1 trees smt1/smt2, 50 to a block, by
// Light's programs on the ledger), serves as the cluster; a fresh follower B (--cluster-rpc A, its
// own process) indexes it through A's JSON-RPC. Figures:
//  - B's backfill rate (Light transactions/s, from B's start to its index at A's finalized tip),
//    against A's own ingest rate (the ingester inside the ledger's commit, measured as A was built);
//  - the lag at the tip while A takes new compressions: B (finalized) behind A's finalized slot, and
//    a follower at --cluster-commitment confirmed behind A's confirmed slot, in slots, sampled;
//  - getValidityProof of the same account through A (embedded) and through B (follower), p50: each
//    alone on the machine (A before any follower; B with A stopped), and side by side.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, PublicKey, ComputeBudgetProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import {
  compress,
  confirmTx,
  createRpc,
  localTestActiveStateTreeInfos,
  merkletreePubkey,
} from '@lightprotocol/stateless.js';
import { parseTransaction } from '../../src/ledger/index.js';
import { compressManyIx, openLightLedger } from '../../test/compression/helpers.js';
import { cpuSeconds, startProcess, type Started } from '../lib/processes.js';
import { table } from '../lib/table.js';
import { ROOT as root, BENCH_CACHE, BENCH_KEY as KEY, benchDataDir } from '../lib/paths.js';

export const TXS = Number(process.env.BENCH_CLUSTER_TXS ?? 20_000);
/** Compressions of the same-run baseline: A's own ingest, measured on a ledger built in this run. */
const BASELINE_TXS = Number(process.env.BENCH_CLUSTER_BASELINE_TXS ?? 1000);
const PER_BLOCK = 50;
export const PROOFS = Number(process.env.BENCH_CLUSTER_PROOFS ?? 15);

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

export async function rpc<T>(url: string, method: string, params: unknown = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

interface Built {
  ingestMs: number;
  owner: string;
}

/**
 * A's data dir, a copy of the cluster built once into the bench cache (building it runs every
 * compression through Light's programs, about 30 ms each): TXS compressions, all finalized.
 */
export async function cluster(): Promise<Built & { dataDir: string }> {
  const cached = join(BENCH_CACHE, `cluster-follow-${TXS}`);
  if (!existsSync(join(cached, 'built.json'))) {
    rmSync(cached, { recursive: true, force: true });
    const built = await buildCluster(cached);
    // A gateway's first start on a ledger builds the indexes the builder does not keep (DAS
    // signatures) from every stored transaction, about a minute here: once, not in every run's copy.
    await (await gateway(cached, [])).stop();
    writeFileSync(join(cached, 'built.json'), JSON.stringify(built));
  }
  const dataDir = benchDataDir('cluster');
  cpSync(join(cached, 'ledger'), join(dataDir, 'ledger'), { recursive: true });
  return { ...(JSON.parse(readFileSync(join(cached, 'built.json'), 'utf8')) as Built), dataDir };
}

/** TXS compressions in blocks of PER_BLOCK, into `dir`; A's ingest time for them (inside the ledger's commit). */
async function buildCluster(dir: string, txs = TXS): Promise<Built> {
  const l = await openLightLedger(join(dir, 'ledger'));
  const ing = l.compression.ingester;
  const apply = ing.applyTransaction.bind(ing);
  let ingestMs = 0;
  ing.applyTransaction = (t) => {
    const t0 = performance.now();
    apply(t);
    ingestMs += performance.now() - t0;
  };
  const smt = localTestActiveStateTreeInfos().filter((i) => i.treeType === 1);
  const payer = Keypair.generate();
  l.ledger.airdrop(payer.publicKey.toBytes(), 10n ** 16n);
  const owners = Array.from({ length: 1000 }, () => Keypair.generate().publicKey);
  const t0 = performance.now();
  for (let i = 0; i < txs; i++) {
    if (i % PER_BLOCK === 0) {
      l.ledger.advanceSlot();
      // What the helper keeps of each transaction, and the self-checks due: dropped as they go; and
      // a turn of the event loop, where the VM's native account copies are freed (finalizers).
      l.seen.length = 0;
      ing.verifyPending();
      await new Promise((r) => setImmediate(r));
    }
    const ix = await compressManyIx(payer, [owners[i % owners.length]!], 1_000_000n + BigInt(i), smt[i % 2]!);
    const msg = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: l.ledger.latestBlockhash().blockhash,
      instructions: [ComputeBudgetProgram.setComputeUnitLimit({ units: 1_000_000 }), ix],
    }).compileToV0Message();
    const tx = new VersionedTransaction(msg);
    tx.sign([payer]);
    const r = l.ledger.send(parseTransaction(tx.serialize()));
    if (r.err) throw new Error(`compression ${i} failed: ${r.err.display}`);
  }
  // Past the finalized lag: every block above is finalized when A starts.
  for (let i = 0; i < 40; i++) l.ledger.advanceSlot();
  ing.verifyPending();
  if (ing.divergent.size > 0 || ing.stats.skipped > 0) throw new Error('the dev chain diverged or skipped events');
  console.log(`built a dev chain: ${txs} compressions in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  await l.ledger.close();
  return { ingestMs, owner: owners[0]!.toBase58() };
}

export function gateway(dataDir: string, extra: string[]): Promise<Started> {
  return startProcess(
    [
      join(root, 'dist/main.js'),
      'start',
      ...['--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--data-dir', dataDir],
      ...['--api-keys', KEY, '--rate-limit', '0', '--log-level', 'warn', '--proof-timeout-ms', '600000'],
      ...['--preload-circuits', 'v1_inclusion_26_1', '--build-at-start', 'none'],
      ...extra,
    ],
    /JSON-RPC\s+(http:\S+)\?api-key=/,
    { timeoutMs: 600_000 },
  );
}

export const urlOf = (g: Started) => `${g.match[1]!}?api-key=${KEY}`;

/**
 * Starts a follower of `cluster`; resolves with it once its index reaches `through`, the seconds
 * that took, and the CPU seconds the follower used (all its threads) up to its RPC and after.
 */
export async function follow(cluster: string, through: number, extra: string[] = [], dataDir?: string) {
  const dir = dataDir ?? benchDataDir('follower');
  const t0 = performance.now();
  const g = await gateway(dir, ['--cluster-rpc', cluster, ...extra]);
  const ready = performance.now();
  const cpuReady = cpuSeconds(g.child.pid!);
  const url = urlOf(g);
  while ((await rpc<number>(url, 'getIndexerSlot')) < through) await new Promise((r) => setTimeout(r, 50));
  const end = performance.now();
  const cpu = { start: cpuReady, backfill: cpuSeconds(g.child.pid!) - cpuReady };
  return { g, url, dir, seconds: (end - t0) / 1000, fromReady: (end - ready) / 1000, cpu };
}

/** PROOFS getValidityProof of `hash` from each URL in turn; the latencies per URL, ms. */
export async function timedProofs(urls: string[], hash: string): Promise<number[][]> {
  const times = urls.map(() => [] as number[]);
  for (let i = 0; i < PROOFS; i++)
    for (const [k, url] of urls.entries()) {
      const t0 = performance.now();
      await rpc(url, 'getValidityProof', { hashes: [hash] });
      times[k]!.push(performance.now() - t0);
    }
  return times;
}

export const clusterFollowScenario = {
  name: 'cluster-follow',
  describe: `a fresh follower's backfill of a dev chain with ${TXS} Light transactions, its lag at the tip, proofs from its index`,
  async run(): Promise<void> {
    const built = await cluster();
    // The same-run baseline: A's own ingest of BASELINE_TXS compressions, on a ledger built now.
    const sample = mkdtempSync(join(tmpdir(), 'zkgate-bench-baseline-'));
    const dirs = [built.dataDir, sample];
    const baseline = await buildCluster(sample, BASELINE_TXS);
    const procs: Started[] = [];
    try {
      const a = await gateway(built.dataDir, []);
      procs.push(a);
      const aUrl = urlOf(a);
      const finalized = await rpc<number>(aUrl, 'getSlot', [{ commitment: 'finalized' }]);
      // A's proofs alone on the machine (the embedded mode's figure), before any follower runs.
      const hash = (
        await rpc<{ value: { items: { hash: string }[] } }>(aUrl, 'getCompressedAccountsByOwner', {
          owner: built.owner,
        })
      ).value.items[0]!.hash;
      await rpc(aUrl, 'getValidityProof', { hashes: [hash] }); // loads the key
      const aloneA = (await timedProofs([aUrl], hash))[0]!;
      // CPU seconds as well as rates: this machine's speed drifts by a third within an hour, the
      // work done much less.
      const aCpu0 = cpuSeconds(a.child.pid!);
      const b = await follow(aUrl, finalized);
      const aCpu = cpuSeconds(a.child.pid!) - aCpu0;
      procs.push(b.g);
      dirs.push(b.dir);
      const check = await rpc<{ value: { items: unknown[] } }>(b.url, 'getCompressedAccountsByOwner', {
        owner: built.owner,
      });
      const expected = await rpc<{ value: { items: unknown[] } }>(aUrl, 'getCompressedAccountsByOwner', {
        owner: built.owner,
      });
      if (JSON.stringify(check.value.items) !== JSON.stringify(expected.value.items))
        throw new Error("the follower's answer differs from the cluster's");
      const ingestRate = BASELINE_TXS / (baseline.ingestMs / 1000);
      const backfillRate = TXS / b.seconds;
      console.log(`backfill of ${TXS} Light transactions (${PER_BLOCK} to a block) from a local RPC`);
      table(
        ['measure', 'seconds', 'Light transactions/s'],
        [
          [
            `A's own ingest, in the ledger's commit (${BASELINE_TXS} built in this run)`,
            (baseline.ingestMs / 1000).toFixed(1),
            ingestRate.toFixed(0),
          ],
          ['B: start to indexed through the finalized tip', b.seconds.toFixed(1), backfillRate.toFixed(0)],
          [
            'B: serving (its RPC up) to indexed through the tip',
            b.fromReady.toFixed(1),
            (TXS / b.fromReady).toFixed(0),
          ],
        ],
      );
      console.log(
        `CPU seconds, all threads: B to its RPC up ${b.cpu.start.toFixed(2)}, B after ${b.cpu.backfill.toFixed(2)}; A (serving getBlock) ${aCpu.toFixed(2)}`,
      );
      console.log(`follower backfill / dev chain's own ingest: ${(backfillRate / ingestRate).toFixed(2)}`);
      console.log(`  the same from B's RPC up: ${(TXS / b.fromReady / ingestRate).toFixed(2)}`);

      // A second follower at confirmed commitment, then both at the tip while A takes compressions.
      const c = await follow(aUrl, await rpc<number>(aUrl, 'getSlot', [{ commitment: 'confirmed' }]), [
        '--cluster-commitment',
        'confirmed',
      ]);
      procs.push(c.g);
      dirs.push(c.dir);
      const client = createRpc(aUrl, aUrl);
      const payer = Keypair.generate();
      await confirmTx(client, await client.requestAirdrop(payer.publicKey, 100_000_000_000));
      const smt1 = (await client.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
      const lagFinal: number[] = [];
      const lagConfirmed: number[] = [];
      let sending = true;
      const traffic = (async () => {
        while (sending) await compress(client, payer, 1_000_000, payer.publicKey, smt1);
      })();
      const until = performance.now() + 15_000;
      while (performance.now() < until) {
        const [af, ac, bi, ci] = await Promise.all([
          rpc<number>(aUrl, 'getSlot', [{ commitment: 'finalized' }]),
          rpc<number>(aUrl, 'getSlot', [{ commitment: 'confirmed' }]),
          rpc<number>(b.url, 'getIndexerSlot'),
          rpc<number>(c.url, 'getIndexerSlot'),
        ]);
        lagFinal.push(af - bi);
        lagConfirmed.push(ac - ci);
        await new Promise((r) => setTimeout(r, 100));
      }
      sending = false;
      await traffic;
      console.log(
        `\nlag at the tip while A takes compressions back to back (${lagFinal.length} samples, 100 ms apart)`,
      );
      table(
        ['follower', 'behind', 'p50 slots', 'p99 slots', 'max slots'],
        [
          ['B (finalized)', "A's finalized slot", median(lagFinal), pct(lagFinal, 0.99), Math.max(...lagFinal)].map(
            String,
          ),
          [
            'C (confirmed)',
            "A's confirmed slot",
            median(lagConfirmed),
            pct(lagConfirmed, 0.99),
            Math.max(...lagConfirmed),
          ].map(String),
        ],
      );
      await c.g.stop();

      // The same account's proof: side by side (A and B alternately, both running), then B alone
      // with A stopped (the cluster's work off this machine, as it is in production), against A
      // alone, measured before any follower ran.
      const row = (name: string, t: number[]) =>
        [name, median(t), Math.min(...t), Math.max(...t)].map((x) => (typeof x === 'number' ? x.toFixed(0) : x));
      await rpc(b.url, 'getValidityProof', { hashes: [hash] }); // loads the key
      const [sideA, sideB] = await timedProofs([aUrl, b.url], hash);
      await a.stop();
      const [aloneB] = await timedProofs([b.url], hash);
      console.log(`\ngetValidityProof of one V1 account (v1_inclusion_26_1), ${PROOFS} each`);
      table(
        ['index', 'p50 ms', 'min ms', 'max ms'],
        [
          row('A: embedded ledger, alone (before any follower)', aloneA),
          row('A: side by side with B following it', sideA!),
          row('B: follower of A, side by side', sideB!),
          row('B: follower, alone (A stopped)', aloneB!),
        ],
      );
      console.log(
        `follower / embedded proof latency (p50), each alone: ${(median(aloneB!) / median(aloneA)).toFixed(2)}; side by side: ${(median(sideB!) / median(sideA!)).toFixed(2)}`,
      );
    } finally {
      for (const p of procs.reverse()) await p.stop().catch(() => undefined);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  },
};
