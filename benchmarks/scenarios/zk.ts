// The validity-proof core: Poseidon implementations, dev key setup (cold cache, compile included),
// snarkjs proving in a warm process vs the snarkjs CLI `groth16 fullprove`, and tree throughput.
// BENCH_ZK_PARTS=poseidon,setup,prove,trees selects parts; BENCH_ZK_SETUP / BENCH_ZK_PROVE list
// shapes (comma-separated) to override the defaults; BENCH_TREE_LEAVES sets the big-tree size;
// BENCH_ZK_SNARKJS_POWERS times the snarkjs phase-2 route at those powers (slow, opt-in).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { buildPoseidonReference } from 'circomlibjs';
import { TreeStore } from '../../src/state/index.js';
import {
  circuitInputs,
  inclusionWitness,
  KeyStore,
  nonInclusionWitness,
  proveWithSnarkjs,
  SHAPES,
  shapeByName,
  shutdownZk,
  type InclusionWitness,
  type NonInclusionWitness,
  type Shape,
} from '../../src/zk/index.js';
import { envList as list, table } from '../lib/table.js';
// Keys for the proving part persist between runs in the bench cache (the setup part always starts cold).
import { BENCH_CACHE as PROVE_CACHE, ROOT } from '../lib/paths.js';

const run = promisify(execFile);
const SNARKJS_CLI = join(dirname(createRequire(import.meta.url).resolve('snarkjs')), 'cli.cjs');
const parts = (process.env.BENCH_ZK_PARTS ?? 'poseidon,setup,prove,trees').split(',');
const V1 = SHAPES.filter((s) => s.version === 1).map((s) => s.name);
const V2_PROVE = [
  'v2_inclusion_32_1',
  'v2_inclusion_32_4',
  'v2_inclusion_32_8',
  'v2_inclusion_32_20',
  'v2_non-inclusion_40_1',
  'v2_non-inclusion_40_8',
  'v2_non-inclusion_40_32',
];

/**
 * Each implementation in a child process of its own (the switches are read once per process): the
 * native one's eight-lane IFMA path (where the CPU has it), its scalar path, WebAssembly; and
 * circomlibjs' BigInt reference here. The scalar path is the baseline, measured in the same run.
 */
async function benchPoseidon(): Promise<void> {
  const rates = async (env: Record<string, string>) => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'benchmarks/lib/poseidon-rates.ts')],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
      },
    );
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number | string>;
  };
  const lanes = await rates({});
  const scalar = await rates({ ZKGATE_NATIVE_SIMD: '0' });
  const wasm = await rates({ ZKGATE_POSEIDON: 'wasm' });
  const ref = await buildPoseidonReference();
  const inputs = Array.from({ length: 2000 }, (_, i) => [BigInt(i) * 7919n + 1n, BigInt(i) * 104729n + 3n]);
  const t = performance.now();
  for (const x of inputs) ref(x);
  const bigint = ((performance.now() - t) * 1000) / inputs.length;
  const f = (v: number | string | undefined) => (typeof v === 'number' ? v.toFixed(1) : '-');
  const ratio = (v: number | string | undefined) =>
    typeof v === 'number' && typeof scalar.many2 === 'number' ? (scalar.many2 / v).toFixed(2) : '-';
  console.log('\nPoseidon, µs per hash (lower is better): one call per hash, and batches of 1,000');
  table(
    ['implementation', 'arithmetic', '2 in, one', '2 in, batch', '4 in, one', '4 in, batch', 'batch(2) vs scalar'],
    [
      [
        `native (default)`,
        String(lanes.arithmetic),
        f(lanes.one2),
        f(lanes.many2),
        f(lanes.one4),
        f(lanes.many4),
        ratio(lanes.many2),
      ],
      [
        'native, ZKGATE_NATIVE_SIMD=0',
        String(scalar.arithmetic),
        f(scalar.one2),
        f(scalar.many2),
        f(scalar.one4),
        f(scalar.many4),
        '1.00',
      ],
      ['circomlibjs WebAssembly', '-', f(wasm.one2), f(wasm.many2), f(wasm.one4), f(wasm.many4), ratio(wasm.many2)],
      ['circomlibjs BigInt reference', '-', bigint.toFixed(1), '-', '-', '-', ratio(bigint)],
    ],
  );
}

/** Random valid witnesses for a shape from real trees. */
function witnesses(store: TreeStore, shape: Shape): { accounts: InclusionWitness[]; addresses: NonInclusionWitness[] } {
  const v = shape.version;
  const st = store.stateTree(`s${v}`);
  const ad = store.addressTree(`a${v}`);
  const accounts = Array.from({ length: shape.nInclusion }, (_, i) => inclusionWitness(st.proofByIndex(i * 3)));
  const addresses = Array.from({ length: shape.nNonInclusion }, (_, i) =>
    nonInclusionWitness(ad.nonInclusionProof(BigInt(i) * 1000n + 500n)),
  );
  return { accounts, addresses };
}

