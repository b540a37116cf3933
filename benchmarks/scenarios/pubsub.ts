// npm run bench -- pubsub: the websocket and the ledger's indexes, against a gateway in a child
// process (its own core) over a data dir holding 10,000 SPL token accounts:
//  1. latency from sendTransaction to its signatureNotification, processed and confirmed;
//  2. 1,000 account subscriptions on 100 connections with notifications flowing, the gateway's RSS;
//  3. getProgramAccounts with a memcmp filter over the 10,000 token accounts, beside getAccountInfo.
// BENCH_PUBSUB_PARTS=latency,fanout,gpa selects; BENCH_DURATION sets the load seconds.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { Ledger, TOKEN_PROGRAM, type StoredAccount } from '../../src/ledger/index.js';
import { encodeBase58 } from '../../src/zk/base58.js';
import { measure, printTable } from '../lib/load.js';
import { startProcess, type Started } from '../lib/processes.js';
import { envList, table } from '../lib/table.js';
import { ROOT as root, BENCH_KEY as KEY, QUIET_GATEWAY_ARGS } from '../lib/paths.js';

const PARTS = envList(process.env.BENCH_PUBSUB_PARTS, ['latency', 'fanout', 'gpa']);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const TOKEN_ACCOUNTS = 10_000;
const SLOT_MS = 400;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** A data dir whose ledger holds 10,000 token accounts of one mint, 100 per owner. */
async function tokenDataDir(): Promise<{ dir: string; mint: string; owner: string; one: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'zkgate-bench-pubsub-'));
  const ledger = Ledger.open({ dir: join(dir, 'ledger'), slotMs: 0 });
  const mint = Keypair.generate().publicKey.toBytes();
  const owners = Array.from({ length: TOKEN_ACCOUNTS / 100 }, () => Keypair.generate().publicKey.toBytes());
  const accounts = Array.from({ length: TOKEN_ACCOUNTS }, (_, i) => {
    const data = new Uint8Array(165);
    data.set(mint, 0);
    data.set(owners[i % owners.length]!, 32);
    Buffer.from(data.buffer).writeBigUInt64LE(BigInt(1000 + i), 64);
    data[108] = 1; // initialized
    const account: StoredAccount = {
      lamports: 2_039_280n,
      data,
      owner: TOKEN_PROGRAM,
      executable: false,
      rentEpoch: 0n,
    };
    return { pubkey: Keypair.generate().publicKey.toBytes(), account };
  });
  for (let i = 0; i < accounts.length; i += 1000) ledger.writeAccounts(accounts.slice(i, i + 1000));
  await ledger.close();
  return { dir, mint: encodeBase58(mint), owner: encodeBase58(owners[7]!), one: encodeBase58(accounts[0]!.pubkey) };
}

async function startGateway(dataDir: string): Promise<{ gw: Started; url: string; ws: string }> {
  const gw = await startProcess(
    [
      join(root, 'dist/main.js'),
      'start',
      ...['--rpc-port', '0', '--ws-port', '0', '--grpc-port', '0', '--prove-port', '0', '--data-dir', dataDir],
      ...QUIET_GATEWAY_ARGS,
    ],
    /JSON-RPC\s+(http:\S+)\?api-key=[^\n]*\n\s+websocket\s+(ws:\S+)\?api-key=/,
    { timeoutMs: 120_000 },
  );
  return { gw, url: `${gw.match[1]!}?api-key=${KEY}`, ws: `${gw.match[2]!}?api-key=${KEY}` };
}

async function rpc(url: string, method: string, params: unknown): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const j = (await res.json()) as { result?: unknown; error?: unknown };
  if (j.error) throw new Error(`${method}: ${JSON.stringify(j.error)}`);
  return j.result;
}

/** A websocket client that routes subscription answers and notifications. */
async function socket(url: string): Promise<{
  ws: WebSocket;
  subscribe(method: string, params: unknown[], onNote: (result: any) => void): Promise<number>;
}> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let nextId = 1;
  const answers = new Map<number, (r: any) => void>();
  const handlers = new Map<number, (r: any) => void>();
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    if (m.id !== undefined) answers.get(m.id)?.(m);
    else handlers.get(m.params.subscription)?.(m.params.result);
  });
  return {
    ws,
    subscribe: (method, params, onNote) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        answers.set(id, (m) => {
          answers.delete(id);
          if (m.error) return reject(new Error(JSON.stringify(m.error)));
          handlers.set(m.result, onNote);
          resolve(m.result);
        });
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      }),
  };
}

async function latencyPart(url: string, wsUrl: string): Promise<void> {
  const N = Number(process.env.BENCH_PUBSUB_TXS ?? 60);
  const s = await socket(wsUrl);
  const payer = Keypair.generate();
  await rpc(url, 'requestAirdrop', [payer.publicKey.toBase58(), 100_000_000_000]);
  await new Promise((r) => setTimeout(r, SLOT_MS * 2));
  const processed: number[] = [];
  const confirmed: number[] = [];
  for (let i = 0; i < N; i++) {
    const { blockhash } = (await rpc(url, 'getLatestBlockhash', [{ commitment: 'processed' }])).value;
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1_000_000,
      }),
    );
    tx.sign(payer);
    const sig = encodeBase58(tx.signature!);
    let t0 = 0;
    const at = (commitment: string) => {
      let done!: (ms: number) => void;
      const p = new Promise<number>((res) => (done = res));
      const subscribed = s.subscribe('signatureSubscribe', [sig, { commitment }], () => done(performance.now() - t0));
      return { p, subscribed };
    };
    const p = at('processed');
    const c = at('confirmed');
    await Promise.all([p.subscribed, c.subscribed]);
    t0 = performance.now();
    await rpc(url, 'sendTransaction', [tx.serialize().toString('base64'), { encoding: 'base64', skipPreflight: true }]);
    processed.push(await p.p);
    confirmed.push(await c.p);
  }
  s.ws.close();
  console.log(`\nsendTransaction → signatureNotification (${N} transfers, one at a time; slots are ${SLOT_MS} ms)`);
  table(
    ['commitment', 'p50 ms', 'p99 ms', 'max ms'],
    [
      ['processed', pct(processed, 50), pct(processed, 99), Math.max(...processed)].map(fmt),
      ['confirmed (the next slot)', pct(confirmed, 50), pct(confirmed, 99), Math.max(...confirmed)].map(fmt),
    ],
  );
  console.log(`confirmed p99 / (slot time + 20 ms): ${(pct(confirmed, 99) / (SLOT_MS + 20)).toFixed(2)}`);
}

