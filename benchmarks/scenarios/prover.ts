// The prover service through JSON-RPC: a real gateway in a child process (HTTP → adapter → gRPC →
// prover → worker threads), requests at concurrency 1, 2 and 8 per shape; in the same run, the warm
// in-process snarkjs proving time of the same shape (the baseline the service's overhead is
// measured against), and the gateway's RSS once the V1 shapes are loaded.
// BENCH_PROVER_SHAPES, BENCH_PROVER_CONCURRENCY select; BENCH_PROVER_MEMORY=0 skips the memory part;
// BENCH_PROVER_BACKEND picks the gateway's backend (snarkjs by default: the baseline is snarkjs, so
// the difference is the service's own overhead; `npm run bench -- backends` compares backends).
import { DEMO_V1_TREE, DEMO_V2_TREE } from '../../src/demo-command.js';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoAccountHashes, demoAddress } from '../../src/prover/index.js';
import { TreeStore } from '../../src/state/index.js';
import {
  bigIntToBase58,
  circuitInputs,
  inclusionWitness,
  KeyStore,
  loadPoseidon,
  nonInclusionWitness,
  proveWithSnarkjs,
  SHAPES,
  shapeByName,
  shutdownZk,
} from '../../src/zk/index.js';
import { startProcess } from '../lib/processes.js';
import { envList as list, table } from '../lib/table.js';
import { ROOT as root, BENCH_CACHE as CACHE, BENCH_KEY as KEY } from '../lib/paths.js';
import { BENCH_TOKEN_ARGS, benchProverClient } from '../lib/prover-client.js';