async function benchSetupAndProve(dir: string): Promise<void> {
  const keys = new KeyStore(join(dir, 'data'));
  const proveKeys = new KeyStore(PROVE_CACHE);
  const setupShapes = list(process.env.BENCH_ZK_SETUP, V1);
  if (parts.includes('setup')) {
    console.log('\nDev key setup, cold cache (circom --O2 compile + deterministic setup), seconds');
    const rows: string[][] = [];
    let total = 0;
    for (const name of setupShapes) {
      const t = performance.now();
      const key = await keys.build(name);
      const s = (performance.now() - t) / 1000;
      total += s;
      rows.push([
        name,
        String(key.entry.nVars),
        `2^${Math.log2(key.entry.domainSize)}`,
        s.toFixed(1),
        (statSync(key.zkeyPath).size / 1e6).toFixed(1),
      ]);
    }
    table(['shape', 'wires', 'domain', 'seconds', 'zkey MB'], rows);
    console.log(`total for ${setupShapes.length} shapes: ${total.toFixed(1)} s`);
    await snarkjsRoute(keys, rows);
  }
  if (!parts.includes('prove')) return;
  const store = await TreeStore.open(join(dir, 'trees'));
  for (const v of [1, 2] as const) {
    store.registerTree({ pubkey: `s${v}`, kind: 'state', version: v });
    store.registerTree({ pubkey: `a${v}`, kind: 'address', version: v });
    store.stateTree(`s${v}`).append(Array.from({ length: 100 }, (_, i) => BigInt(i) * 31n + 7n));
    store.addressTree(`a${v}`).insert(Array.from({ length: 40 }, (_, i) => BigInt(i) * 1000n + 1n));
  }
  const proveShapes = list(process.env.BENCH_ZK_PROVE, [...V1, ...V2_PROVE]);
  console.log('\nsnarkjs proving, warm process (key files cached by the OS, curve workers running), ms per proof');
  const rows: string[][] = [];
  for (const name of proveShapes) {
    const shape = shapeByName(name);
    const key = await proveKeys.ensure(name);
    const { accounts, addresses } = witnesses(store, shape);
    const inputs = circuitInputs(shape, accounts, addresses);
    await proveWithSnarkjs(key, inputs); // warm-up
    const runs = 3;
    let t = performance.now();
    for (let i = 0; i < runs; i++) await proveWithSnarkjs(key, inputs);
    const warm = (performance.now() - t) / runs;
    const files = mkdtempSync(join(tmpdir(), 'zkgate-bench-cli-'));
    writeFileSync(join(files, 'input.json'), JSON.stringify(inputs));
    t = performance.now();
    await run(
      process.execPath,
      [SNARKJS_CLI, 'groth16', 'fullprove', 'input.json', key.wasmPath, key.zkeyPath, 'proof.json', 'public.json'],
      { cwd: files },
    );
    const cliMs = performance.now() - t;
    rmSync(files, { recursive: true, force: true });
    rows.push([name, warm.toFixed(0), cliMs.toFixed(0), (cliMs / warm).toFixed(2)]);
    console.log(`  ${name}: ${warm.toFixed(0)} ms`);
  }
  table(['shape', 'warm ms', 'CLI fullprove ms', 'CLI/warm'], rows);
  await store.close();
}

/**
 * The snarkjs phase-2 route (powers of tau, prepare phase2, groth16 setup, one contribution) for
 * the first benchmarked shape of each power in BENCH_ZK_SNARKJS_POWERS (e.g. "13"): minutes per
 * power, 30-40 min at 2^16, hence opt-in.
 */
