// A newcomer's first minute (issue 48): `zkgate start` with its defaults on a fresh data dir and an
// empty key cache, as `npm start` runs it, and a first script as soon as /health says ok. Three
// starts of one data dir, in one run:
//  - fresh: nothing built; the preloads, the first script's shapes and the forester's keys build
//    in the background; stopped once the first script's shapes are ready, the forester's builds
//    cut short;
//  - restart: the same data dir, the forester's builds starting again meanwhile;
//  - warm: every key built.
// Each: time to /health ok, the first proof of a preloaded shape (v1_inclusion_26_1, a V1 account
// compressed after /health ok) and the first account at a new V2 address (compressed-token's
// mint, through stateless.js: it needs v2_non-inclusion_40_1); the fresh start also when each key became ready. The baseline is
// the warm start's steady v1_inclusion_26_1 latency (p50 of 20, nothing building), same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import {
  compress,
  confirmTx,
  createRpc,
  encodeBN254toBase58,
  merkletreePubkey,
  type Rpc,
} from '@lightprotocol/stateless.js';
import { createMintInterface } from '@lightprotocol/compressed-token';
import { startProcess, type Started } from '../lib/processes.js';
import { table } from '../lib/table.js';
import { percentile } from '../lib/stats.js';
import { ROOT as root, BENCH_KEY as KEY } from '../lib/paths.js';
import { FIRST_SCRIPT_SHAPES } from '../../src/prover/build-policy.js';

interface Health {
  status: string;
  components: Record<string, { keys?: { ready: string[]; building: { circuit: string }[]; queued: unknown[] } }>;
}

interface Phase {
  name: string;
  healthOkMs: number;
  firstProofMs: number;
  createAccountMs: number;
  steadyMs?: number;
  /** Fresh start: when each key became ready, ms after the start. */
  readyAt?: Map<string, number>;
  banner?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(dataDir: string): Promise<{ gw: Started; url: string; base: string; t0: number }> {
  const t0 = performance.now();
  const gw = await startProcess(
    [
      join(root, 'dist/main.js'),
      'start',
      ...['--data-dir', dataDir, '--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--ws-port', '0'],
      ...['--api-keys', KEY, '--rate-limit', '0', '--log-level', 'warn'],
    ],
    /JSON-RPC\s+(http:\S+)\?api-key=[\s\S]*data dir/,
    { timeoutMs: 120_000 },
  );
  return { gw, url: `${gw.match[1]!}?api-key=${KEY}`, base: gw.match[1]!, t0 };
}

async function health(base: string): Promise<Health> {
  return (await (await fetch(`${base}health`)).json()) as Health;
}

/** Polls /health until ok, noting when each key shows as ready. */
async function untilHealthy(base: string, t0: number, readyAt?: Map<string, number>): Promise<number> {
  for (;;) {
    const h = await health(base).catch(() => undefined);
    if (h) note(h, t0, readyAt);
    if (h?.status === 'ok') return performance.now() - t0;
    await sleep(50);
  }
}

function note(h: Health, t0: number, readyAt?: Map<string, number>): { building: number; queued: number } {
  const keys = h.components.provingKeys?.keys;
  for (const k of keys?.ready ?? []) if (readyAt && !readyAt.has(k)) readyAt.set(k, performance.now() - t0);
  return { building: keys?.building.length ?? 0, queued: keys?.queued.length ?? 0 };
}

async function rpcProof(url: string, hash: string): Promise<number> {
  const t = performance.now();
  const r = (await (
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getValidityProof', params: { hashes: [hash] } }),
    })
  ).json()) as { result?: { value: { compressedProof: unknown } }; error?: unknown };
  if (!r.result?.value.compressedProof) throw new Error(`getValidityProof failed: ${JSON.stringify(r)}`);
  return performance.now() - t;
}

/**
 * A compressed account at a new V2 address, end to end: compressed-token's mint (stateless.js's
 * own createAccount refuses V2 addresses outside a program's CPI; the token program's CPI is one).
 */
async function timedCreateAccount(rpc: Rpc, payer: Keypair): Promise<number> {
  const t = performance.now();
  await createMintInterface(rpc, payer, payer, null, 9, Keypair.generate());
  return performance.now() - t;
}

