// The cluster block source (issue 50 §1) against zkgate's own dev chain as the cluster, over real
// HTTP: every block from the first to the finalized tip, in slot order, with the transactions the
// chain's own getBlock lists (failed ones with their error), alike in base64 and json encodings;
// through a real proxy that rate-limits, fails, hangs, truncates and garbles answers: the same
// blocks, each fault retried and counted; and the same with getBlock's calls made ahead on a
// thread (a Prefetcher).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  type Connection,
} from '@solana/web3.js';
import { ClusterRpc } from '../../src/ingest/cluster-rpc.js';
import { RpcBlockSource } from '../../src/ingest/rpc-block-source.js';
import { Prefetcher } from '../../src/ingest/prefetch.js';
import type { SourceBlock } from '../../src/ingest/block-source.js';
import { createLogger } from '../../src/obs/log.js';
import { MetricsRegistry } from '../../src/obs/metrics.js';
import { encodeBase58 } from '../../src/zk/base58.js';
import {
  sendAndPoll,
  startTestGateway,
  stopWithConnection,
  web3Connection,
  type TestGateway,
} from '../helpers/gateway.js';

const MEMO_PROGRAM = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
let gw: TestGateway;
let conn: Connection;
const sent: { ok: string[]; failed: string } = { ok: [], failed: '' };
let end: bigint;

const call = async (method: string, params: unknown[] = []) => {
  const res = await fetch(gw.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
};

before(async () => {
  gw = await startTestGateway({ slotTimeMs: 50 }, {}, { ledger: true });
  conn = web3Connection(gw);
  const alice = Keypair.generate();
  const bob = Keypair.generate();
  await conn.confirmTransaction(await conn.requestAirdrop(alice.publicKey, 2 * LAMPORTS_PER_SOL), 'confirmed');
  sent.ok.push(
    await sendAndPoll(
      conn,
      new Transaction().add(
        SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: bob.publicKey, lamports: 1_000_000 }),
        new TransactionInstruction({ programId: MEMO_PROGRAM, keys: [], data: Buffer.from('zkgate follows') }),
      ),
      [alice],
    ),
  );
  // A transfer of more than bob has, landed without preflight: on chain, failed.
  const tx = new Transaction().add(
    SystemProgram.transfer({ fromPubkey: bob.publicKey, toPubkey: alice.publicKey, lamports: 5 * LAMPORTS_PER_SOL }),
  );
  tx.feePayer = alice.publicKey;
  tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
  tx.sign(alice, bob);
  sent.failed = await conn.sendRawTransaction(tx.serialize(), { skipPreflight: true });
  const landed = async () => (await conn.getSignatureStatuses([sent.failed])).value[0]?.confirmationStatus;
  while (!['confirmed', 'finalized'].includes((await landed()) ?? '')) await new Promise((r) => setTimeout(r, 20));
  // Everything sent is finalized at `end`.
  const last = BigInt(
    ((await call('getSignatureStatuses', [[sent.failed]])) as { value: [{ slot: number }] }).value[0].slot,
  );
  while (BigInt((await call('getSlot', [{ commitment: 'finalized' }])) as number) < last)
    await new Promise((r) => setTimeout(r, 50));
  end = BigInt((await call('getSlot', [{ commitment: 'finalized' }])) as number);
});
after(() => stopWithConnection(gw, conn));

/** The source's blocks from the first through `end`. */
async function collect(source: RpcBlockSource): Promise<SourceBlock[]> {
  const ac = new AbortController();
  const out: SourceBlock[] = [];
  for await (const b of source.blocks(await source.firstSlot(), ac.signal)) {
    if (b.slot > end) break;
    out.push(b);
  }
  ac.abort();
  return out;
}