async function snarkjsRoute(keys: KeyStore, rows: string[][]): Promise<void> {
  const powers = list(process.env.BENCH_ZK_SNARKJS_POWERS, []);
  if (powers.length === 0) {
    console.log(
      'snarkjs phase-2 route: set BENCH_ZK_SNARKJS_POWERS=13 (or 14, 15, 16) to time it beside the dev setup',
    );
    return;
  }
  for (const power of powers) {
    const row = rows.find((r) => r[2] === `2^${power}`);
    if (!row) {
      console.log(`snarkjs phase-2 route at 2^${power}: no benchmarked shape has that domain`);
      continue;
    }
    const key = await keys.ensure(row[0]!);
    const r1cs = join(dirname(key.wasmPath), '..', 'main.r1cs');
    const cwd = mkdtempSync(join(tmpdir(), 'zkgate-bench-ptau-'));
    const step = async (args: string[]) => {
      const t = performance.now();
      await run(process.execPath, [SNARKJS_CLI, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
      return (performance.now() - t) / 1000;
    };
    try {
      const tau =
        (await step(['powersoftau', 'new', 'bn128', power, 'p0.ptau'])) +
        (await step(['powersoftau', 'contribute', 'p0.ptau', 'p1.ptau', '--name=bench', '-e=bench']));
      const prepare = await step(['powersoftau', 'prepare', 'phase2', 'p1.ptau', 'p2.ptau']);
      const setup =
        (await step(['groth16', 'setup', r1cs, 'p2.ptau', 'k0.zkey'])) +
        (await step(['zkey', 'contribute', 'k0.zkey', 'k1.zkey', '--name=bench', '-e=bench']));
      const totalS = tau + prepare + setup;
      console.log(
        `snarkjs phase-2 route, ${row[0]} (2^${power}): powers of tau ${tau.toFixed(1)} s + prepare phase2 ${prepare.toFixed(1)} s + ` +
          `setup and contribution ${setup.toFixed(1)} s = ${totalS.toFixed(1)} s; dev setup ${row[3]} s (compile included): ` +
          `${(totalS / Number(row[3])).toFixed(1)}× faster`,
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }
}

async function benchTrees(dir: string): Promise<void> {
  const store = await TreeStore.open(join(dir, 'bench-trees'));
  store.registerTree({ pubkey: 'state', kind: 'state', version: 1 });
  store.registerTree({ pubkey: 'addr', kind: 'address', version: 2 });
  const st = store.stateTree('state');
  const batch = 1000;
  let t = performance.now();
  const appendTotal = 20_000;
  for (let b = 0; b < appendTotal / batch; b++)
    st.append(Array.from({ length: batch }, (_, i) => BigInt(b * batch + i + 1) * 7919n));
  const appendRate = appendTotal / ((performance.now() - t) / 1000);
  const ad = store.addressTree('addr');
  const insertTotal = 10_000;
  t = performance.now();
  let x = 12345n;
  for (let b = 0; b < insertTotal / batch; b++) {
    const addrs: bigint[] = [];
    for (let i = 0; i < batch; i++) {
      x = (x * 6364136223846793005n + 1442695040888963407n) % (1n << 247n);
      addrs.push(x);
    }
    ad.insert(addrs);
  }
  const insertRate = insertTotal / ((performance.now() - t) / 1000);
  console.log('\nTrees on disk (LMDB), batches of 1,000');
  table(
    ['operation', 'per second'],
    [
      ['state-tree leaf appends (V1, h26)', appendRate.toFixed(0)],
      ['address inserts (V2, h40)', insertRate.toFixed(0)],
    ],
  );
  await store.close();

  const big = Number(process.env.BENCH_TREE_LEAVES ?? 1_000_000);
  const bigDir = join(dir, 'big-tree');
  const s2 = await TreeStore.open(bigDir);
  s2.registerTree({ pubkey: 'big', kind: 'state', version: 1 });
  const bt = s2.stateTree('big');
  const rssBefore = process.memoryUsage.rss();
  t = performance.now();
  for (let done = 0; done < big; done += 10_000)
    bt.append(Array.from({ length: Math.min(10_000, big - done) }, (_, i) => BigInt(done + i + 1)));
  const secs = (performance.now() - t) / 1000;
  const proof = bt.proofByIndex(big - 1);
  const size = readdirSync(bigDir).reduce((a, f) => a + statSync(join(bigDir, f)).size, 0);
  console.log(
    `\n${big.toLocaleString('en')}-leaf state tree: built in ${secs.toFixed(1)} s (${(big / secs).toFixed(0)} leaves/s), ` +
      `store ${(size / 1e6).toFixed(0)} MB on disk, process RSS ${(process.memoryUsage.rss() / 1e6).toFixed(0)} MB ` +
      `(was ${(rssBefore / 1e6).toFixed(0)} MB before; LMDB pages are memory-mapped), path length ${proof.pathElements.length}`,
  );
  await s2.close();
}

export const zkScenario = {
  name: 'zk',
  describe: 'Poseidon, dev key setup, snarkjs proving (warm vs CLI) and tree throughput',
  async run(): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'zkgate-bench-zk-'));
    try {
      if (parts.includes('poseidon')) await benchPoseidon();
      if (parts.includes('setup') || parts.includes('prove')) await benchSetupAndProve(dir);
      if (parts.includes('trees')) await benchTrees(dir);
    } finally {
      await shutdownZk();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
