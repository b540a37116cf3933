// The gateway under abuse, as an attacker holding an ordinary API key would try it (loopback, the
// default dev chain), each part against the same run's quiet baseline:
//  1. fuzz: ≥ 10,000 requests with random params across every registered method, counting
//     -32603 answers, empty or non-JSON bodies, stack traces, 5xx, and whether the process lives;
//  2. kill -9 during confirmed writes, 10 times: airdrops to fresh accounts, the gateway killed at a
//     random moment and restarted on its data dir; every airdrop answered before the kill is read back;
//  3. a 300-request burst of valid proofs from one key: refusal latency p50/p99, proofs admitted
//     that expired in the queue, and getHealth p99 during the burst against idle;
//  4. a key build beside traffic: getHealth p99 while a request's key build runs, against idle.
// BENCH_ABUSE_PARTS (fuzz,kill,burst,build) selects; BENCH_ABUSE_FUZZ sets the fuzz count.
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMethodTable, type Backends } from '../../src/rpc/index.js';
import { encodeBase58 } from '../../src/zk/base58.js';
import { demoAddress } from '../../src/prover/index.js';
import { bigIntToBase58, KeyStore, loadPoseidon, shapeByName } from '../../src/zk/index.js';
import { BENCH_CACHE as CACHE, BENCH_KEY as KEY, linkBenchKeys, ROOT as root } from '../lib/paths.js';
import { startProcess, type Started } from '../lib/processes.js';
import { BENCH_TOKEN_ARGS } from '../lib/prover-client.js';
import { percentile } from '../lib/stats.js';
import { envList, table } from '../lib/table.js';
import { params as proofParams, startBenchGateway } from './prover.js';

const PARTS = envList(process.env.BENCH_ABUSE_PARTS, ['fuzz', 'kill', 'burst', 'build']);
const FUZZ = Number(process.env.BENCH_ABUSE_FUZZ ?? 10_500);

interface Answer {
  status: number;
  body: string;
  ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 400 });
function post(url: string, body: string, timeoutMs = 60_000): Promise<Answer> {
  const t = performance.now();
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(parts).toString('utf8'),
          ms: performance.now() - t,
        }),
      );
      res.on('error', () => resolve({ status: -1, body: '', ms: performance.now() - t }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: e.message === 'timeout' ? -2 : -1, body: '', ms: performance.now() - t }));
    req.end(body);
  });
}

const rpc = (url: string, method: string, params: unknown, id: number | string = 1) =>
  post(url, JSON.stringify({ jsonrpc: '2.0', id, method, params }));

const f1 = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(1));

/** The default dev chain in a child process on `dataDir`, the bench's keys linked unless told not to. */
async function startChain(
  dataDir: string,
  extra: readonly string[] = [],
  linkKeys = true,
): Promise<{ gw: Started; base: string; url: string }> {
  if (linkKeys) linkBenchKeys(dataDir);
  const gw = await startProcess(
    [
      join(root, 'dist/main.js'),
      'start',
      ...['--data-dir', dataDir, '--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--ws-port', '0'],
      ...[
        '--api-keys',
        KEY,
        '--log-level',
        'error',
        '--rate-limit',
        '0',
        '--forester',
        'off',
        '--build-at-start',
        'none',
      ],
      ...BENCH_TOKEN_ARGS,
      ...extra,
    ],
    /JSON-RPC\s+(http:\/\/\S+\/)\?api-key=/,
    { timeoutMs: 120_000 },
  );
  const base = gw.match[1]!;
  for (const until = Date.now() + 300_000; ;) {
    const res = await fetch(`${base}health`).catch(() => undefined);
    if (res?.status === 200) break;
    await res?.text();
    if (Date.now() > until) throw new Error('the gateway did not become ready');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { gw, base, url: `${base}?api-key=${KEY}` };
}

// ---------------------------------------------------------------------------------------------
// 1. Fuzz

/** Every method the gateway registers with the embedded ledger (names only: nothing is called). */
function registeredMethods(): string[] {
  // Whatever the factories read at registration answers with itself.
  const anything: unknown = new Proxy(() => {}, { get: () => anything, apply: () => anything });
  const placeholder = { chain: anything, forester: anything } as Backends;
  return [...createMethodTable(placeholder, '0').keys()].sort();
}

const rnd = (n: number) => Math.floor(Math.random() * n);
const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)]!;

