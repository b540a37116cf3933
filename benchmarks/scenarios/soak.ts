// Memory under a long mixed load: a gateway (child process) serves Solana reads, transfers,
// validity proofs, DAS misses, bad input and websocket churn for SOAK_MINUTES (default 60), and
// its memory is sampled every 30 s from /proc: anonymous RSS (heaps, native allocations: what a
// leak grows) apart from file-backed RSS (LMDB's map and mapped keys: page cache, which tracks
// the ledger's size on disk), with the V8 heap from /metrics. Printed: the samples, and slopes
// over the time after warm-up.
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from '@solana/web3.js';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { residentSplit } from '../../src/obs/metrics.js';
import { bigIntToBase58 } from '../../src/zk/index.js';
import { BENCH_CACHE as CACHE, BENCH_KEY as KEY, ROOT as root } from '../lib/paths.js';
import { BENCH_TOKEN_ARGS, benchProverClient } from '../lib/prover-client.js';
import { heapGrowth, summarizeHeap, type HeapGroup } from '../lib/heap-summary.js';
import { startProcess } from '../lib/processes.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 60);
const SAMPLE_MS = 30_000;
const WORKERS = 6;
const TREE = bigIntToBase58(0x50a4n);

interface Sample {
  minute: number;
  rss: number;
  anon: number;
  file: number;
  heap: number;
  /** Longest event-loop delay in the gateway's last 15 s window (ms). */
  loopMaxMs: number;
  requests: number;
}

