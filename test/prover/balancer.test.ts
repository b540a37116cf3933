// Several provers behind one front, without a queue (--prover-url A,B with --role rpc): the front
// builds the witnesses from its ledger, each proof goes to the healthy prover with the fewest calls
// outstanding, and a prover that is stopped hands its calls to the other, with /health degraded
// naming it. Real processes' parts: two prover-role gateways and an rpc-role front with the
// ledger, a compressed transfer through stateless.js, proofs verified.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createRpc, type Rpc } from '@lightprotocol/stateless.js';
import { resolveConfig } from '../../src/config.js';
import { closeHealthClients } from '../../src/grpc/index.js';
import { linkKeyCache, rpcCall, startTestGateway, tempDir, type TestGateway } from '../helpers/gateway.js';
import { verifyV1, warmKeys } from './helpers.js';
import { compressAndSend } from '../helpers/compress-and-send.js';

const TOKEN = 'balancer-token-0123456789';
const dirs = [tempDir(), tempDir()];
let provers: TestGateway[];
let front: TestGateway;
let rpc: Rpc;

before(async () => {
  await warmKeys();
  provers = [];
  for (const dir of dirs) {
    linkKeyCache(dir);
    provers.push(
      await startTestGateway(
        { role: 'prover', grpcToken: TOKEN },
        {},
        { prover: true, dataDir: dir, keys: ['v1_inclusion_26_1'] },
      ),
    );
  }
  front = await startTestGateway(
    { role: 'rpc', proverUrl: provers.map((p) => p.gateway.grpcAddress).join(','), proverToken: TOKEN },
    {},
    { ledger: true },
  );
  rpc = createRpc(front.url, front.url);
});
after(async () => {
  await front?.stop();
  for (const p of provers ?? []) await p.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  closeHealthClients();
});

const served = async (address: string): Promise<number> => {
  const text = await (await fetch(`${front.base}metrics`)).text();
  const m = new RegExp(
    `zkgate_prover_host_calls_total\\{host="${address.replace(/[.[\]]/g, '\\$&')}",outcome="ok"\\} (\\d+)`,
  ).exec(text);
  return m ? Number(m[1]) : 0;
};

test('several --prover-url: config rules', () => {
  const resolve = (flags: Record<string, unknown>) => resolveConfig(flags, {}, undefined);
  assert.equal(resolve({ role: 'rpc', proverUrl: '127.0.0.1:1,127.0.0.1:2' }).proverUrl, '127.0.0.1:1,127.0.0.1:2');
  assert.throws(
    () => resolve({ proverUrl: '127.0.0.1:1,127.0.0.1:2' }),
    /several provers in --prover-url need --role rpc/,
  );
  assert.throws(
    () => resolve({ role: 'rpc', proverUrl: '127.0.0.1:1,nope' }),
    /--prover-url: expected host:port \(comma-separated for several provers\), got "nope"/,
  );
  assert.throws(
    () => resolve({ role: 'rpc', proverUrl: '127.0.0.1:1,10.0.0.9:2' }),
    /--prover-url 10\.0\.0\.9:2 is not on loopback/,
  );
});

test(
  'proofs are spread over both provers and verify; with one stopped, the other takes every call',
  { timeout: 600_000 },
  async () => {
    // The transfer's proof came through the balancer and was accepted on the ledger.
    const { bob } = await compressAndSend(rpc);
    assert.equal((await rpc.getCompressedBalanceByOwner(bob.publicKey)).toString(), '250000000');
    const hashB58 = (await rpcCall(front.url, 'getCompressedAccountsByOwner', { owner: bob.publicKey.toBase58() }))
      .result.value.items[0].hash;
    assert.equal(typeof hashB58, 'string');

    // Concurrent proofs: the one with fewer calls outstanding gets the next, so both serve.
    const before = await Promise.all(provers.map((p) => served(p.gateway.grpcAddress)));
    const results = await Promise.all(
      Array.from({ length: 6 }, () => rpcCall(front.url, 'getValidityProof', { hashes: [hashB58] })),
    );
    for (const r of results) {
      assert.ok(r.result, JSON.stringify(r.error));
      await verifyV1(r.result, 1, 'v1_inclusion_26_1');
    }
    const after1 = await Promise.all(provers.map((p) => served(p.gateway.grpcAddress)));
    for (const i of [0, 1]) assert.ok(after1[i]! > before[i]!, `prover ${i} served: ${before} → ${after1}`);

    // One prover stopped: every call is proved by the other, and /health names the one down.
    const down = provers[0]!.gateway.grpcAddress;
    await provers[0]!.stop();
    for (let i = 0; i < 4; i++) {
      const r = await rpcCall(front.url, 'getValidityProof', { hashes: [hashB58] });
      assert.ok(r.result, JSON.stringify(r.error));
      await verifyV1(r.result, 1, 'v1_inclusion_26_1');
    }
    const after2 = await served(provers[1]!.gateway.grpcAddress);
    assert.ok(after2 >= after1[1]! + 4, `the remaining prover served ${after1[1]} → ${after2}`);
    const health = (await (await fetch(`${front.base}health`)).json()) as {
      components: Record<string, { status: string; detail?: string }>;
    };
    assert.equal(health.components.grpc?.status, 'degraded');
    assert.ok(health.components.grpc?.detail?.startsWith(`down: ${down} (`), health.components.grpc?.detail);
  },
);