const fmt = (x: string | number) => (typeof x === 'number' ? x.toFixed(1) : x);

function rssMb(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
}

async function fanoutPart(gw: Started, url: string, wsUrl: string): Promise<void> {
  const pid = gw.child.pid!;
  const before = rssMb(pid);
  const hot = Array.from({ length: 100 }, () => Keypair.generate().publicKey.toBase58());
  let notes = 0;
  const sockets = [];
  for (let c = 0; c < 100; c++) {
    const s = await socket(wsUrl);
    for (let k = 0; k < 10; k++)
      await s.subscribe(
        'accountSubscribe',
        [hot[(c * 10 + k) % hot.length], { commitment: 'processed', encoding: 'base64' }],
        () => notes++,
      );
    sockets.push(s);
  }
  const subscribed = rssMb(pid);
  // Each airdrop changes one hot account: 10 subscriptions (on 10 connections) are notified.
  let airdrops = 0;
  const end = Date.now() + DURATION * 1000;
  const t0 = performance.now();
  const workers = Array.from({ length: 8 }, async () => {
    while (Date.now() < end) {
      await rpc(url, 'requestAirdrop', [hot[airdrops++ % hot.length], 1000]);
    }
  });
  await Promise.all(workers);
  await new Promise((r) => setTimeout(r, 200));
  const secs = (performance.now() - t0) / 1000;
  const flowing = rssMb(pid);
  for (const s of sockets) s.ws.close();
  console.log(`\n1,000 account subscriptions on 100 connections, airdrops to the 100 accounts for ${DURATION} s`);
  table(
    ['figure', 'value'],
    [
      ['account changes/s (airdrops over HTTP, 8 at a time)', (airdrops / secs).toFixed(0)],
      ['notifications delivered/s', (notes / secs).toFixed(0)],
      ['notifications delivered / expected (10 per change)', (notes / (airdrops * 10)).toFixed(3)],
      ['gateway RSS before subscribing (MiB)', before.toFixed(0)],
      ['gateway RSS with 1,000 subscriptions (MiB)', subscribed.toFixed(0)],
      ['gateway RSS after the load (MiB)', flowing.toFixed(0)],
    ],
  );
}

async function gpaPart(url: string, data: { mint: string; owner: string; one: string }): Promise<void> {
  const byOwner = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'getProgramAccounts',
    params: [
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      { encoding: 'base64', filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: data.owner } }] },
    ],
  });
  const check = await rpc(url, 'getProgramAccounts', JSON.parse(byOwner).params);
  if (check.length !== 100) throw new Error(`expected 100 accounts of the owner, got ${check.length}`);
  const info = await measure('getAccountInfo (one token account, base64)', {
    url,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getAccountInfo',
      params: [data.one, { encoding: 'base64' }],
    }),
    connections: 10,
    durationSec: DURATION,
  });
  const gpa = await measure('getProgramAccounts memcmp owner (100 of 10,000)', {
    url,
    body: byOwner,
    connections: 10,
    durationSec: DURATION,
  });
  // A filter no index serves (the amount at offset 64): every one of the 10,000 accounts is read.
  const amount = Buffer.alloc(8);
  amount.writeBigUInt64LE(1007n);
  const scan = await measure('getProgramAccounts memcmp amount (1 of 10,000, a full scan)', {
    url,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getProgramAccounts',
      params: [
        'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
        { encoding: 'base64', filters: [{ memcmp: { offset: 64, bytes: encodeBase58(amount) } }] },
      ],
    }),
    connections: 10,
    durationSec: DURATION,
  });
  console.log('\ngetProgramAccounts over 10,000 token accounts vs getAccountInfo, 10 connections');
  printTable([info, gpa, scan]);
  console.log(`getProgramAccounts (owner) / getAccountInfo throughput: ${(gpa.rps / info.rps).toFixed(3)}`);
  console.log(`getProgramAccounts (full scan) / getAccountInfo throughput: ${(scan.rps / info.rps).toFixed(4)}`);
}

export const pubsubScenario = {
  name: 'pubsub',
  describe:
    'sendTransaction → signatureNotification latency, 1,000 subscriptions on 100 connections (RSS), getProgramAccounts with memcmp over 10,000 token accounts vs getAccountInfo',
  async run(): Promise<void> {
    const data = await tokenDataDir();
    try {
      const { gw, url, ws } = await startGateway(data.dir);
      try {
        if (PARTS.includes('latency')) await latencyPart(url, ws);
        if (PARTS.includes('fanout')) await fanoutPart(gw, url, ws);
        if (PARTS.includes('gpa')) await gpaPart(url, data);
      } finally {
        await gw.stop();
      }
    } finally {
      rmSync(data.dir, { recursive: true, force: true });
    }
  },
};