function fuzzValues(funded: string, tx: Buffer): ((method: string) => unknown)[] {
  const keys = [
    funded,
    '11111111111111111111111111111111',
    'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    'SySTEM1eSU2p4BGQfQpimFEWWSC1XDFeun3Nqzz3rT7',
    'compr6CUsB5m2jS4Y3831ztGSTnDpnKJTKS95d64XVq',
    'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT',
    'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2',
    'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx',
    'bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU',
  ];
  const mutated = () => {
    const b = Buffer.from(tx);
    for (let i = 0; i < 1 + rnd(4); i++) b[rnd(b.length)] = rnd(256);
    return b;
  };
  const scalar: (() => unknown)[] = [
    () => null,
    () => true,
    () => pick([0, 1, -1, 2 ** 53, 2 ** 64, 1e308, -1e308, 0.5, 18446744073709551615, 42]),
    () => pick(['', ' ', '0', '-1', '1e9', 'null', '\u0000', '💥'.repeat(50), 'x'.repeat(20_000), '<script>']),
    () => pick(keys),
    () => encodeBase58(randomBytes(1 + rnd(70))),
    () => randomBytes(rnd(200)).toString('base64'),
    () => mutated().toString('base64'),
    () => tx.toString('base64'),
    () => pick(['base64', 'base58', 'jsonParsed', 'json', 'zstd', 'binary', 'base64+zstd', 'hex']),
    () => pick(['processed', 'confirmed', 'finalized', 'recent', 'max', 'bogus']),
  ];
  const hash = () => (rnd(4) === 0 ? pick(scalar)() : encodeBase58(randomBytes(32)));
  const signature = () => encodeBase58(randomBytes(rnd(8) === 0 ? 63 : 64));
  // Most fields get a value of the right kind, so requests get past the first check and deeper.
  const plausible: Record<string, () => unknown> = {
    commitment: () => pick(['processed', 'confirmed', 'finalized', 'max']),
    encoding: () => pick(['base64', 'base58', 'jsonParsed', 'json', 'base64+zstd']),
    minContextSlot: () => rnd(100),
    limit: () => pick([0, 1, 10, 1000, 1_000_000, -5]),
    cursor: hash,
    before: signature,
    until: signature,
    hashes: () => Array.from({ length: rnd(10) }, hash),
    newAddressesWithTrees: () =>
      Array.from({ length: rnd(10) }, () => ({
        address: hash(),
        tree: pick(keys),
        ...(rnd(3) ? {} : { queue: pick(keys) }),
      })),
    address: () => pick(keys),
    owner: () => pick(keys),
    mint: () => pick(keys),
    id: () => pick(keys),
    ids: () => Array.from({ length: rnd(5) }, () => pick(keys)),
    tree: () => pick(keys),
    leafIndex: () => rnd(100),
    lamports: () => pick([0, 1, 1_000_000_000, 2 ** 53 - 1]),
    data: () => pick([randomBytes(rnd(100)).toString('hex'), [randomBytes(rnd(100)).toString('base64'), 'base64']]),
    force: () => true,
    accounts: () => ({ encoding: 'base64', addresses: Array.from({ length: rnd(4) }, () => pick(keys)) }),
    addresses: () => Array.from({ length: rnd(4) }, () => pick(keys)),
    encodedTransactions: () => Array.from({ length: rnd(6) }, () => (rnd(2) ? mutated() : tx).toString('base64')),
    dataSlice: () => ({ offset: rnd(100), length: rnd(100) }),
    filters: () => [
      pick([{ dataSize: rnd(200) }, { memcmp: { offset: rnd(100), bytes: encodeBase58(randomBytes(rnd(40))) } }]),
    ],
    absoluteSlot: () => pick([0, 10, 10_000_000, 2 ** 53]),
    absoluteTimestamp: () => pick([0, Date.now(), 2 ** 53]),
    maxSupportedTransactionVersion: () => pick([0, 1, -1]),
  };
  const object = (depth: number): unknown => {
    const fields = Object.keys(plausible).concat([
      'executable',
      'rentEpoch',
      'transactionEncoding',
      'preExecutionAccountsConfigs',
      'postExecutionAccountsConfigs',
      'skipSigVerify',
      'replaceRecentBlockhash',
      'absoluteEpoch',
      'offset',
      'length',
      'bytes',
      'dataSize',
      'transactionDetails',
      'rewards',
      'searchTransactionHistory',
      'skipPreflight',
      'sigVerify',
    ]);
    const o: Record<string, unknown> = {};
    for (let i = 0; i < rnd(5); i++) {
      const f = pick(fields);
      o[f] = plausible[f] && rnd(10) < 7 ? plausible[f]!() : value(depth + 1);
    }
    return o;
  };
  const value = (depth: number): unknown => {
    const r = rnd(10);
    if (depth < 4 && r === 0) return Array.from({ length: rnd(5) }, () => value(depth + 1));
    if (depth < 4 && r === 1) return object(depth);
    return pick(scalar)();
  };
  const first = [
    () => pick(keys),
    signature,
    () => rnd(200),
    () => Array.from({ length: rnd(5) }, () => pick(keys)),
    () => (rnd(2) ? mutated() : tx).toString(pick(['base64', 'base64', 'hex'] as const)),
    () => encodeBase58(rnd(2) ? mutated() : tx),
  ];
  /** A first argument of the kind the method's name suggests, so more requests get past validation. */
  const byName = (method: string): (() => unknown) => {
    if (/Signatures?Statuses/.test(method)) return () => Array.from({ length: 1 + rnd(3) }, signature);
    if (/^get(Transaction|InflationReward)$|Signature$/.test(method)) return signature;
    if (/Block|Slot|Leader/.test(method)) return () => rnd(50);
    if (/^(send|simulate)Transaction$|FeeForMessage/.test(method)) return pick(first.slice(4));
    if (/Multiple(Accounts|Compressed)/.test(method)) return first[3]!;
    if (/Account|Balance|Address|Owner|Delegate|Mint|Token|Supply|Program|Airdrop|setAccount/.test(method))
      return () => pick(keys);
    return pick(first);
  };
  /** A Solana-style config object: known fields with values of the right kind. */
  const config = () => {
    const o: Record<string, unknown> = {};
    for (const f of ['commitment', 'encoding', 'minContextSlot', 'dataSlice', 'maxSupportedTransactionVersion'])
      if (rnd(3) === 0) o[f] = plausible[f]!();
    return o;
  };
  return [
    (m: string) => [byName(m)(), config()],
    (m: string) => [byName(m)(), config()],
    (m: string) => [byName(m)()],
    (m: string) => [byName(m)()],
    (m: string) => [byName(m)(), object(1)],
    () => Array.from({ length: rnd(4) }, () => value(0)),
    () => object(0),
    () => object(0),
    () => [pick(first)(), object(1)],
    () => [pick(first)(), object(1)],
    () => [pick(first)()],
    () => [pick(first)(), pick(first)(), object(1)],
    () => [value(0), value(0)],
    () => pick([undefined, null, 'params', 7]),
    () => pick([undefined, []]),
  ];
}

