// zkgate's native prover against Light Protocol's own (gnark) prover on this machine, in one run,
// with the same Light /prove bodies sent to both (prover-performance.md §9). Light's prover comes
// from the @lightprotocol/zk-compression-cli 0.27.0 package (its binary and ceremony keys), fetched
// with `npm pack` into a cache outside the checkout (ZKGATE_LIGHT_CACHE, default
// ~/.cache/zkgate/light-cli-0.27.0): never a dependency, never in tests. Printed per shape: latency
// at concurrency 1 (median), proofs/s at concurrency 2, the ratio; then each side's first proof
// after a start and its RSS with the shapes loaded. BENCH_VS_LIGHT_SHAPES selects shapes
// (inclusion_26_1, inclusion_26_4, inclusion_32_1, inclusion_32_4, non-inclusion_26_1,
// combined_26_1_1), BENCH_VS_LIGHT_KEYS light (default: the same key files) or dev, BENCH_VS_LIGHT_ROUNDS the
// rounds (each side measured once per round, the order alternating), BENCH_VS_LIGHT_RUNS the timed
// proofs per side and round.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  KeyStore,
  loadPoseidon,
  SHAPES as ALL,
  shapeByName,
  shutdownZk,
  type CircuitInputs,
  type Shape,
} from '../../src/zk/index.js';
import { toHex32 } from '../../src/zk/field.js';
import { sampleLightInputs } from '../../src/zk/light/sample-inputs.js';
import { BENCH_CACHE as CACHE } from '../lib/paths.js';
import { cpuSeconds, startProcess, type Started } from '../lib/processes.js';
import { envList, table } from '../lib/table.js';
import { startBenchGateway } from './prover.js';

const LIGHT_VERSION = '0.27.0';
const LIGHT_CACHE = process.env.ZKGATE_LIGHT_CACHE ?? join(homedir(), '.cache', 'zkgate', `light-cli-${LIGHT_VERSION}`);
const RUNS = Number(process.env.BENCH_VS_LIGHT_RUNS ?? 12);
// Shared machines drift by tens of percent from one minute to the next: one measurement per side
// compares two different minutes. The sides alternate over rounds instead, and each round gives
// its own ratio; the table prints their median and range.
const ROUNDS = Number(process.env.BENCH_VS_LIGHT_ROUNDS ?? 3);
const WARM = 15;

/**
 * Light's shape name → zkgate's circuit of the same statement, Light's key file for it, and the
 * tree height of an inclusion body from Light's generator (0: a body of made-up inputs, as Light's
 * generator makes inclusion bodies only).
 */
const SHAPES: Record<string, { zkgate: string; file: string; height: number; accounts: number }> = {
  inclusion_26_1: { zkgate: 'v1_inclusion_26_1', file: 'mainnet_inclusion_26_1.key', height: 26, accounts: 1 },
  inclusion_26_4: { zkgate: 'v1_inclusion_26_4', file: 'mainnet_inclusion_26_4.key', height: 26, accounts: 4 },
  inclusion_32_1: { zkgate: 'v2_inclusion_32_1', file: 'inclusion_32_1.key', height: 32, accounts: 1 },
  inclusion_32_4: { zkgate: 'v2_inclusion_32_4', file: 'inclusion_32_4.key', height: 32, accounts: 4 },
  'non-inclusion_26_1': { zkgate: 'v1_non-inclusion_26_1', file: 'non-inclusion_26_1.key', height: 0, accounts: 0 },
  combined_26_1_1: { zkgate: 'v1_combined_26_26_1_1', file: 'combined_26_1_1.key', height: 0, accounts: 0 },
};
const WANTED = envList(process.env.BENCH_VS_LIGHT_SHAPES, [
  'inclusion_26_1',
  'inclusion_26_4',
  'inclusion_32_1',
  'non-inclusion_26_1',
  'combined_26_1_1',
]);
/** light (default): zkgate proves with Light's own key files, imported; dev: with its own dev keys. */
const KEYS = process.env.BENCH_VS_LIGHT_KEYS ?? 'light';

