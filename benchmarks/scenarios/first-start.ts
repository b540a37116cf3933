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
// mint, through stateless.js: it needs v2_non-inclusion_40_1); the fresh start also when each key
// became ready. The baseline is the warm start's steady v1_inclusion_26_1 latency, same run: p50
// of 20 back to back, and p50 of 5 each after 2 s idle, as the first proof comes after the
// script's other calls (on this machine a proof after a pause runs 1.3–1.6× one back to back:
// caches and cores gone cold, whatever the process did). The bench's own HTTP client makes one
// call before the first proof, so that its first request's cost is not counted as the gateway's.
// BENCH_FIRST_START_ROOT runs another checkout's gateway (built) for a before/after comparison.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
import { ROOT, BENCH_KEY as KEY } from '../lib/paths.js';

const root = process.env.BENCH_FIRST_START_ROOT ?? ROOT;
import { FIRST_SCRIPT_SHAPES } from '../../src/prover/build-policy.js';

interface Health {
  status: string;
  components: Record<string, { keys?: { ready: string[]; building: { circuit: string }[]; queued: unknown[] } }>;
}

interface Phase {
  name: string;
  healthOkMs: number;
  firstProofMs: number;
  /** Its time, or the error it answered. */
  createAccount: number | string;
  steadyMs?: number;
  idleSteadyMs?: number;
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
async function untilHealthy(base: string, dataDir: string, t0: number, readyAt?: Map<string, number>): Promise<number> {
  for (;;) {
    const h = await health(base).catch(() => undefined);
    note(h, dataDir, t0, readyAt);
    if (h?.status === 'ok') return performance.now() - t0;
    await sleep(50);
  }
}

/** The keys on file in the data dir (read there: an older gateway's /health does not list them). */
function keysOnFile(dataDir: string): string[] {
  try {
    const m = JSON.parse(readFileSync(join(dataDir, 'keys', 'manifest.json'), 'utf8')) as Record<string, unknown>;
    return Object.keys(m);
  } catch {
    return [];
  }
}

const FORESTER_KEYS = ['batch_address_append_40_10', 'batch_append_32_10', 'batch_update_32_10'];

/** Notes when each key shows on file; whether no build is left (from /health where it says, else the file). */
function note(h: Health | undefined, dataDir: string, t0: number, readyAt?: Map<string, number>): boolean {
  const ready = keysOnFile(dataDir);
  for (const k of ready) if (readyAt && !readyAt.has(k)) readyAt.set(k, performance.now() - t0);
  const keys = h?.components.provingKeys?.keys;
  if (keys) return keys.building.length + keys.queued.length === 0;
  return FORESTER_KEYS.every((k) => ready.includes(k));
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
async function timedCreateAccount(rpc: Rpc, payer: Keypair): Promise<number | string> {
  const t = performance.now();
  try {
    await createMintInterface(rpc, payer, payer, null, 9, Keypair.generate());
  } catch (e) {
    return `failed after ${((performance.now() - t) / 1000).toFixed(1)} s: ${String((e as Error).message).slice(0, 60)}`;
  }
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

/** p50 of 20 proofs back to back, and of 5 each after 2 s idle. */
async function steady(url: string, hash: string): Promise<{ back: number; idle: number }> {
  await rpcProof(url, hash);
  const back: number[] = [];
  for (let i = 0; i < 20; i++) back.push(await rpcProof(url, hash));
  const idle: number[] = [];
  for (let i = 0; i < 5; i++) {
    await sleep(2000);
    idle.push(await rpcProof(url, hash));
  }
  return { back: percentile(back, 50), idle: percentile(idle, 50) };
}

/** One call of the bench's own HTTP client, so its first request's cost is not the gateway's. */
const warmClient = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' }),
  }).then((r) => r.text());

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
    const healthOkMs = await untilHealthy(base, dataDir, t0, readyAt);
    const rpc = createRpc(url, url, url);
    // The first script: a V1 account (no proof), its first proof, then an account at a new address.
    const account = opts.account ?? (await v1Account(rpc));
    await warmClient(url);
    const firstProofMs = await rpcProof(url, account.hash);
    const createAccount = await timedCreateAccount(rpc, account.payer);
    // Until the first script's shapes are built (fresh: a gateway that builds none ahead stops
    // here), or every key.
    for (;;) {
      const h = await health(base);
      const idle = note(h, dataDir, t0, readyAt);
      const ahead = h.components.provingKeys?.keys !== undefined;
      const ready = keysOnFile(dataDir);
      if (opts.until === 'first-script' ? !ahead || FIRST_SCRIPT_SHAPES.every((s) => ready.includes(s)) : idle) break;
      await sleep(200);
    }
    const st = opts.until === 'all' ? await steady(url, account.hash) : undefined;
    return {
      name,
      healthOkMs,
      firstProofMs,
      createAccount,
      ...(st ? { steadyMs: st.back, idleSteadyMs: st.idle } : {}),
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
      const back = warm.steadyMs!;
      const idle = warm.idleSteadyMs!;
      if (process.env.BENCH_FIRST_START_ROOT) console.log(`\ngateway: ${root}`);
      if (fresh.banner) console.log(`\nfresh start's banner: ${fresh.banner}`);
      console.log('\nkeys ready after the fresh start (s):');
      table(
        ['circuit', 'ready at s'],
        [...fresh.readyAt!].sort((a, b) => a[1] - b[1]).map(([c, ms]) => [c, (ms / 1000).toFixed(1)]),
      );
      console.log(
        `\nbaseline: the warm start's steady v1_inclusion_26_1 getValidityProof, p50 ${back.toFixed(0)} ms back to back, ${idle.toFixed(0)} ms after 2 s idle`,
      );
      table(
        [
          'start',
          '/health ok s',
          'first proof ms',
          '/ back-to-back',
          '/ after idle',
          'new V2 address ms',
          'steady p50 ms',
        ],
        [fresh, restart, warm].map((p) => [
          p.name,
          (p.healthOkMs / 1000).toFixed(1),
          p.firstProofMs.toFixed(0),
          (p.firstProofMs / back).toFixed(2),
          (p.firstProofMs / idle).toFixed(2),
          typeof p.createAccount === 'number' ? p.createAccount.toFixed(0) : p.createAccount,
          p.steadyMs === undefined ? '—' : `${p.steadyMs.toFixed(0)} / ${p.idleSteadyMs!.toFixed(0)} idle`,
        ]),
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
