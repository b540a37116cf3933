// Which keys a request may have built (--build-on-demand): the shapes each setting names, and a
// shape outside it refused at once through JSON-RPC (-32018) and gRPC (FAILED_PRECONDITION, kind
// key_not_built), naming the shape and the ways to build it, while nothing is built. A build that
// would not fit the memory budget or the free disk is refused the same way (--build-memory-mb).
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { budgetRefusal, estimateBuild } from '../../src/prover/build-budget.js';
import { buildOnDemandShapes, encodeBuildRight } from '../../src/prover/build-policy.js';
import { demoAddress } from '../../src/prover/demo-data.js';
import { RemoteProverError } from '../../src/prover/index.js';
import { bigIntToBase58, shapeByName } from '../../src/zk/index.js';
import { readZkeyHeader } from '../../src/zk/zkey.js';
import { KEY_CACHE } from '../helpers/zk.js';
import { proverClientOf, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { AMT1 } from './helpers.js';

test('the shapes each --build-on-demand setting names', () => {
  const loopback = buildOnDemandShapes(['auto'], true);
  for (const s of ['v1_inclusion_26_1', 'v1_combined_26_26_4_2', 'v2_inclusion_32_8', 'v2_non-inclusion_40_8'])
    assert.ok(loopback.has(s), s);
  for (const s of ['v2_inclusion_32_20', 'v2_non-inclusion_40_32', 'batch_append_32_500'])
    assert.ok(!loopback.has(s), s);
  assert.equal(buildOnDemandShapes(['auto'], false).size, 0, 'off loopback: none');
  assert.equal(buildOnDemandShapes(['none'], true).size, 0);
  assert.ok(buildOnDemandShapes(['all'], false).has('batch_append_32_500'));
  assert.deepEqual(
    [...buildOnDemandShapes(['v2_inclusion_32_20', 'v2_inclusion_32_20'], false)],
    ['v2_inclusion_32_20'],
  );
  assert.throws(() => buildOnDemandShapes(['v9_nothing'], true), /unknown circuit shape "v9_nothing"/);
});

let gw: TestGateway;
before(async () => {
  // A data dir of its own, without the suite's key cache: every shape's key is missing.
  gw = await startTestGateway({ buildOnDemand: ['none'] }, {}, { prover: true, linkKeys: false });
});
after(() => gw?.stop());

/** getValidityProof of one new V1 address: the shape v1_non-inclusion_26_1. */
const newAddressProof = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getValidityProof',
      params: { newAddressesWithTrees: [{ address: bigIntToBase58(demoAddress(1)), tree: AMT1 }] },
    }),
  });

const refusal = (shape: string) =>
  `no proving key for ${shape} yet, and a request may not start its build (--build-on-demand): build it with \`zkgate keys build ${shape}\`, preload it (--preload-circuits), or allow it with --build-on-demand`;

test('a request for a shape outside the list is refused at once, and nothing is built', async () => {
  const res = await newAddressProof(gw.url);
  assert.deepEqual(await res.json(), {
    jsonrpc: '2.0',
    error: { code: -32018, message: refusal('v1_non-inclusion_26_1') },
    id: 1,
  });
  const client = proverClientOf(gw.gateway);
  try {
    await assert.rejects(client.verifyingKey('batch_append_32_500'), (e: RemoteProverError) => {
      assert.equal(e.kind, 'key_not_built');
      assert.equal(e.message, refusal('batch_append_32_500'));
      return true;
    });
  } finally {
    client.close();
  }
  const keys = join(gw.dataDir, 'keys');
  assert.deepEqual(existsSync(keys) ? readdirSync(keys).filter((f) => f.endsWith('.zkey')) : [], []);
});

test("a build's estimate covers the dev keys the suite built: variables within 5% above, never below", async () => {
  const dir = join(KEY_CACHE, 'keys');
  const zkeys = readdirSync(dir).filter((f) => f.endsWith('.zkey'));
  assert.ok(zkeys.length >= 2, zkeys.join());
  for (const file of zkeys) {
    const { nVars } = await readZkeyHeader(join(dir, file));
    const { vars } = estimateBuild(shapeByName(file.replace(/\.zkey$/, '')));
    assert.ok(vars >= nVars && vars <= nVars * 1.05, `${file}: estimated ${vars} variables, has ${nVars}`);
  }
  // Larger shapes need more of both, the builds under way count, and the refusal names what is short.
  const small = estimateBuild(shapeByName('v2_non-inclusion_40_1'));
  const large = estimateBuild(shapeByName('v2_non-inclusion_40_32'));
  assert.ok(large.memoryBytes > small.memoryBytes && large.diskBytes > 31 * small.diskBytes);
  const none = { vars: 0, memoryBytes: 0, diskBytes: 0, ms: 0 };
  const room = { memoryBytes: 2 * 2 ** 30, memorySource: 'allowed by --build-memory-mb', diskBytes: 2 ** 30 };
  assert.equal(budgetRefusal(shapeByName('v2_non-inclusion_40_32'), none, room, '/d'), undefined);
  assert.equal(
    budgetRefusal(shapeByName('v2_non-inclusion_40_32'), large, room, '/d'),
    'building the proving key for v2_non-inclusion_40_32 needs about 2,538 MB of memory, 2,048 MB allowed by --build-memory-mb and 1,698 MB of disk, 1,024 MB free under /d (with the builds already under way): build it where there is room (zkgate keys build v2_non-inclusion_40_32) and import its .zkey here (zkgate keys import), or make room',
  );
});