const sourceOf = (
  url: string,
  o: {
    encoding?: 'base64' | 'json';
    timeoutMs?: number;
    metrics?: MetricsRegistry;
    sparse?: { programs: readonly string[]; sparseFromSlots: number };
    prefetch?: Prefetcher;
  } = {},
) =>
  new RpcBlockSource({
    rpc: new ClusterRpc({
      url,
      timeoutMs: o.timeoutMs ?? 10_000,
      log: createLogger('silent'),
      metrics: o.metrics,
      minBackoffMs: 10,
      maxBackoffMs: 50,
    }),
    commitment: 'finalized',
    encoding: o.encoding ?? 'base64',
    ahead: 4,
    pollMs: 20,
    log: createLogger('silent'),
    metrics: o.metrics,
    ...(o.sparse ? { sparse: o.sparse } : {}),
    ...(o.prefetch ? { prefetch: o.prefetch } : {}),
  });

/** getBlock's calls made ahead on a thread, for `url`. */
const prefetcherOf = (url: string, timeoutMs = 10_000) =>
  new Prefetcher({ url, timeoutMs, concurrency: 4, maxAhead: 32, maxBytes: 16 << 20 });

/** What a block says, in plain values: compared across encodings and paths. */
const plain = (blocks: SourceBlock[]) =>
  blocks.map((b) => ({
    slot: String(b.slot),
    parent: String(b.parentSlot),
    blockhash: b.blockhash,
    unreadable: b.unreadable,
    txs: b.transactions.map((t) => ({
      signature: encodeBase58(t.signature),
      position: t.position,
      bytes: Buffer.from(t.tx.bytes).toString('hex'),
      keys: t.accountKeys.map(encodeBase58),
      err: t.err,
      logs: t.logs,
      inner: t
        .innerInstructions()
        .map((ixs) =>
          ixs.map((i) => [i.programIdIndex, [...i.accounts], Buffer.from(i.data).toString('hex'), i.stackHeight]),
        ),
      tokenBalances: t.tokenBalances,
    })),
  }));

let clean: SourceBlock[];

test("every block from the first to the finalized tip, in order, with the chain's own transactions; failed ones with their error", async () => {
  clean = await collect(sourceOf(gw.url));
  const first = (await call('getFirstAvailableBlock')) as number;
  const slots = (await call('getBlocks', [first, Number(end), { commitment: 'finalized' }])) as number[];
  assert.ok(slots.length > 0);
  assert.deepEqual(
    clean.map((b) => Number(b.slot)),
    slots,
  );
  for (const b of clean) {
    const chain = (await call('getBlock', [
      Number(b.slot),
      { encoding: 'json', maxSupportedTransactionVersion: 0, rewards: false },
    ])) as {
      blockhash: string;
      parentSlot: number;
      transactions: { transaction: { signatures: string[] } }[];
    };
    assert.equal(b.blockhash, chain.blockhash);
    assert.equal(Number(b.parentSlot), chain.parentSlot);
    assert.deepEqual(
      b.transactions.map((t) => encodeBase58(t.signature)),
      chain.transactions.map((t) => t.transaction.signatures[0]),
    );
    assert.deepEqual(b.unreadable, []);
  }
  const all = clean.flatMap((b) => b.transactions);
  const bySig = new Map(all.map((t) => [encodeBase58(t.signature), t]));
  const transfer = bySig.get(sent.ok[0]!)!;
  assert.equal(transfer.err, null);
  assert.ok(
    transfer.logs.some((l) => l.includes('zkgate follows')),
    transfer.logs.join('\n'),
  );
  const failed = bySig.get(sent.failed)!;
  assert.deepEqual(failed.err, {
    json: { InstructionError: [0, { Custom: 1 }] },
    display: 'Error processing Instruction 0: custom program error: 0x1',
  });
});

test('json encoding reads the same blocks as base64', async () => {
  assert.deepEqual(plain(await collect(sourceOf(gw.url, { encoding: 'json' }))), plain(clean));
});

