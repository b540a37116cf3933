// Following confirmed blocks (issue 50 §1, --cluster-commitment confirmed): B follows A through a
// real HTTP proxy that can hold A's confirmed tip back, put a block of its own making at the next
// slot (a fork: a real compress transaction of A's, at another slot under another hash), and fail
// every call. B applies the fork's block (its answers show it), then takes it back, when the
// cluster goes on from another block (seen at the tip) or when the finalized chain has another
// block at that slot (seen only by finality); afterwards its answers equal A's as exact JSON. While
// the proxy fails every call, B's /health says degraded naming the failure, and B still answers
// from its index.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { compress, confirmTx, merkletreePubkey } from '@lightprotocol/stateless.js';
import { Keypair, PublicKey } from '@solana/web3.js';
import { encodeBase58 } from '../../src/zk/base58.js';
import { startTestGateway, tempDir, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { call, caughtUp, rpcOf, type RpcAnswer } from './helpers.js';

type Phase =
  | { kind: 'pass' }
  /** A's confirmed blocks shown up to `at` only. */
  | { kind: 'hold'; at: number }
  /**
   * And `block` at slot `fork` (past A's confirmed slot when it is made, so past its finalized one
   * while B reads it); once `disappear` is set, until A's finalized slot reaches it, then gone.
   */
  | { kind: 'phantom'; at: number; fork: number; block: Record<string, unknown>; disappear?: boolean }
  | { kind: 'gone'; at: number };

let a: TestGateway;
let b: TestGateway;
let proxy: Server;
let phase: Phase = { kind: 'pass' };
let failing = false;
const bDir = tempDir();

async function resultOf<T>(url: string, method: string, params: unknown = []): Promise<T> {
  const r = await call(url, method, params);
  assert.ok(r.error === undefined, `${method}: ${JSON.stringify(r.error)}`);
  return r.result as T;
}

const isConfirmed = (cfg: unknown) => (cfg as { commitment?: string } | undefined)?.commitment === 'confirmed';

async function serveProxy(): Promise<string> {
  let fault = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString();
    const reply = (result: unknown) => {
      const { id } = JSON.parse(body) as { id: unknown };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    };
    if (failing) {
      const kind = fault++ % 4;
      if (kind === 0) return res.writeHead(429, { 'retry-after': '0' }).end('{"error":"slow down"}');
      if (kind === 1) return res.writeHead(500).end('upstream exploded');
      if (kind === 2) return res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","res');
      return res.writeHead(200, { 'content-type': 'application/json' }).end('[1,2,3]');
    }
    const { method, params = [] } = JSON.parse(body) as { method: string; params?: unknown[] };
    if (phase.kind === 'phantom' && phase.disappear) {
      const finalized = await resultOf<number>(a.url, 'getSlot', [{ commitment: 'finalized' }]);
      if (finalized >= phase.fork) phase = { kind: 'gone', at: phase.at };
    }
    if (phase.kind !== 'pass') {
      const { at } = phase;
      const fork = phase.kind === 'phantom' ? phase.fork : undefined;
      if (method === 'getSlot' && isConfirmed(params[0])) return reply(fork ?? at);
      if (method === 'getBlocksWithLimit' && isConfirmed(params[2])) {
        const slots = (await resultOf<number[]>(a.url, method, params)).filter((s) => s <= at);
        if (fork !== undefined && fork >= (params[0] as number)) slots.push(fork);
        return reply(slots);
      }
      if (method === 'getBlock' && phase.kind === 'phantom' && params[0] === fork && isConfirmed(params[1]))
        return reply(phase.block);
    }
    const upstream = await fetch(a.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
  };
  proxy = createServer((req, res) => {
    // A call still under way when A stops (at the end) fails as an unreachable cluster would.
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/?api-key=${TEST_KEY}`;
}

before(async () => {
  a = await startTestGateway({ slotTimeMs: 250 }, {}, { ledger: true });
  b = await startTestGateway(
    {
      clusterRpc: await serveProxy(),
      clusterWs: `${a.gateway.wsUrl}?api-key=${TEST_KEY}`,
      clusterCommitment: 'confirmed',
      upstreamTimeoutMs: 3000,
      clusterCheckMs: 200,
    },
    {},
    { dataDir: bDir },
  );
});
after(async () => {
  await b?.stop();
  await a?.stop();
  await new Promise((r) => proxy?.close(r));
  rmSync(bDir, { recursive: true, force: true });
});

async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; !(await ok()); i++) {
    if (i > 1200) assert.fail(`waited 2 minutes for ${what}; B's log ends:\n${b.logs.slice(-15).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const indexed = () => resultOf<number>(b.url, 'getIndexerSlot');

async function rollbacks(): Promise<number> {
  const text = await (await fetch(`${b.base}metrics`)).text();
  return Number(/^zkgate_cluster_rollbacks_total (\d+)/m.exec(text)?.[1] ?? 0);
}

async function health(): Promise<{ status: string; detail?: string }> {
  const h = (await (await fetch(`${b.base}health`)).json()) as {
    components: Record<string, { status: string; detail?: string }>;
  };
  return h.components.cluster!;
}

/** Holds B at A's newest confirmed block; returns its slot once B has applied it. */
async function hold(): Promise<number> {
  const confirmed = await resultOf<number>(a.url, 'getSlot', [{ commitment: 'confirmed' }]);
  const at = (
    await resultOf<number[]>(a.url, 'getBlocks', [confirmed - 20, confirmed, { commitment: 'confirmed' }])
  ).at(-1)!;
  phase = { kind: 'hold', at };
  await until(`B at slot ${at}`, async () => (await indexed()) >= at);
  assert.equal(await indexed(), at);
  return at;
}

/**
 * The fork's slot: past A's confirmed slot now. At `at + 1` (B's held slot + 1), A's finalized slot
 * could pass it while the compression was made under load; B then reads that slot at finalized,
 * from A, and never sees the fork (twice in the clean-clone suite).
 */
const forkSlot = async () => (await resultOf<number>(a.url, 'getSlot', [{ commitment: 'confirmed' }])) + 1;

/** A new payer funded on A; compress() then compresses 1 SOL of its own on A, giving the signature and slot. */
async function payerOnA() {
  const rpc = rpcOf(a, a);
  const payer = Keypair.generate();
  await confirmTx(rpc, await rpc.requestAirdrop(payer.publicKey, 2_000_000_000));
  const smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
  return {
    owner: payer.publicKey.toBase58(),
    async compress(): Promise<{ signature: string; slot: number }> {
      const signature = await compress(rpc, payer, 1_000_000_000, payer.publicKey, smt1);
      const status = await resultOf<{ value: [{ slot: number }] }>(a.url, 'getSignatureStatuses', [[signature]]);
      return { signature, slot: status.value[0].slot };
    },
  };
}

/** On A, a compression of a new payer's; the owner, signature and slot. */
async function compressOnA(): Promise<{ owner: string; signature: string; slot: number }> {
  const p = await payerOnA();
  return { owner: p.owner, ...(await p.compress()) };
}

/** A's block at `slot`, made a fork's block after `parent`: the same transactions under another hash. */
async function forkBlock(slot: number, parent: number): Promise<Record<string, unknown>> {
  const opts = { encoding: 'base64', transactionDetails: 'full', maxSupportedTransactionVersion: 0, rewards: false };
  const block = await resultOf<Record<string, unknown>>(a.url, 'getBlock', [
    slot,
    { ...opts, commitment: 'confirmed' },
  ]);
  const parentBlock = await resultOf<{ blockhash: string }>(a.url, 'getBlock', [
    parent,
    { ...opts, transactionDetails: 'none', commitment: 'confirmed' },
  ]);
  return {
    ...block,
    blockhash: encodeBase58(randomBytes(32)),
    parentSlot: parent,
    previousBlockhash: parentBlock.blockhash,
  };
}

const unslotted = (r: RpcAnswer) => {
  const v = r.result as { context?: { slot: number } } | undefined;
  return v && typeof v === 'object' && v.context ? { ...r, result: { ...v, context: { ...v.context, slot: 0 } } } : r;
};

async function sameAsA(owner: string): Promise<void> {
  for (const [method, params] of [
    ['getCompressedAccountsByOwner', { owner }],
    ['getCompressedBalanceByOwner', { owner }],
    ['getCompressionSignaturesForOwner', { owner }],
  ] as const) {
    const [fromA, fromB] = await Promise.all([call(a.url, method, params), call(b.url, method, params)]);
    assert.ok(fromA.result !== undefined, `${method} on A: ${JSON.stringify(fromA.error)}`);
    assert.deepEqual(unslotted(fromB), unslotted(fromA), method);
  }
}

/** B's compression signatures of `owner`, as [signature, slot]. */
const signaturesOnB = async (owner: string) =>
  (
    await resultOf<{ value: { items: { signature: string; slot: number }[] } }>(
      b.url,
      'getCompressionSignaturesForOwner',
      { owner },
    )
  ).value.items.map((i) => [i.signature, i.slot]);

test('a confirmed block the cluster does not go on from is taken back at the tip', { timeout: 300_000 }, async () => {
  await caughtUp(a, b);
  const before = await rollbacks();
  const payer = await payerOnA();
  const at = await hold();
  const x = { owner: payer.owner, ...(await payer.compress()) };
  const fork = await forkSlot();
  phase = { kind: 'phantom', at, fork, block: await forkBlock(x.slot, at) };
  // B applies the fork's block: the compressed account and its signature, at the fork's slot.
  await until('B at the fork', async () => (await indexed()) === fork);
  assert.equal(phase.kind, 'phantom', 'the fork is still what the cluster shows');
  assert.deepEqual(await signaturesOnB(x.owner), [[x.signature, fork]]);
  assert.equal(
    (await resultOf<{ value: string | number }>(b.url, 'getCompressedBalanceByOwner', { owner: x.owner })).value,
    1_000_000_000,
  );
  // A's next block does not hang from it: taken back, and A's blocks applied instead.
  phase = { kind: 'pass' };
  // (Under load A may finalize the fork's slot first: then finality takes it back, maybe again.)
  await until('the rollback', async () => (await rollbacks()) >= before + 1);
  await caughtUp(a, b);
  assert.deepEqual(await signaturesOnB(x.owner), [[x.signature, x.slot]]);
  await sameAsA(x.owner);
});

test(
  'a confirmed block that disappears is taken back once the finalized chain has another there',
  { timeout: 300_000 },
  async () => {
    await caughtUp(a, b);
    const before = await rollbacks();
    const payer = await payerOnA();
    const at = await hold();
    const x = { owner: payer.owner, ...(await payer.compress()) };
    const fork = await forkSlot();
    phase = { kind: 'phantom', at, fork, block: await forkBlock(x.slot, at) };
    await until('B at the fork', async () => (await indexed()) === fork);
    assert.deepEqual(await signaturesOnB(x.owner), [[x.signature, fork]]);
    // No block follows it; once A finalizes the slot, the fork's block is gone and B takes it back.
    phase = { ...phase, disappear: true };
    await until('the rollback', async () => (await rollbacks()) >= before + 1);
    await until('the fork gone', async () => phase.kind === 'gone');
    await until(`B back at slot ${at}`, async () => (await indexed()) === at);
    assert.deepEqual(await signaturesOnB(x.owner), []);
    assert.equal(
      (await resultOf<{ value: string | number }>(b.url, 'getCompressedBalanceByOwner', { owner: x.owner })).value,
      0,
    );
    phase = { kind: 'pass' };
    await caughtUp(a, b);
    await sameAsA(x.owner);
  },
);

test("while the cluster's RPC fails every call, /health is degraded and B answers from its index", async () => {
  await caughtUp(a, b);
  const x = await compressOnA();
  await caughtUp(a, b);
  await until('health ready', async () => (await health()).status === 'ready');
  failing = true;
  await until('health degraded', async () => (await health()).status === 'degraded');
  assert.match((await health()).detail!, /its RPC is failing \((rate_limited|http|malformed)/);
  await sameAsA(x.owner);
  failing = false;
  await until('health ready again', async () => (await health()).status === 'ready');
  await caughtUp(a, b);
  await sameAsA(x.owner);
});
