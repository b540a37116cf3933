// Event-loop stalls under large StateSync writes (the bound: a big write delays no request by more
// than 50 ms). In process, the event-loop delay (1 ms resolution) during 5,000-address inserts and
// 5,000-leaf appends into a TreeStore on disk; then through a gateway (child process) taking the same
// writes over gRPC while a client polls JSON-RPC back to back: the request latencies while idle and
// during the writes (on two cores shared by client, gateway and LMDB, idle requests alone reach tens
// of ms now and then), and how long the writes took in chunks.
import { mkdtempSync, rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TreeStore } from '../../src/state/index.js';
import { bigIntToBase58, loadPoseidon } from '../../src/zk/index.js';
import { BENCH_KEY as KEY, ROOT as root } from '../lib/paths.js';
import { BENCH_TOKEN_ARGS, benchProverClient } from '../lib/prover-client.js';
import { startProcess } from '../lib/processes.js';

const ROUNDS = 3;
const ITEMS = 5000;

const values = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => BigInt(i + 1) * 1_000_003n + BigInt(seed));
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;
const ms = (x: number) => x.toFixed(1).padStart(7);

export const stallsScenario = {
  name: 'stalls',
  describe: `JSON-RPC latency while the gateway takes ${ITEMS}-item StateSync writes (chunked) against idle`,
  async run(): Promise<void> {
    await inProcess();
    const dir = mkdtempSync(join(tmpdir(), 'zkgate-stalls-'));
    const gw = await startProcess(
      [
        ...(process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []),
        join(root, 'dist/main.js'),
        'start',
        ...['--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--ws-port', '0'],
        ...['--data-dir', dir, '--api-keys', KEY, '--rate-limit', '0', '--log-level', 'warn'],
        ...BENCH_TOKEN_ARGS,
        ...['--preload-circuits', '', '--build-at-start', 'none', '--forester', 'off'],
      ],
      /JSON-RPC\s+(http:\S+)\?api-key=[^\n]*\n\s+websocket[^\n]*\n\s+gRPC\s+(\S+)/,
      { timeoutMs: 120_000 },
    );
    const url = `${gw.match[1]!}?api-key=${KEY}`;
    const prover = benchProverClient(gw.match[2]!);
    try {
      const poll = async (until: () => boolean): Promise<number[]> => {
        const out: number[] = [];
        while (!until()) {
          const t0 = performance.now();
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"jsonrpc":"2.0","id":1,"method":"getSlot","params":[]}',
          });
          await res.json();
          out.push(performance.now() - t0);
        }
        return out;
      };
      const idleUntil = performance.now() + 5000;
      const idle = await poll(() => performance.now() > idleUntil);

      const addr = bigIntToBase58(0xadd0n);
      const state = bigIntToBase58(0x57a7en);
      await prover.registerTree({ pubkey: addr, treeType: 4 });
      await prover.registerTree({ pubkey: state, treeType: 3 });
      const during: number[] = [];
      const writes: { what: string; ms: number }[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        let done = false;
        const polling = poll(() => done);
        let t0 = performance.now();
        await prover.insertAddresses(addr, values(ITEMS, 13 + r * 7_000_000));
        writes.push({ what: `insert ${ITEMS} addresses`, ms: performance.now() - t0 });
        t0 = performance.now();
        await prover.appendLeaves(state, values(ITEMS, 17 + r));
        writes.push({ what: `append ${ITEMS} leaves`, ms: performance.now() - t0 });
        done = true;
        during.push(...(await polling));
      }

      console.log('  getSlot latency (ms)          n      p50      p99      max');
      for (const [name, xs] of [
        ['idle', idle],
        ['during the writes', during],
      ] as const)
        console.log(
          `  ${name.padEnd(24)} ${String(xs.length).padStart(6)} ${ms(quantile(xs, 0.5))}  ${ms(quantile(xs, 0.99))}  ${ms(Math.max(...xs))}`,
        );
      for (const what of [...new Set(writes.map((w) => w.what))]) {
        const xs = writes.filter((w) => w.what === what).map((w) => w.ms);
        console.log(`  ${what}: ${xs.map((x) => x.toFixed(0)).join(', ')} ms (gRPC round trip, in chunks)`);
      }
      console.log(
        `  the longest request: ${Math.max(...during).toFixed(1)} ms during the writes, ${Math.max(...idle).toFixed(1)} ms idle`,
      );
    } finally {
      prover.close();
      await gw.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** The writes in this process: how long the event loop waited behind them (round 1 includes JIT warm-up). */
async function inProcess(): Promise<void> {
  await loadPoseidon();
  const dir = mkdtempSync(join(tmpdir(), 'zkgate-stalls-store-'));
  const store = await TreeStore.open(dir);
  try {
    store.registerTree({ pubkey: 'addr', kind: 'address', version: 2, height: 40 });
    store.registerTree({ pubkey: 'state', kind: 'state', version: 2 });
    console.log('  in process, event-loop delay during each write (ms): round, write, duration, p99, max');
    for (let r = 0; r < ROUNDS; r++)
      for (const w of [
        { op: 'insert' as const, tree: 'addr', addresses: values(ITEMS, 13 + r * 7_000_000) },
        { op: 'append' as const, tree: 'state', leaves: values(ITEMS, 17 + r) },
      ]) {
        const h = monitorEventLoopDelay({ resolution: 1 });
        h.enable();
        const t0 = performance.now();
        await store.exclusive(() => store.write(w));
        const took = performance.now() - t0;
        h.disable();
        console.log(
          `  ${r + 1}  ${w.op} ${ITEMS}`.padEnd(22) + `${ms(took)} ${ms(h.percentile(99) / 1e6)} ${ms(h.max / 1e6)}`,
        );
      }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
