// The forester's batch proofs: each batch circuit's proof time with the native prover, warm key
// (tables built), on 2 threads and on 1 (the forester's background setting), median of 3 (of 1 for
// the production sizes, minutes each); inputs are real batches built against a store's trees.
// Update × 500 and address append × 250 are structured circuits (src/zk/structured/): their key
// build, when this run does it, is timed too. BENCH_FORESTER_SHAPES limits the circuits.
// Transfers under the forester's load: the forester-sustained scenario.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressAppendInputs, appendInputs, updateInputs } from '../../src/forester/batch-inputs.js';
import { NativeBackend } from '../../src/prover/native-backend.js';
import { TreeStore } from '../../src/state/index.js';
import { BATCH_SHAPES, KeyStore, loadPoseidon, poseidon, shutdownZk, verifyGroth16 } from '../../src/zk/index.js';
import { isStructuredShape } from '../../src/zk/structured/registry.js';
import type { CircuitInputs } from '../../src/zk/inputs.js';
import { BENCH_CACHE as CACHE } from '../lib/paths.js';
import { envList, table } from '../lib/table.js';

const ONLY = envList(process.env.BENCH_FORESTER_SHAPES, []);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const tmp = (label: string) => mkdtempSync(join(tmpdir(), `zkgate-bench-${label}-`));

/** One real zkp batch of 10 for each circuit, built against trees with entries already in them. */
async function batchInputs(): Promise<Map<string, CircuitInputs>> {
  const dir = tmp('forester-inputs');
  const store = await TreeStore.open(dir);
  try {
    store.registerTree({ pubkey: 'state', kind: 'state', version: 2 });
    store.registerTree({ pubkey: 'addr', kind: 'address', version: 2 });
    const s = store.stateTree('state');
    const leaves = Array.from({ length: 520 }, (_, i) => poseidon([BigInt(i), 5n]));
    s.enqueue(0, leaves);
    s.batchAppend(10);
    s.batchAppend(10);
    const nodes = { height: 32, node: (l: number, i: number) => s.node(l, i) };
    const a = store.addressTree('addr');
    a.enqueue(Array.from({ length: 10 }, (_, i) => BigInt(i + 1) << 200n));
    a.batchInsert(10);
    const indexed = {
      height: 40,
      node: (l: number, i: number) => a.node(l, i),
      lowElement: (v: bigint) => a.lowElement(v),
      element: (i: number) => a.element(i),
    };
    // Nullified leaves spread over appended (0..19) and still queued positions, as on a busy tree.
    const spent = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ leaf: leaves[i]!, leafIndex: i, txHash: BigInt(i + 7) }));
    const addresses = (n: number) => Array.from({ length: n }, (_, i) => (BigInt(i + 1) << 200n) + 12345n);
    return new Map([
      ['batch_append_32_10', appendInputs(nodes, 20, leaves.slice(20, 30)).inputs],
      ['batch_append_32_500', appendInputs(nodes, 20, leaves.slice(20, 520)).inputs],
      ['batch_update_32_10', updateInputs(nodes, spent(10)).inputs],
      ['batch_update_32_500', updateInputs(nodes, spent(500)).inputs],
      ['batch_address_append_40_10', addressAppendInputs(indexed, a.info().nextIndex, addresses(10)).inputs],
      ['batch_address_append_40_250', addressAppendInputs(indexed, a.info().nextIndex, addresses(250)).inputs],
    ]);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function proofs(): Promise<void> {
  const keys = new KeyStore(CACHE);
  const inputs = await batchInputs();
  const rows: string[][] = [];
  for (const shape of BATCH_SHAPES.filter((s) => ONLY.length === 0 || ONLY.includes(s.name))) {
    const i = inputs.get(shape.name)!;
    const structured = isStructuredShape(shape);
    const built = keys.status(shape) === 'ready';
    const t0 = performance.now();
    const key = await keys.ensure(shape.name, (step, done, total) => {
      if (done === total)
        console.error(`  ${shape.name}: ${step} done (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    });
    const buildS = built ? 'on file' : ((performance.now() - t0) / 1000).toFixed(0);
    const backend = new NativeBackend({ memoryBudgetBytes: 6 * 2 ** 30, curveThreads: 2 });
    const job = { shape: shape.name, zkeyPath: key.zkeyPath, wasmPath: key.wasmPath, keyBytes: 0, inputs: i };
    await backend.waitForTables(job);
    const times = async (threads: number) => {
      const ms: number[] = [];
      const witness: number[] = [];
      for (let k = 0; k < (structured ? 1 : 3); k++) {
        const t = performance.now();
        const p = await backend.prove({ ...job, threads });
        ms.push(performance.now() - t);
        witness.push(p.timings.witnessMs);
        assert.ok(verifyGroth16(key.vk, p.publicSignals, p.points), `${shape.name}: the proof does not verify`);
      }
      return { ms: median(ms), witness: median(witness) };
    };
    const two = await times(2);
    const one = await times(1);
    rows.push([
      shape.name,
      key.entry.nVars.toLocaleString('en'),
      two.ms.toFixed(0),
      two.witness.toFixed(0),
      one.ms.toFixed(0),
      buildS,
      structured ? 'structured' : 'circom',
    ]);
    console.error(`  ${shape.name}: ${two.ms.toFixed(0)} ms on 2 threads, ${one.ms.toFixed(0)} ms on 1`);
  }
  table(
    ['circuit', 'wires', 'ms (2 threads)', 'of it witness', 'ms (1 thread, background)', 'key build (s)', 'builder'],
    rows,
  );
}

export const foresterScenario = {
  name: 'forester',
  describe: 'batch proof times per circuit, on 2 threads and on the 1 the forester uses',
  async run(): Promise<void> {
    await loadPoseidon();
    try {
      await proofs();
    } finally {
      await shutdownZk(); // the setup's worker pool would keep the process alive
    }
  },
};