/** A funded payer and a V1 account of its (no proof needed): the hash a preloaded shape proves. */
async function v1Account(rpc: Rpc): Promise<{ payer: Keypair; hash: string }> {
  const payer = Keypair.generate();
  await confirmTx(rpc, await rpc.requestAirdrop(payer.publicKey, 10_000_000_000));
  const smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
  await compress(rpc, payer, 1_000_000_000, payer.publicKey, smt1);
  const [account] = (await rpc.getCompressedAccountsByOwner(payer.publicKey)).items;
  return { payer, hash: encodeBN254toBase58(account!.hash) };
}

async function steady(url: string, hash: string): Promise<number> {
  await rpcProof(url, hash);
  const xs: number[] = [];
  for (let i = 0; i < 20; i++) xs.push(await rpcProof(url, hash));
  return percentile(xs, 50);
}

async function phase(
  name: string,
  dataDir: string,
  opts: { fresh?: boolean; account?: { payer: Keypair; hash: string }; until: 'first-script' | 'all' },
): Promise<Phase & { account: { payer: Keypair; hash: string } }> {
  const { gw, url, base, t0 } = await start(dataDir);
  const readyAt = opts.fresh ? new Map<string, number>() : undefined;
  const banner = gw.match[0]
    .split('\n')
    .find((l) => l.includes('builds'))
    ?.trim();
  try {
    const healthOkMs = await untilHealthy(base, t0, readyAt);
    const rpc = createRpc(url, url, url);
    // The first script: a V1 account (no proof), its first proof, then an account at a new address.
    const account = opts.account ?? (await v1Account(rpc));
    const firstProofMs = await rpcProof(url, account.hash);
    const createAccountMs = await timedCreateAccount(rpc, account.payer);
    // Until the first script's shapes (fresh) or every key (else) are built.
    for (;;) {
      const h = await health(base);
      const { building, queued } = note(h, t0, readyAt);
      const ready = h.components.provingKeys?.keys?.ready ?? [];
      if (opts.until === 'first-script' ? FIRST_SCRIPT_SHAPES.every((s) => ready.includes(s)) : building + queued === 0)
        break;
      await sleep(200);
    }
    const steadyMs = opts.until === 'all' ? await steady(url, account.hash) : undefined;
    return {
      name,
      healthOkMs,
      firstProofMs,
      createAccountMs,
      ...(steadyMs !== undefined ? { steadyMs } : {}),
      ...(readyAt ? { readyAt } : {}),
      ...(banner ? { banner } : {}),
      account,
    };
  } finally {
    // SIGTERM: a fresh start's builds still running are cut short, as a user's Ctrl-C would.
    await gw.stop();
  }
}

export const firstStartScenario = {
  name: 'first-start',
  describe:
    "a fresh data dir's first minute with npm start's defaults: /health ok, each key ready, the first proofs and the first account at a new V2 address; a restart while the forester's keys build; a warm start",
  async run(): Promise<void> {
    const dataDir = mkdtempSync(join(tmpdir(), 'zkgate-bench-first-start-'));
    try {
      const fresh = await phase('fresh data dir', dataDir, { fresh: true, until: 'first-script' });
      const restart = await phase('restart (forester keys building)', dataDir, {
        account: fresh.account,
        until: 'all',
      });
      const warm = await phase('warm data dir', dataDir, { account: fresh.account, until: 'all' });
      const base = warm.steadyMs!;
      if (fresh.banner) console.log(`\nfresh start's banner: ${fresh.banner}`);
      console.log('\nkeys ready after the fresh start (s):');
      table(
        ['circuit', 'ready at s'],
        [...fresh.readyAt!].sort((a, b) => a[1] - b[1]).map(([c, ms]) => [c, (ms / 1000).toFixed(1)]),
      );
      console.log(`\nbaseline: the warm start's steady v1_inclusion_26_1 getValidityProof, p50 ${base.toFixed(0)} ms`);
      table(
        ['start', '/health ok s', 'first proof ms', 'first / steady', 'new V2 address ms', 'steady p50 ms'],
        [fresh, restart, warm].map((p) => [
          p.name,
          (p.healthOkMs / 1000).toFixed(1),
          p.firstProofMs.toFixed(0),
          (p.firstProofMs / base).toFixed(2),
          p.createAccountMs.toFixed(0),
          p.steadyMs === undefined ? '—' : p.steadyMs.toFixed(0),
        ]),
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