/** The package's bin folder, fetched and unpacked on first use. */
export function lightBin(): string {
  const bin = join(LIGHT_CACHE, 'package', 'bin');
  const prover = join(bin, 'prover-linux-x64');
  if (!existsSync(prover)) {
    if (process.platform !== 'linux' || process.arch !== 'x64')
      throw new Error(`vs-light runs Light's linux-x64 prover binary; this is ${process.platform}-${process.arch}`);
    mkdirSync(LIGHT_CACHE, { recursive: true });
    console.log(`  fetching @lightprotocol/zk-compression-cli@${LIGHT_VERSION} into ${LIGHT_CACHE} (once, ~150 MB)`);
    const tgz = execFileSync(
      'npm',
      ['pack', `@lightprotocol/zk-compression-cli@${LIGHT_VERSION}`, '--pack-destination', LIGHT_CACHE, '--silent'],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .at(-1)!;
    execFileSync('tar', ['xzf', join(LIGHT_CACHE, tgz), '-C', LIGHT_CACHE]);
    rmSync(join(LIGHT_CACHE, tgz));
  }
  chmodSync(prover, 0o755);
  return bin;
}

/**
 * A keys folder for Light's server: every key of the package, and a stand-in (a link to a present
 * key) for each name the server insists on but the package lacks; those shapes are never requested.
 */
function lightKeysDir(bin: string, required: readonly string[]): string {
  const dir = join(LIGHT_CACHE, 'keys');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const shipped = readdirSync(join(bin, 'proving-keys')).filter((f) => f.endsWith('.key'));
  for (const f of shipped) symlinkSync(join(bin, 'proving-keys', f), join(dir, f));
  // The smallest key stands in: Light's server loads every file, so a stand-in costs its memory.
  const smallest = shipped
    .map((f) => ({ f, size: statSync(join(bin, 'proving-keys', f)).size }))
    .sort((a, b) => a.size - b.size)[0]!.f;
  for (const name of required)
    if (!shipped.includes(name)) symlinkSync(join(bin, 'proving-keys', smallest), join(dir, name));
  return dir;
}

/** Light's prover server on free ports; it loads every key before it answers. */
async function startLight(bin: string): Promise<{ proc: Started; url: string }> {
  const port = 30_000 + Math.floor(Math.random() * 20_000);
  const args = [
    'start',
    // Light appends each key's name to this without a separator.
    ...['--keys-dir', `${lightKeysDir(bin, LIGHT_STANDINS)}/`],
    ...['--circuit', 'inclusion', '--circuit', 'non-inclusion', '--circuit', 'combined'],
    ...['--prover-address', `127.0.0.1:${port}`, '--metrics-address', `127.0.0.1:${port + 1}`],
  ];
  const proc = await startProcess(args, /listening|started|Starting/i, {
    timeoutMs: 180_000,
    executable: join(bin, 'prover-linux-x64'),
  });
  const url = `http://127.0.0.1:${port}/prove`;
  // Ready when /prove answers (the log line comes before the keys are in).
  for (let i = 0; ; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 600) throw new Error("Light's prover did not become ready");
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, url };
}

/** Names Light's server requires for the three families (the package ships a subset). */
export const LIGHT_STANDINS: readonly string[] = [
  ...[1, 2, 3, 4, 8].flatMap((n) => [
    `inclusion_32_${n}.key`,
    `mainnet_inclusion_26_${n}.key`,
    `non-inclusion_40_${n}.key`,
  ]),
  'non-inclusion_26_1.key',
  'non-inclusion_26_2.key',
  ...[1, 2, 3, 4].flatMap((i) => [1, 2].flatMap((j) => [`combined_26_${i}_${j}.key`, `combined_32_40_${i}_${j}.key`])),
];