/** A proxy in front of the chain that answers faults by a plan: each call's method and count. */
async function faultyProxy(target: string): Promise<{ url: string; server: Server; faults: Map<string, number> }> {
  const counts = new Map<string, number>();
  const faults = new Map<string, number>();
  const hung = new Set<NodeJS.Timeout>();
  const fault = (kind: string) => faults.set(kind, (faults.get(kind) ?? 0) + 1);
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString();
    const method = (JSON.parse(body) as { method: string }).method;
    const n = (counts.get(method) ?? 0) + 1;
    counts.set(method, n);
    const upstream = async () =>
      (await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text();
    if (method === 'getSlot' && n === 1) {
      fault('rate_limited');
      res.writeHead(429, { 'retry-after': '0' }).end('{"error":"slow down"}');
    } else if (method === 'getBlocksWithLimit' && n === 1) {
      fault('garbled list');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":[9,3,1]}');
    } else if (method === 'getBlock' && n <= 6) {
      // The first getBlock calls, one fault each (a retry is a call of its own).
      const kind = ['http', 'malformed', 'malformed block', 'timeout', 'rpc_transient', 'http'][n - 1]!;
      fault(kind);
      if (kind === 'http') res.writeHead(503).end('unavailable');
      else if (kind === 'malformed') {
        const text = await upstream();
        res.writeHead(200, { 'content-type': 'application/json' }).end(text.slice(0, text.length >> 1));
      } else if (kind === 'malformed block')
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0","id":1,"result":{"blockhash":7}}');
      else if (kind === 'timeout') hung.add(setTimeout(() => res.destroy(), 1500));
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"Block not available for slot"}}');
    } else res.writeHead(200, { 'content-type': 'application/json' }).end(await upstream());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  server.on('close', () => hung.forEach(clearTimeout));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server, faults };
}

const counted = (metrics: MetricsRegistry, name: string) =>
  Object.fromEntries(
    [...metrics.render().matchAll(new RegExp(`^${name}(?:\\{reason="(\\w+)"\\})? (\\d+)$`, 'gm'))].map((m) => [
      m[1] ?? '',
      Number(m[2]),
    ]),
  );

/** Through the faulty proxy: the same blocks as the chain's own, each fault retried and counted. */
async function throughFaults(prefetched: boolean): Promise<void> {
  const proxy = await faultyProxy(gw.url);
  const prefetch = prefetched ? prefetcherOf(proxy.url, 1000) : undefined;
  try {
    const metrics = new MetricsRegistry();
    const blocks = await collect(sourceOf(proxy.url, { timeoutMs: 1000, metrics, ...(prefetch ? { prefetch } : {}) }));
    assert.deepEqual(plain(blocks), plain(clean));
    const retries = counted(metrics, 'zkgate_cluster_rpc_retries_total');
    for (const reason of ['rate_limited', 'http', 'malformed', 'timeout', 'rpc_transient'])
      assert.ok(
        (retries[reason] ?? 0) >= (proxy.faults.get(reason) ?? 0) && (retries[reason] ?? 0) > 0,
        `${reason}: ${JSON.stringify(retries)}`,
      );
    assert.ok(
      counted(metrics, 'zkgate_cluster_malformed_blocks_total')['']! >=
        proxy.faults.get('garbled list')! + proxy.faults.get('malformed block')!,
    );
  } finally {
    prefetch?.close();
    proxy.server.closeAllConnections();
    await new Promise((r) => proxy.server.close(r));
  }
}

test('a provider that rate-limits, fails, hangs, truncates and garbles: the same blocks, every fault retried and counted', () =>
  throughFaults(false));

test("with getBlock's calls made ahead on a thread: the same blocks; the same faults met by those calls retried and counted", async () => {
  const prefetch = prefetcherOf(gw.url);
  try {
    assert.deepEqual(plain(await collect(sourceOf(gw.url, { prefetch }))), plain(clean));
  } finally {
    prefetch.close();
  }
  await throughFaults(true);
});

test("a backfill far behind the tip reads only the blocks of the programs' transactions, found by their signatures", async () => {
  const memo = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
  const source = sourceOf(gw.url, { sparse: { programs: [memo], sparseFromSlots: 0 } });
  const blocks = await collect(source);
  // The memo program's one transaction: its block alone, as the dense source read it.
  const memoBlocks = clean.filter((b) =>
    b.transactions.some((t) => t.accountKeys.some((k) => encodeBase58(k) === memo)),
  );
  assert.equal(memoBlocks.length, 1);
  assert.deepEqual(plain(blocks), plain(memoBlocks));
  const ac = new AbortController();
  assert.deepEqual(await source.programSlots([memo], await source.firstSlot(), end, ac.signal), [memoBlocks[0]!.slot]);
});