test('a build over --build-memory-mb is refused before it starts, through JSON-RPC and gRPC, and nothing is written', async () => {
  const tight = await startTestGateway(
    { buildOnDemand: ['all'], buildMemoryMb: 64, preloadCircuits: [] },
    {},
    { prover: true, linkKeys: false },
  );
  try {
    const need = estimateBuild(shapeByName('v1_non-inclusion_26_1'));
    const res = await newAddressProof(tight.url);
    const mbOf = (b: number) => Math.ceil(b / 2 ** 20).toLocaleString('en-US');
    assert.deepEqual(await res.json(), {
      jsonrpc: '2.0',
      error: {
        code: -32018,
        message: `building the proving key for v1_non-inclusion_26_1 needs about ${mbOf(need.memoryBytes)} MB of memory, 64 MB allowed by --build-memory-mb: build it where there is room (zkgate keys build v1_non-inclusion_26_1) and import its .zkey here (zkgate keys import), or make room`,
      },
      id: 1,
    });
    // As a front on loopback with --build-on-demand all would ask.
    const client = proverClientOf(tight.gateway, 11_000, encodeBuildRight(['all'], true));
    try {
      await assert.rejects(client.verifyingKey('v2_inclusion_32_3'), (e: RemoteProverError) => {
        assert.equal(e.kind, 'key_not_built');
        assert.match(
          e.message,
          /^building the proving key for v2_inclusion_32_3 needs about [\d,]+ MB of memory, 64 MB allowed by --build-memory-mb/,
        );
        return true;
      });
    } finally {
      client.close();
    }
    const keys = join(tight.dataDir, 'keys');
    assert.deepEqual(existsSync(keys) ? readdirSync(keys).filter((f) => f.endsWith('.zkey')) : [], []);
    assert.equal(existsSync(join(tight.dataDir, 'circuits', 'v1_non-inclusion_26_1')), false, 'not even compiled');
  } finally {
    await tight.stop();
  }
});

test('what a request may build is carried from where it came in: a prover on loopback builds nothing for a request without that right', async () => {
  // A prover whose own policy would build V1 keys (loopback, auto); a key build answers at once
  // with its time left (--key-build-wait-ms 1), so a request that may build shows it by that answer.
  const prover = await startTestGateway({ keyBuildWaitMs: 1 }, {}, { prover: true, linkKeys: false });
  const { ProverClient } = await import('../../src/prover/index.js');
  const { credentials } = await import('@grpc/grpc-js');
  const as = (right: string | undefined) =>
    new ProverClient(
      prover.gateway.grpcAddress,
      5000,
      { credentials: credentials.createInsecure(), options: {}, token: prover.gateway.grpcToken! },
      right,
    );
  const builds = prover.gateway.prover!.service.builds;
  const shape = 'v1_inclusion_26_3';
  try {
    // No right carried (a direct caller, or a front of an older kind): nothing is built.
    for (const right of [undefined, encodeBuildRight(['auto'], false)]) {
      const c = as(right);
      try {
        await assert.rejects(c.verifyingKey(shape), (e: RemoteProverError) => {
          assert.equal(e.kind, 'key_not_built', String(right));
          assert.equal(e.message, refusal(shape));
          return true;
        });
      } finally {
        c.close();
      }
      assert.equal(builds.has(shape), false, `no build for ${right ?? 'a request without a right'}`);
    }
    // A front on loopback (a developer's chain) carries the right: its request starts the build.
    const c = as(encodeBuildRight(['auto'], true));
    try {
      await assert.rejects(c.verifyingKey(shape), (e: RemoteProverError) => e.kind === 'circuit_warming_up');
    } finally {
      c.close();
    }
    assert.equal(builds.has(shape), true);
  } finally {
    await prover.stop();
  }
});

test("off loopback, a caller's admin key carries the build right a loopback front's callers have; other keys' requests build nothing", async () => {
  // JSON-RPC published (host 0.0.0.0), the prover's ports private; --build-on-demand auto.
  const ADMIN = 'operator-key-3b9e1f0d';
  const front = await startTestGateway(
    { host: '0.0.0.0', proverHost: '127.0.0.1', adminKeys: [ADMIN], keyBuildWaitMs: 1 },
    {},
    { prover: true, linkKeys: false },
  );
  const builds = front.gateway.prover!.service.builds;
  const shape = 'v1_non-inclusion_26_1';
  try {
    const asUser = await (await newAddressProof(front.url)).json();
    assert.deepEqual(asUser, { jsonrpc: '2.0', error: { code: -32018, message: refusal(shape) }, id: 1 });
    assert.equal(builds.has(shape), false, "a user key's request started no build");
    const asAdmin = (await (await newAddressProof(`${front.base}?api-key=${ADMIN}`)).json()) as {
      error?: { code: number; message: string };
    };
    // The build starts and, with --key-build-wait-ms 1, the request is told how long it takes.
    assert.equal(asAdmin.error?.code, -32013, JSON.stringify(asAdmin));
    assert.match(asAdmin.error!.message, new RegExp(shape));
    assert.equal(builds.has(shape), true, "the admin key's request started the build");
  } finally {
    await front.stop();
  }
});