/** A valid Light /prove body: from Light's own generator (V1: without publicInputHash), else made up. */
function lightBody(bin: string, shape: string): string {
  const { height, accounts, zkgate } = SHAPES[shape]!;
  if (height === 0) return sampleBody(shapeByName(zkgate));
  const out = execFileSync(
    join(bin, 'prover-linux-x64'),
    ['gen-test-params', '--compressed-accounts', String(accounts), '--tree-height', String(height)],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const body = JSON.parse(out.slice(out.indexOf('{'))) as Record<string, unknown>;
  if (height === 26) delete body.publicInputHash;
  return JSON.stringify(body);
}

/** A Light /prove body of made-up inputs that the circuit accepts (non-inclusion and combined). */
const sampleBody = (shape: Shape): string => lightBodyOf(shape, sampleLightInputs(shape));

/** The Light /prove body of a shape's circuit inputs. */
export function lightBodyOf(shape: Shape, inputs: CircuitInputs): string {
  const hex = (v: string) => toHex32(BigInt(v));
  const list = (name: string) => (inputs[name] as string[] | undefined) ?? [];
  const accounts = list('roots').map((root, i) => ({
    root: hex(root),
    leaf: hex(list('leaves')[i]!),
    pathIndex: Number(list('inPathIndices')[i]),
    pathElements: (inputs.inPathElements as string[][])[i]!.map(hex),
  }));
  const addresses = list('addressRoots').map((root, i) => ({
    root: hex(root),
    value: hex(list('values')[i]!),
    pathIndex: Number(list('addrPathIndices')[i]),
    pathElements: (inputs.addrPathElements as string[][])[i]!.map(hex),
    leafLowerRangeValue: hex(list('lowValues')[i]!),
    leafHigherRangeValue: hex(list('nextValues')[i]!),
    ...(shape.version === 1 ? { nextIndex: Number(list('nextIndices')[i]) } : {}),
  }));
  return JSON.stringify({
    circuitType: shape.family,
    ...(accounts.length ? { stateTreeHeight: shape.stateHeight, inputCompressedAccounts: accounts } : {}),
    ...(addresses.length ? { addressTreeHeight: shape.addressHeight, newAddresses: addresses } : {}),
    ...(shape.version === 2 ? { publicInputHash: hex(inputs.publicInputHash as string) } : {}),
  });
}

async function prove(url: string, body: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  if (!res.ok || !text.includes('"ar"')) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  return performance.now() - t;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Sets of shapes whose restart time and memory are reported (BENCH_VS_LIGHT_SETS; "" for none). */
const SETS: Record<string, () => string[]> = {
  v1: () => ALL.filter((s) => s.version === 1).map((s) => s.name),
  'v1+v2-8': () => ALL.filter((s) => s.version === 1 || (s.nInclusion <= 8 && s.nNonInclusion <= 8)).map((s) => s.name),
};
const WANTED_SETS = envList(process.env.BENCH_VS_LIGHT_SETS, Object.keys(SETS));

/**
 * Each set preloaded: a first start (tables built and written where missing), then a restart,
 * measured: time to /health ready and RSS once ready, beside Light's RSS with all of its keys.
 */
async function keySets(keys: KeyStore, args: string[], lightRss: number): Promise<void> {
  const rows: string[][] = [];
  const details: string[] = [];
  for (const name of WANTED_SETS) {
    const shapes = SETS[name]!();
    for (const s of shapes) {
      if (keys.status(shapeByName(s)) !== 'ready')
        console.log(`  building the dev key of ${s} (cached for later runs)`);
      await keys.ensure(s);
    }
    const cold = await startBenchGateway('native', { preload: shapes, args });
    cold.client.close();
    await cold.gw.stop();
    const warm = await startBenchGateway('native', { preload: shapes, args, dataDir: cold.dataDir });
    try {
      // What the budget left out: /health names shapes without tables and shapes not preloaded.
      const health = (await (await fetch(new URL('/health', warm.url))).json()) as {
        components: Record<string, { detail?: string }>;
      };
      details.push(`  ${name}: ${health.components.validityProof?.detail ?? ''}`);
      rows.push([
        name,
        String(shapes.length),
        `${(cold.readyMs / 1000).toFixed(1)} s`,
        `${(warm.readyMs / 1000).toFixed(2)} s`,
        `${rssMb(warm.gw.child.pid!).toFixed(0)} MB`,
        `${lightRss.toFixed(0)} MB`,
      ]);
    } finally {
      warm.client.close();
      await warm.gw.stop();
      rmSync(cold.dataDir, { recursive: true, force: true });
    }
  }
  if (rows.length === 0) return;
  console.log('  key sets preloaded (default --prover-memory-mb; Light: all its keys, in every run):');
  table(['set', 'shapes', 'first start', 'restart to ready', 'zkgate RSS', 'Light RSS'], rows);
  console.log(details.join('\n'));
}

/** c=1 median latency and c=2 proofs/s of a warmed-up side. */
async function measure(url: string, body: string): Promise<{ p50: number; rate: number }> {
  const lat: number[] = [];
  for (let i = 0; i < RUNS; i++) lat.push(await prove(url, body));
  const t = performance.now();
  await Promise.all(
    [0, 1].map(async () => {
      for (let i = 0; i < RUNS; i++) await prove(url, body);
    }),
  );
  return { p50: median(lat), rate: (2 * RUNS) / ((performance.now() - t) / 1000) };
}

/** WARM proofs before a side is measured (its first round). */
async function warm(url: string, body: string): Promise<void> {
  for (let i = 0; i < WARM; i++) await prove(url, body);
}

/**
 * Waits until neither process works in the background (zkgate builds fixed-base tables on a thread
 * after a key's first use): the side measured must not share the cores with the other's set-up.
 */
async function settled(pids: number[]): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const before = pids.map(cpuSeconds);
    await new Promise((r) => setTimeout(r, 1000));
    if (pids.every((p, k) => cpuSeconds(p) - before[k]! < 0.05)) return;
  }
}

const rssMb = (pid: number) => {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
};