const mb = (b: number) => (b / 2 ** 20).toFixed(1);

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export const soakScenario = {
  name: 'soak',
  describe: `memory of a gateway under ${MINUTES} min of mixed load (SOAK_MINUTES), sampled every 30 s; not in the default run`,
  explicitOnly: true,
  async run(): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'zkgate-soak-'));
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    for (const sub of ['keys', 'circuits']) {
      mkdirSync(join(CACHE, sub), { recursive: true });
      symlinkSync(join(CACHE, sub), join(dataDir, sub), 'dir');
    }
    const diag = join(dir, 'diag');
    mkdirSync(diag);
    const gw = await startProcess(
      [
        // Heap snapshots on demand, to name what grew between the end of warm-up and the end.
        '--heapsnapshot-signal=SIGUSR2',
        `--diagnostic-dir=${diag}`,
        join(root, 'dist/main.js'),
        'start',
        ...['--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--ws-port', '0'],
        ...['--data-dir', dataDir, '--api-keys', KEY, '--rate-limit', '0', '--log-level', 'warn'],
        ...BENCH_TOKEN_ARGS,
        ...['--preload-circuits', 'v1_inclusion_26_1', '--forester', 'off', '--proof-timeout-ms', '60000'],
      ],
      /JSON-RPC\s+(http:\S+)\?api-key=[^\n]*\n\s+websocket\s+(ws:\S+)\?api-key=[^\n]*\n\s+gRPC\s+(\S+)/,
      { timeoutMs: 600_000 },
    );
    const pid = gw.child.pid!;
    const rpcUrl = `${gw.match[1]!}?api-key=${KEY}`;
    const wsUrl = `${gw.match[2]!}?api-key=${KEY}`;
    let requests = 0;
    let failures = 0;
    const call = async (method: string, params: unknown): Promise<unknown> => {
      requests++;
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      const json = (await res.json()) as { result?: unknown; error?: { code: number } };
      if (json.error?.code === -32603) failures++;
      return json.result;
    };
    /** A snapshot of the gateway's main heap, summarized; written before /health answers again. */
    const heapSnapshot = async (): Promise<Map<string, HeapGroup>> => {
      const before = new Set(readdirSync(diag));
      process.kill(pid, 'SIGUSR2');
      for (;;) {
        await fetch(`${gw.match[1]!}health`);
        const file = readdirSync(diag).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
        if (file) {
          const path = join(diag, file);
          let size = -1;
          while (statSync(path).size !== size) {
            size = statSync(path).size;
            await new Promise((r) => setTimeout(r, 500));
          }
          const summary = summarizeHeap(path);
          rmSync(path);
          return summary;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    try {
      // Trees for proofs: 2,000 accounts through StateSync, proved by hash at random.
      const prover = benchProverClient(gw.match[3]!);
      await prover.registerTree({ pubkey: TREE, treeType: 1 });
      const leaves = Array.from({ length: 2000 }, (_, i) => BigInt(i + 1) * 7919n);
      await prover.appendLeaves(TREE, leaves);
      prover.close();
      const conn = new Connection(rpcUrl, 'confirmed');
      const payers = Array.from({ length: WORKERS }, () => Keypair.generate());
      // Confirmed by polling (HTTP only: the load keeps no web3.js websocket open).
      for (const p of payers) {
        const sig = await conn.requestAirdrop(p.publicKey, 100 * LAMPORTS_PER_SOL);
        for (let i = 0; ; i++) {
          const st = (await call('getSignatureStatuses', [[sig]])) as {
            value: ({ confirmationStatus: string } | null)[];
          };
          const status = st.value[0]?.confirmationStatus;
          if (status === 'confirmed' || status === 'finalized') break;
          if (i > 100) throw new Error(`airdrop ${sig} not confirmed`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }

      const until = Date.now() + MINUTES * 60_000;
      const started = Date.now();
      const samples: Sample[] = [];
      const sample = async () => {
        const m = await (await fetch(`${gw.match[1]!}metrics`)).text();
        const heap = Number(/^nodejs_heap_used_bytes (\d+)/m.exec(m)?.[1] ?? 0);
        const loopMaxMs = 1000 * Number(/^nodejs_eventloop_delay_max_seconds (\S+)/m.exec(m)?.[1] ?? 0);
        const split = residentSplit(pid);
        samples.push({
          minute: (Date.now() - started) / 60_000,
          rss: (split.anon ?? 0) + (split.file ?? 0) + (split.shmem ?? 0),
          anon: split.anon ?? 0,
          file: split.file ?? 0,
          heap,
          loopMaxMs,
          requests,
        });
        const s = samples.at(-1)!;
        console.log(
          `  ${s.minute.toFixed(1).padStart(5)} min  rss ${mb(s.rss)} MB (anon ${mb(s.anon)}, file ${mb(s.file)})  heap ${mb(s.heap)} MB  loop delay ≤ ${s.loopMaxMs.toFixed(0)} ms  ${s.requests} requests`,
        );
      };
      await sample();
      const timer = setInterval(() => void sample(), SAMPLE_MS);
      const warmMinutes = Math.min(5, MINUTES / 4);
      let warmHeap: Map<string, HeapGroup> | undefined;
      // Writing a snapshot takes native memory that malloc keeps (about 100 MB of anonymous RSS here,
      // once): the slopes start after it.
      let warmEnd = warmMinutes;
      const warmSnapshot = setTimeout(
        () =>
          void heapSnapshot().then(
            (h) => {
              warmHeap = h;
              warmEnd = (Date.now() - started) / 60_000;
            },
            () => {},
          ),
        warmMinutes * 60_000,
      );

      const worker = async (w: number) => {
        const payer = payers[w]!;
        for (let i = 0; Date.now() < until; i++) {
          const k = i % 20;
          try {
            if (k === 0) {
              const to = Keypair.generate().publicKey;
              const { blockhash } = await conn.getLatestBlockhash();
              requests++;
              const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
                SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_000_000 }),
              );
              tx.sign(payer);
              const sig = await conn.sendRawTransaction(tx.serialize());
              await call('getSignatureStatuses', [[sig]]);
            } else if (k === 1) {
              await call('getValidityProof', { hashes: [bigIntToBase58(leaves[(i * 31 + w) % leaves.length]!)] });
            } else if (k === 2) {
              await call('getAsset', { id: Keypair.generate().publicKey.toBase58() });
            } else if (k === 3) {
              await call('getAccountInfo', ['é'.repeat(i % 50)]);
            } else if (k === 4 && w === 0 && i % 100 === 4) {
              const ws = new WebSocket(wsUrl);
              await new Promise<void>((resolve) => {
                ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slotSubscribe' })));
                ws.on('message', () => ws.close());
                ws.on('close', () => resolve());
                ws.on('error', () => resolve());
              });
            } else if (k % 2 === 0) {
              await call('getBalance', [payer.publicKey.toBase58()]);
            } else {
              await call('getLatestBlockhash', [{ commitment: 'confirmed' }]);
            }
          } catch {
            failures++;
          }
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
      clearInterval(timer);
      clearTimeout(warmSnapshot);
      await sample();
      const endHeap = await heapSnapshot();

      // Warm-up: keys load and caches fill in the first minutes; slopes are taken after it.
      const warm = samples.filter((s) => s.minute > warmEnd);
      const xs = warm.map((s) => s.minute);
      const first = warm[0]!;
      const last = samples.at(-1)!;
      console.log(
        `requests: ${last.requests} (${(last.requests / (last.minute * 60)).toFixed(0)}/s), failures: ${failures}; ` +
          `longest event-loop delay after warm-up: ${Math.max(...warm.map((s) => s.loopMaxMs)).toFixed(0)} ms`,
      );
      console.log(
        `after warm-up (${first.minute.toFixed(1)} → ${last.minute.toFixed(1)} min): rss ${mb(first.rss)} → ${mb(last.rss)} MB; ` +
          `anon ${mb(first.anon)} → ${mb(last.anon)} MB (${mb(
            slope(
              xs,
              warm.map((s) => s.anon),
            ),
          )} MB/min); ` +
          `file ${mb(first.file)} → ${mb(last.file)} MB (${mb(
            slope(
              xs,
              warm.map((s) => s.file),
            ),
          )} MB/min); ` +
          `heap ${mb(first.heap)} → ${mb(last.heap)} MB (${mb(
            slope(
              xs,
              warm.map((s) => s.heap),
            ),
          )} MB/min)`,
      );
      if (warmHeap) {
        console.log(
          `main-thread heap, the groups that grew most from ${warmMinutes} min to the end (type:constructor):`,
        );
        for (const g of heapGrowth(warmHeap, endHeap))
          console.log(
            `  ${g.key.padEnd(48)} ${String(g.countBefore).padStart(8)} → ${String(g.count).padStart(8)} objects  ` +
              `${mb(g.bytesBefore)} → ${mb(g.bytes)} MB`,
          );
      }
    } finally {
      await gw.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
