// The proving backends side by side, on this machine in one run:
//  1. in process, warm keys, one proof at a time: the snarkjs backend and the native backend on the
//     same inputs (witness included, as a request pays it; native's proving step also alone);
//  2. the native key load (parse, and fixed-base tables) and its memory, with and without tables;
//  3. proofs/s at concurrency 2 through JSON-RPC (a gateway in a child process) with each backend,
//     once steady (each worker loads its own key and, for native, builds its tables meanwhile).
// BENCH_BACKENDS_SHAPES selects shapes; BENCH_BACKENDS_RPC=0 skips part 3.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProveJob, ProverBackend } from '../../src/prover/backend.js';
import { demoAccountHashes, demoAddress } from '../../src/prover/index.js';
import { loadNativeAddon } from '../../src/zk/native-addon.js';
import { NativeBackend } from '../../src/prover/native-backend.js';
import { SnarkjsBackend } from '../../src/prover/snarkjs-backend.js';
import { TreeStore } from '../../src/state/index.js';
import {
  circuitInputs,
  inclusionWitness,
  KeyStore,
  loadPoseidon,
  nonInclusionWitness,
  shapeByName,
  shutdownZk,
  verifyGroth16,
} from '../../src/zk/index.js';
import { load, params, post, startBenchGateway } from './prover.js';
import { envList as list, table } from '../lib/table.js';
import { BENCH_CACHE as CACHE } from '../lib/paths.js';

const SHAPES = list(process.env.BENCH_BACKENDS_SHAPES, [
  'v1_inclusion_26_1',
  'v1_inclusion_26_8',
  'v1_combined_26_26_4_2',
  'v2_inclusion_32_20',
]);
const BUDGET = 4 * 1024 ** 3;

const childRssMb = (pid: number) => {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
};

const rssMb = () => {
  const m = readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
};

/** Mean ms of `runs` proofs after one warm-up (and its tables), with the proofs checked against the key. */
async function time(backend: ProverBackend, job: ProveJob, runs: number, vk: Parameters<typeof verifyGroth16>[0]) {
  const warm = await backend.prove(job);
  if (backend instanceof NativeBackend) await backend.waitForTables(job);
  if (!verifyGroth16(vk, warm.publicSignals, warm.points)) throw new Error(`${backend.name}: proof does not verify`);
  let total = 0;
  let prove = 0;
  let witness = 0;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = await backend.prove(job);
    total += performance.now() - t;
    prove += r.timings.proveMs;
    witness += r.timings.witnessMs;
  }
  return { total: total / runs, prove: prove / runs, witness: witness / runs };
}