const STACK = /\n\s+at |node:internal|\.[jt]s:\d+:\d+/;

async function fuzz(): Promise<string[][]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'zkgate-abuse-fuzz-'));
  const { gw, url } = await startChain(dataDir, ['--build-on-demand', 'none']);
  try {
    const funded = Keypair.generate();
    await rpc(url, 'requestAirdrop', [funded.publicKey.toBase58(), 10_000_000_000]);
    const blockhash = JSON.parse((await rpc(url, 'getLatestBlockhash', [])).body).result.value.blockhash as string;
    const tx = new Transaction({ feePayer: funded.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: funded.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 }),
    );
    tx.sign(funded);
    const gens = fuzzValues(funded.publicKey.toBase58(), tx.serialize());
    const methods = registeredMethods();
    const counts = { total: 0, internal: 0, empty: 0, nonJson: 0, stack: 0, http5xx: 0, timeouts: 0 };
    const internalBy = new Map<string, string>();
    const byCode = new Map<number, number>();
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = next++; i < FUZZ; i = next++) {
          const method = methods[i % methods.length]!;
          const p = pick(gens)(method);
          // One in 50 is a batch of three, one in 50 malformed JSON.
          const body =
            i % 50 === 7
              ? JSON.stringify(
                  [0, 1, 2].map((k) => {
                    const m = pick(methods);
                    return { jsonrpc: '2.0', id: k, method: m, params: pick(gens)(m) };
                  }),
                )
              : i % 50 === 13
                ? `{"jsonrpc":"2.0","id":1,"method":"${method}","params":[${'['.repeat(rnd(100))}`
                : JSON.stringify({ jsonrpc: '2.0', id: i, method, ...(p === undefined ? {} : { params: p }) });
          const a = await post(url, body, 60_000);
          counts.total++;
          if (a.status === -2) counts.timeouts++;
          if (a.status >= 500) counts.http5xx++;
          if (a.body === '') counts.empty++;
          if (STACK.test(a.body)) counts.stack++;
          let json: unknown;
          try {
            json = JSON.parse(a.body);
          } catch {
            if (a.body !== '') counts.nonJson++;
            continue;
          }
          for (const r of Array.isArray(json) ? json : [json]) {
            const err = (r as { error?: { code?: number; message?: string } }).error;
            const code = err?.code ?? 0;
            if (process.env.BENCH_ABUSE_DEBUG && code === -32602)
              console.log(`${method}: ${err?.message?.slice(0, 120)}`);
            byCode.set(code, (byCode.get(code) ?? 0) + 1);
            if (code === -32603) {
              counts.internal++;
              if (!internalBy.has(method)) internalBy.set(method, body.slice(0, 300));
            }
          }
        }
      }),
    );
    const wall = (performance.now() - started) / 1000;
    const health = await rpc(url, 'getHealth', []);
    const alive = gw.child.exitCode === null && JSON.parse(health.body).result === 'ok';
    console.log(
      `  fuzz: ${counts.total} requests over ${methods.length} methods in ${wall.toFixed(0)} s; codes: ${[...byCode]
        .sort((a, b) => b[1] - a[1])
        .map(([c, n]) => `${c === 0 ? 'result' : c}×${n}`)
        .join(' ')}`,
    );
    for (const [m, body] of internalBy) console.log(`  -32603 from ${m}: ${body}`);
    return [
      ['fuzzed requests', String(counts.total)],
      ['methods covered', String(methods.length)],
      ['-32603 answers', String(counts.internal)],
      ['empty bodies', String(counts.empty)],
      ['non-JSON bodies', String(counts.nonJson)],
      ['bodies with a stack trace', String(counts.stack)],
      ['HTTP 5xx', String(counts.http5xx)],
      ['timed out (60 s)', String(counts.timeouts)],
      ['process alive, getHealth ok', alive ? 'yes' : 'NO'],
    ];
  } finally {
    await gw.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// 2. kill -9 during confirmed writes

async function killNine(): Promise<string[][]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'zkgate-abuse-kill-'));
  const confirmed: { key: string; lamports: number }[] = [];
  let restarts = 0;
  let lost = 0;
  let checked = 0;
  try {
    for (let round = 0; round < 10; round++) {
      const { gw, url } = await startChain(dataDir);
      if (round > 0) restarts++;
      // Every airdrop answered so far must be there after the kill and restart.
      for (const c of confirmed) {
        const r = JSON.parse((await rpc(url, 'getBalance', [c.key])).body);
        checked++;
        if (r.result?.value !== c.lamports) lost++;
      }
      confirmed.length = 0;
      let stop = false;
      const writers = Array.from({ length: 4 }, async () => {
        while (!stop) {
          const key = Keypair.generate().publicKey.toBase58();
          const lamports = 1_000_000 + rnd(1_000_000);
          const a = await post(
            url,
            JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'requestAirdrop', params: [key, lamports] }),
          );
          if (a.status === 200 && JSON.parse(a.body).result) confirmed.push({ key, lamports });
        }
      });
      await new Promise((r) => setTimeout(r, 300 + rnd(1200)));
      gw.child.kill('SIGKILL');
      stop = true;
      await Promise.all(writers);
      await new Promise<void>((r) =>
        gw.child.exitCode !== null || gw.child.signalCode ? r() : gw.child.once('exit', () => r()),
      );
    }
    const { gw, url } = await startChain(dataDir);
    restarts++;
    for (const c of confirmed) {
      const r = JSON.parse((await rpc(url, 'getBalance', [c.key])).body);
      checked++;
      if (r.result?.value !== c.lamports) lost++;
    }
    await gw.stop();
    return [
      ['kill -9 during airdrops, restarts on the same data dir', String(restarts)],
      ['confirmed airdrops lost', `${lost} of ${checked}`],
    ];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// 3. A burst of valid proofs

