// Event-loop stalls under large StateSync writes: a gateway (child process) takes 5,000-address
// inserts and 5,000-leaf appends over gRPC while a client polls JSON-RPC back to back; printed, the
// request latencies while idle and during the writes (the bound: a big write delays no
// request by more than 50 ms), and how long the writes took in chunks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProverClient } from '../../src/prover/index.js';
import { bigIntToBase58 } from '../../src/zk/index.js';
import { BENCH_KEY as KEY, ROOT as root } from '../lib/paths.js';
import { startProcess } from '../lib/processes.js';

const ROUNDS = 3;
const ITEMS = 5000;

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;
const ms = (x: number) => x.toFixed(1).padStart(7);

export const stallsScenario = {
  name: 'stalls',
  describe: `JSON-RPC latency while the gateway takes ${ITEMS}-item StateSync writes (chunked) against idle`,
  async run(): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'zkgate-stalls-'));
    const gw = await startProcess(
      [
        join(root, 'dist/main.js'),
        'start',
        ...['--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--ws-port', '0'],
        ...['--data-dir', dir, '--api-keys', KEY, '--rate-limit', '0', '--log-level', 'warn'],
        ...['--preload-circuits', '', '--forester', 'off'],
      ],
      /JSON-RPC\s+(http:\S+)\?api-key=[^\n]*\n\s+websocket[^\n]*\n\s+gRPC\s+(\S+)/,
      { timeoutMs: 120_000 },
    );
    const url = `${gw.match[1]!}?api-key=${KEY}`;
    const prover = new ProverClient(gw.match[2]!);
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
      const values = (n: number, seed: number) =>
        Array.from({ length: n }, (_, i) => BigInt(i + 1) * 1_000_003n + BigInt(seed));
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
        `  the longest request during the writes took ${(Math.max(...during) / quantile(idle, 0.5)).toFixed(1)}× an idle median`,
      );
    } finally {
      prover.close();
      await gw.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