export const backendsScenario = {
  name: 'backends',
  describe: 'snarkjs vs native backend: warm proofs one at a time, native key load and memory, proofs/s at c=2',
  async run(): Promise<void> {
    const status = loadNativeAddon();
    if (!status.ok) throw new Error(status.reason);
    await loadPoseidon();
    const keys = new KeyStore(CACHE);
    const dir = mkdtempSync(join(tmpdir(), 'zkgate-bench-backends-'));
    const store = await TreeStore.open(dir);
    const rows: string[][] = [];
    const loadRows: string[][] = [];
    try {
      for (const v of [1, 2] as const) {
        store.registerTree({ pubkey: `s${v}`, kind: 'state', version: v });
        store.registerTree({ pubkey: `a${v}`, kind: 'address', version: v });
        store.stateTree(`s${v}`).append(demoAccountHashes(`s${v}`, v, 0, 64, 'bench'));
      }
      for (const name of SHAPES) {
        const shape = shapeByName(name);
        if (keys.status(shape) !== 'ready') console.log(`  building the dev key of ${name} (cached for later runs)`);
        const key = await keys.ensure(name);
        const v = shape.version;
        const accounts = Array.from({ length: shape.nInclusion }, (_, i) =>
          inclusionWitness(store.stateTree(`s${v}`).proofByIndex(i * 2)),
        );
        const addresses = Array.from({ length: shape.nNonInclusion }, (_, i) =>
          nonInclusionWitness(store.addressTree(`a${v}`).nonInclusionProof(demoAddress(i, 'backends'))),
        );
        const job: ProveJob = {
          shape: name,
          zkeyPath: key.zkeyPath,
          wasmPath: key.wasmPath,
          keyBytes: statSync(key.zkeyPath).size + statSync(key.wasmPath).size,
          inputs: circuitInputs(shape, accounts, addresses),
        };
        const big = key.entry.nVars > 100_000;
        const snark = await time(
          new SnarkjsBackend({ memoryBudgetBytes: BUDGET, curveThreads: 2 }),
          job,
          big ? 1 : 3,
          key.vk,
        );
        const native = await time(
          new NativeBackend({ memoryBudgetBytes: BUDGET, curveThreads: 2 }),
          job,
          big ? 3 : 10,
          key.vk,
        );
        rows.push([
          name,
          String(key.entry.nVars),
          snark.total.toFixed(0),
          native.total.toFixed(1),
          native.prove.toFixed(1),
          native.witness.toFixed(1),
          (snark.total / native.total).toFixed(1) + '×',
        ]);
        console.log(`  ${name}: snarkjs ${snark.total.toFixed(0)} ms, native ${native.total.toFixed(1)} ms`);

        // Key load and memory: parse only, then parse + tables (the backend's default budget).
        const zkey = readFileSync(key.zkeyPath);
        const measure = (budget: number) => {
          (globalThis as { gc?: () => void }).gc?.();
          const before = rssMb();
          const t = performance.now();
          const handle = status.addon.loadKey(zkey, budget, 2, false, '');
          const ms = performance.now() - t;
          const info = status.addon.keyInfo(handle);
          return { ms, rss: rssMb() - before, info };
        };
        const plain = measure(0);
        const tables = measure(BUDGET);
        loadRows.push([
          name,
          (zkey.byteLength / 1e6).toFixed(1),
          plain.ms.toFixed(0),
          (plain.info.bytes / 1e6).toFixed(1),
          plain.rss.toFixed(0),
          tables.ms.toFixed(0),
          (tables.info.tableBytes / 1e6).toFixed(1),
          tables.rss.toFixed(0),
        ]);
      }
      console.log('\nWarm proofs, one at a time, in process (ms per proof; 2 threads per proof; witness included)');
      table(['shape', 'wires', 'snarkjs', 'native', 'native prove', 'native witness', 'speed-up'], rows);
      console.log('\nNative key load (ms) and memory (MB): parse only, then parse + fixed-base tables');
      table(['shape', 'zkey MB', 'parse ms', 'key MB', 'RSS +MB', 'parse+tables ms', 'tables MB', 'RSS +MB'], loadRows);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      await shutdownZk();
    }

    if (process.env.BENCH_BACKENDS_RPC === '0') return;
    const rpcRows: string[][] = [];
    for (const backend of ['snarkjs', 'native']) {
      const { gw, url, client, dataDir } = await startBenchGateway(backend);
      try {
        for (const shape of ['v1_inclusion_26_1', 'v1_inclusion_26_8']) {
          // Warm until steady: both workers have the key loaded and, for native, its fixed-base
          // tables built in the background (rounds of 4 proofs until two rounds in a row beat the
          // best by less than 5 %).
          await Promise.all(
            [0, 1].map((i) => post(url, JSON.stringify({ jsonrpc: '2.0', id: i, ...params(shape, i) }))),
          );
          let best = 0;
          for (let round = 0, stale = 0; round < 30 && stale < 2; round++) {
            const r = await load(url, shape, 2, 4);
            if (r.perSec > best * 1.05) {
              best = r.perSec;
              stale = 0;
            } else stale++;
          }
          const total =
            backend === 'snarkjs' ? (shape === 'v1_inclusion_26_1' ? 10 : 4) : shape === 'v1_inclusion_26_1' ? 60 : 12;
          const r = await load(url, shape, 2, total);
          rpcRows.push([
            backend,
            shape,
            String(total),
            r.p50.toFixed(0),
            r.p99.toFixed(0),
            r.perSec.toFixed(2),
            childRssMb(gw.child.pid!).toFixed(0),
          ]);
        }
      } finally {
        client.close();
        await gw.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
    console.log('\nThrough JSON-RPC at concurrency 2 (gateway in a child process, 2 workers)');
    table(['backend', 'shape', 'requests', 'p50 ms', 'p99 ms', 'proofs/s', 'gateway RSS MB'], rpcRows);
  },
};