// The bench's own trees (Light's localnet trees follow the embedded ledger's transactions).
const SMT1 = DEMO_V1_TREE;
const BMT1 = DEMO_V2_TREE;
const AMT1 = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';
const AMT2 = 'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx';
const SHAPE_NAMES = list(process.env.BENCH_PROVER_SHAPES, [
  'v1_inclusion_26_1',
  'v1_inclusion_26_8',
  'v1_non-inclusion_26_1',
  'v1_combined_26_26_1_1',
  'v2_inclusion_32_1',
]);
const CONCURRENCY = list(process.env.BENCH_PROVER_CONCURRENCY, ['1', '2', '8']).map(Number);
const N_ACCOUNTS = 1000;

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
export function post(url: string, body: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(parts).toString('utf8'))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let addressCounter = 0;
/** A request for `shape` over the ingested accounts, with fresh addresses each time. */
export function params(shapeName: string, i: number): { method: string; params: unknown } {
  const s = shapeByName(shapeName);
  const v = s.version;
  const tree = v === 1 ? SMT1 : BMT1;
  const hashes = demoAccountHashes(tree, v, (i * 7) % (N_ACCOUNTS - 10), s.nInclusion, 'bench').map(bigIntToBase58);
  const newAddressesWithTrees = Array.from({ length: s.nNonInclusion }, () => ({
    address: bigIntToBase58(demoAddress(++addressCounter, 'bench-new')),
    tree: v === 1 ? AMT1 : AMT2,
  }));
  return { method: v === 1 ? 'getValidityProof' : 'getValidityProofV2', params: { hashes, newAddressesWithTrees } };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

export async function load(url: string, shape: string, concurrency: number, total: number) {
  const lat: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const { method, params: p } = params(shape, i);
        const t = performance.now();
        const res = await post(url, JSON.stringify({ jsonrpc: '2.0', id: i, method, params: p }));
        if (!res.result) throw new Error(`${shape}: ${JSON.stringify(res.error)}`);
        lat.push(performance.now() - t);
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  return { p50: pct(lat, 50), p99: pct(lat, 99), perSec: total / wall };
}

/** Warm in-process snarkjs proving of the same shape over the same kind of trees. */
async function baseline(keys: KeyStore, shapeName: string): Promise<number> {
  const shape = shapeByName(shapeName);
  const dir = mkdtempSync(join(tmpdir(), 'zkgate-bench-base-'));
  const store = await TreeStore.open(dir);
  try {
    const v = shape.version;
    const tree = v === 1 ? SMT1 : BMT1;
    store.registerTree({ pubkey: tree, kind: 'state', version: v });
    store.registerTree({ pubkey: 'addr', kind: 'address', version: v });
    store.stateTree(tree).append(demoAccountHashes(tree, v, 0, 20, 'bench'));
    const accounts = Array.from({ length: shape.nInclusion }, (_, i) =>
      inclusionWitness(store.stateTree(tree).proofByIndex(i)),
    );
    const addresses = Array.from({ length: shape.nNonInclusion }, (_, i) =>
      nonInclusionWitness(store.addressTree('addr').nonInclusionProof(demoAddress(i, 'base'))),
    );
    const key = await keys.ensure(shapeName);
    const inputs = circuitInputs(shape, accounts, addresses);
    await proveWithSnarkjs(key, inputs);
    const runs = 3;
    const t = performance.now();
    for (let i = 0; i < runs; i++) await proveWithSnarkjs(key, inputs);
    return (performance.now() - t) / runs;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rssMb = (pid: number) => {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
};

/** A gateway in a child process on the bench key cache, with N_ACCOUNTS accounts in smt1 and bmt1. */
/**
 * A gateway over the bench's key cache. `preload`: shapes loaded in every worker before /health is
 * ready (the start then waits for that); `dataDir`: reuse one (a restart); `args`: more options.
 */
export async function startBenchGateway(
  backend: string,
  opts: { preload?: readonly string[]; dataDir?: string; args?: readonly string[]; ownKeys?: boolean } = {},
) {
  const started = performance.now();
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'zkgate-bench-prover-'));
  // ownKeys: a key store of its own (Light's keys imported there are not the shared cache's).
  if (!opts.dataDir && !opts.ownKeys)
    for (const sub of ['keys', 'circuits']) {
      mkdirSync(join(CACHE, sub), { recursive: true });
      symlinkSync(join(CACHE, sub), join(dataDir, sub), 'dir');
    }
  const gw = await startProcess(
    [
      join(root, 'dist/main.js'),
      'start',
      ...['--data-dir', dataDir, '--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0'],
      ...['--api-keys', KEY, '--log-level', 'warn', '--rate-limit', '0', '--proof-timeout-ms', '600000'],
      ...BENCH_TOKEN_ARGS,
      ...[
        '--prover-backend',
        backend,
        '--preload-circuits',
        (opts.preload ?? []).join(','),
        '--build-at-start',
        'none',
      ],
      ...(opts.args ?? []),
    ],
    /JSON-RPC\s+(http:\/\/\S+\/)\?api-key=[\s\S]*gRPC\s+(\S+)\s+\/prove\s+(http:\S+)/,
    { timeoutMs: 60_000 },
  );
  const url = `${gw.match[1]}?api-key=${KEY}`;
  // Ready: /health answers 200 (503 "warming" while the preloaded shapes load).
  for (;;) {
    const res = await fetch(`${gw.match[1]}health`).catch(() => undefined);
    if (res?.status === 200) break;
    await res?.text();
    if (performance.now() - started > 600_000) throw new Error('the gateway did not become ready in 10 min');
    await new Promise((r) => setTimeout(r, 20));
  }
  const readyMs = performance.now() - started;
  const client = benchProverClient(gw.match[2]!);
  if (!opts.dataDir) {
    await client.registerTree({ pubkey: SMT1, treeType: 1 });
    await client.registerTree({ pubkey: BMT1, treeType: 3 });
    await client.appendLeaves(SMT1, demoAccountHashes(SMT1, 1, 0, N_ACCOUNTS, 'bench'), 1n);
    await client.appendLeaves(BMT1, demoAccountHashes(BMT1, 2, 0, N_ACCOUNTS, 'bench'), 1n);
  }
  return { gw, url, client, dataDir, proveUrl: gw.match[3]!, readyMs };
}

export const proverScenario = {
  name: 'prover',
  describe:
    'getValidityProof(V2) through JSON-RPC → gRPC → worker pool at concurrency 1/2/8, vs warm in-process snarkjs',
  async run(): Promise<void> {
    await loadPoseidon();
    const keys = new KeyStore(CACHE);
    const memory = process.env.BENCH_PROVER_MEMORY !== '0';
    const V1 = SHAPES.filter((s) => s.version === 1).map((s) => s.name);
    const needed = [...new Set([...SHAPE_NAMES, ...(memory ? V1 : [])])];
    for (const name of needed) {
      if (keys.status(shapeByName(name)) !== 'ready')
        console.log(`  building the dev key of ${name} (cached for later runs)`);
      await keys.ensure(name);
    }
    const { gw, url, client, dataDir } = await startBenchGateway(process.env.BENCH_PROVER_BACKEND ?? 'snarkjs');
    try {
      const rows: string[][] = [];
      for (const shape of SHAPE_NAMES) {
        // Warm both workers (key loaded, witness calculator compiled) before timing.
        await Promise.all([0, 1].map((i) => post(url, JSON.stringify({ jsonrpc: '2.0', id: i, ...params(shape, i) }))));
        const base = await baseline(keys, shape);
        for (const c of CONCURRENCY) {
          const total = shape === 'v1_inclusion_26_8' ? Math.max(3, c) : Math.max(5, 2 * c);
          const r = await load(url, shape, c, total);
          const overhead = c === 1 ? `${(((r.p50 - base) / base) * 100).toFixed(1)} %` : '';
          rows.push([
            shape,
            String(c),
            String(total),
            r.p50.toFixed(0),
            r.p99.toFixed(0),
            r.perSec.toFixed(2),
            base.toFixed(0),
            overhead,
          ]);
          console.log(`  ${shape} c=${c}: p50 ${r.p50.toFixed(0)} ms, ${r.perSec.toFixed(2)} proofs/s`);
        }
      }
      console.log('\nValidity proofs through JSON-RPC (gateway in a child process, 2 worker threads), ms');
      table(['shape', 'conc.', 'reqs', 'p50', 'p99', 'proofs/s', 'in-process snarkjs', 'overhead at c=1'], rows);
      console.log('overhead = (p50 at concurrency 1 − warm in-process snarkjs) / warm in-process snarkjs');

      if (memory) {
        const before = rssMb(gw.child.pid!);
        // Every V1 shape proved twice at once, so each of the two workers is likely to load it.
        for (const shape of V1)
          await Promise.all(
            [0, 1].map((i) => post(url, JSON.stringify({ jsonrpc: '2.0', id: i, ...params(shape, i) }))),
          );
        console.log(
          `\nGateway RSS: ${before.toFixed(0)} MB after the runs above; ${rssMb(gw.child.pid!).toFixed(0)} MB with all ${V1.length} V1 shapes proved (keys and witness calculators loaded in the workers)`,
        );
      }
    } finally {
      client.close();
      await gw.stop();
      await shutdownZk();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