export const vsLightScenario = {
  name: 'vs-light',
  describe: `zkgate's native prover beside Light's own prover (CLI ${LIGHT_VERSION}'s gnark binary), same /prove bodies, same run`,
  explicitOnly: true,
  async run(): Promise<void> {
    await loadPoseidon();
    const bin = lightBin();
    const keys = new KeyStore(CACHE);
    const light_ = KEYS === 'light';
    if (!light_) for (const s of WANTED) await keys.ensure(shapeByName(SHAPES[s]!.zkgate).name);
    const bodies = new Map(WANTED.map((s) => [s, lightBody(bin, s)]));

    // zkgate starts once to warm its key cache (tables built and written beside the keys; Light's
    // files imported), then restarts: the restart's time to ready and its first proofs are what
    // is measured. Light's prover loads its keys at every start.
    const zkShapes = WANTED.map((s) => SHAPES[s]!.zkgate);
    const zkArgs = [
      '--forester',
      'off',
      ...(light_
        ? [
            '--proving-keys',
            'light',
            '--light-keys',
            WANTED.map((s) => join(bin, 'proving-keys', SHAPES[s]!.file)).join(','),
          ]
        : []),
    ];
    console.log(`  zkgate proves with ${light_ ? "Light's own key files (imported)" : 'its dev keys'}`);
    const light = await startLight(bin);
    let zk: Awaited<ReturnType<typeof startBenchGateway>> | undefined;
    try {
      const cold = await startBenchGateway('native', { preload: zkShapes, args: zkArgs, ownKeys: light_ });
      cold.client.close();
      await cold.gw.stop();
      zk = await startBenchGateway('native', { preload: zkShapes, args: zkArgs, dataDir: cold.dataDir });
      console.log(
        `  zkgate start to /health ready with ${zkShapes.join(', ')} preloaded: first start ${(cold.readyMs / 1000).toFixed(1)} s${light_ ? " (Light's files imported)" : ''}, restart ${(zk.readyMs / 1000).toFixed(2)} s`,
      );
      const zkProve = zk.proveUrl;
      const firsts = new Map<string, { light: number; zk: number }>();
      for (const s of WANTED) {
        const l = await prove(light.url, bodies.get(s)!);
        const z = await prove(zkProve, bodies.get(s)!);
        firsts.set(s, { light: l, zk: z });
      }
      const rows: string[][] = [];
      const first: string[][] = [];
      const pids = [light.proc.child.pid!, zk.gw.child.pid!];
      for (const s of WANTED) {
        const body = bodies.get(s)!;
        await warm(light.url, body);
        await warm(zkProve, body);
        const rounds: { l: { p50: number; rate: number }; z: { p50: number; rate: number } }[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          const sides = r % 2 === 0 ? [light.url, zkProve] : [zkProve, light.url];
          const got = new Map<string, { p50: number; rate: number }>();
          for (const url of sides) {
            await settled(pids);
            got.set(url, await measure(url, body));
          }
          rounds.push({ l: got.get(light.url)!, z: got.get(zkProve)! });
        }
        const l = { p50: median(rounds.map((x) => x.l.p50)), rate: median(rounds.map((x) => x.l.rate)) };
        const z = { p50: median(rounds.map((x) => x.z.p50)), rate: median(rounds.map((x) => x.z.rate)) };
        const ratios = rounds.map((x) => x.z.rate / x.l.rate);
        const f = firsts.get(s)!;
        first.push([
          s,
          `${f.light.toFixed(0)} ms (${(f.light / l.p50).toFixed(2)}×)`,
          `${f.zk.toFixed(0)} ms (${(f.zk / z.p50).toFixed(2)}×)`,
        ]);
        rows.push([
          s,
          `${l.p50.toFixed(1)} ms`,
          `${z.p50.toFixed(1)} ms`,
          l.rate.toFixed(2),
          z.rate.toFixed(2),
          `${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
        ]);
      }
      console.log(
        `  ${ROUNDS} rounds, the sides alternating; medians over the rounds, and the c=2 ratio's median (range) over the rounds' own ratios:`,
      );
      table(
        ['shape', 'Light c=1', 'zkgate c=1', 'Light c=2 proofs/s', 'zkgate c=2 proofs/s', 'zkgate/Light c=2'],
        rows,
      );
      console.log('  first proof after a (re)start, each shape once, in order (× its steady c=1 latency):');
      table(['shape', 'Light', 'zkgate (restart)'], first);
      const lightRss = rssMb(light.proc.child.pid!);
      console.log(
        `  RSS with these shapes loaded (Light's: all its keys, stand-ins included): Light ${lightRss.toFixed(0)} MB, zkgate ${rssMb(zk.gw.child.pid!).toFixed(0)} MB`,
      );
      zk.client.close();
      await zk.gw.stop();
      rmSync(zk.dataDir, { recursive: true, force: true });
      zk = undefined;
      // Sets of every V1 (V2) shape: dev keys, as Light's package lacks most of those files.
      if (!light_) await keySets(keys, zkArgs, lightRss);
    } finally {
      await shutdownZk();
      await light.proc.stop();
      if (zk) {
        zk.client.close();
        await zk.gw.stop();
        rmSync(zk.dataDir, { recursive: true, force: true });
      }
    }
  },
};