/** getHealth every 10 ms until `until` settles: the latencies, ms. */
async function sampleHealth(url: string, until: Promise<unknown>): Promise<number[]> {
  const lat: number[] = [];
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    const a = await rpc(url, 'getHealth', [], 'h');
    lat.push(a.ms);
    await new Promise((r) => setTimeout(r, 10));
  }
  return lat;
}

async function idleHealth(url: string): Promise<number[]> {
  return sampleHealth(url, new Promise((r) => setTimeout(r, 3000)));
}

async function burst(): Promise<string[][]> {
  const shape = 'v1_inclusion_26_1';
  await loadPoseidon();
  await new KeyStore(CACHE).ensure(shape);
  const { gw, url, client, dataDir } = await startBenchGateway('native', {
    preload: [shape],
    args: ['--forester', 'off', '--proof-timeout-ms', '10000'],
  });
  try {
    // Warm: the workers prove the shape a few times, so admission knows its time.
    for (let i = 0; i < 4; i++) await rpc(url, proofParams(shape, i).method, proofParams(shape, i).params);
    const idle = await idleHealth(url);
    // The floor: 300 concurrent getHealth calls, on connections opened by a first round.
    const healthBurst = async () =>
      (await Promise.all(Array.from({ length: 300 }, (_, i) => rpc(url, 'getHealth', [], i)))).map((a) => a.ms);
    await healthBurst();
    const floor = await healthBurst();
    const rows: string[][] = [
      [
        '300 concurrent getHealth (the HTTP floor): p50 / p99 ms',
        `${f1(percentile(floor, 50))} / ${f1(percentile(floor, 99))}`,
      ],
      ['getHealth p50 / p99 ms, one at a time, idle', `${f1(percentile(idle, 50))} / ${f1(percentile(idle, 99))}`],
    ];
    for (const round of [1, 2]) {
      const answers: { code: number | 'ok'; ms: number }[] = [];
      const all = Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          const { method, params } = proofParams(shape, 300 * round + i);
          const a = await rpc(url, method, params, i);
          const j = JSON.parse(a.body);
          answers.push({ code: j.result ? 'ok' : j.error.code, ms: a.ms });
        }),
      );
      const during = await sampleHealth(url, all);
      await all;
      const refused = answers.filter((a) => a.code === -32011).map((a) => a.ms);
      const proved = answers.filter((a) => a.code === 'ok').map((a) => a.ms);
      const expired = answers.filter((a) => a.code === -32012).length;
      const other = answers.filter((a) => a.code !== 'ok' && a.code !== -32011 && a.code !== -32012);
      if (other.length > 0) console.log(`  other answers: ${JSON.stringify(other.slice(0, 5))}`);
      rows.push(
        [
          `burst ${round}: 300 ${shape} requests at once, one key: proved`,
          `${proved.length} (p50 ${f1(percentile(proved, 50))} ms, p99 ${f1(percentile(proved, 99))} ms)`,
        ],
        [
          `  refused (-32011): p50 / p99 ms`,
          `${refused.length}: ${f1(percentile(refused, 50))} / ${f1(percentile(refused, 99))}`,
        ],
        ['  admitted, then expired in the queue (-32012)', String(expired)],
        ['  other answers', String(other.length)],
        [
          '  getHealth p50 / p99 ms, one at a time, during the burst',
          `${f1(percentile(during, 50))} / ${f1(percentile(during, 99))} (p99 ×${(percentile(during, 99) / percentile(idle, 99)).toFixed(1)} idle)`,
        ],
      );
    }
    return rows;
  } finally {
    client.close();
    await gw.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// 4. A key build beside traffic

async function build(): Promise<string[][]> {
  // A shape a request may build on a loopback chain, built fresh in a data dir of its own.
  const shape = 'v2_non-inclusion_40_8';
  const dataDir = mkdtempSync(join(tmpdir(), 'zkgate-abuse-build-'));
  // Keys of its own: the shape's key is built here, whatever the bench's cache holds.
  const { gw, url } = await startChain(
    dataDir,
    ['--build-on-demand', shape, '--preload-circuits', '', '--build-at-start', 'none'],
    false,
  );
  try {
    const idle = await idleHealth(url);
    const s = shapeByName(shape);
    const params = {
      newAddressesWithTrees: Array.from({ length: s.nNonInclusion }, (_, i) => ({
        address: bigIntToBase58(demoAddress(i, 'abuse-build')),
        tree: 'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx',
      })),
    };
    const t = performance.now();
    // The first request starts the build; later ones wait for it, until one is proved.
    const building = (async () => {
      for (;;) {
        const j = JSON.parse((await rpc(url, 'getValidityProofV2', params)).body);
        if (j.result) return;
        // -32013: still building; -32012: built, but the first proof (keys loading) passed the deadline.
        if (j.error.code !== -32013 && j.error.code !== -32012)
          throw new Error(`build request: ${JSON.stringify(j.error)}`);
      }
    })();
    const during = await sampleHealth(url, building);
    await building;
    const buildS = (performance.now() - t) / 1000;
    return [
      [`getHealth p50 / p99 ms, idle (baseline)`, `${f1(percentile(idle, 50))} / ${f1(percentile(idle, 99))}`],
      [
        `getHealth p50 / p99 ms, during ${shape}'s build and first proof (${buildS.toFixed(0)} s, ${during.length} samples)`,
        `${f1(percentile(during, 50))} / ${f1(percentile(during, 99))} (p99 ×${(percentile(during, 99) / percentile(idle, 99)).toFixed(1)}, max ${f1(Math.max(...during))})`,
      ],
    ];
  } finally {
    await gw.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const abuseScenario = {
  name: 'abuse',
  describe: 'fuzzed requests over every method, kill -9 during writes, a 300-proof burst, a key build beside traffic',
  explicitOnly: true,
  async run(): Promise<void> {
    const rows: string[][] = [];
    if (PARTS.includes('fuzz')) rows.push(...(await fuzz()));
    if (PARTS.includes('kill')) rows.push(...(await killNine()));
    if (PARTS.includes('burst')) rows.push(...(await burst()));
    if (PARTS.includes('build')) rows.push(...(await build()));
    table(['measure', 'value'], rows);
  },
};
