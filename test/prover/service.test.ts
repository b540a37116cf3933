// The prover service's behaviour around proofs: the bounded queue, deadlines, warm-up, restarts,
// StateSync over gRPC, the split roles and Light's /prove API.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { HealthReport } from '../../src/obs/health.js';
import { ProverClient, demoAccountHashes, demoAddress } from '../../src/prover/index.js';
import { TreeStore } from '../../src/state/index.js';
import { bigIntToBase58, fromRaw, loadPoseidon, toHex32 } from '../../src/zk/index.js';
import { cudaUnavailable, loadNativeAddon } from '../../src/zk/native-addon.js';
import {
  httpRequest,
  linkKeyCache,
  postJson,
  proverClientOf,
  rpcCall,
  startTestGateway,
  tempDir,
  TEST_KEY,
} from '../helpers/gateway.js';
import { assertVerifies } from '../helpers/zk.js';
import { AMT1, keys, SMT1, startProverGateway, verifyV1, warmKeys, type ProverGateway } from './helpers.js';

const b58 = bigIntToBase58;

before(async () => {
  await loadPoseidon();
  await warmKeys();
});

describe('capacity and deadlines', () => {
  let gw: ProverGateway;
  before(async () => {
    // The snarkjs backend: these tests need proofs slow enough (about a second) to queue behind.
    gw = await startProverGateway({
      proverThreads: 1,
      proverQueue: 1,
      proofTimeoutMs: 60_000,
      proverBackend: 'snarkjs',
    });
  });
  after(() => gw.stop());

  test('a full queue fails fast with "prover busy" (-32011); the admitted requests still prove', async () => {
    const params = (i: number) => ({ newAddressesWithTrees: [{ address: b58(demoAddress(500 + i)), tree: AMT1 }] });
    // One warm-up so every request finds the key loaded and reaches the queue at once.
    await gw.rpc('getValidityProof', params(0));
    const results = await Promise.all([1, 2, 3, 4].map((i) => gw.rpc('getValidityProof', params(i))));
    const busy = results.filter((r) => r.error);
    const ok = results.filter((r) => r.result);
    assert.equal(ok.length, 2, 'one running and one queued');
    assert.equal(busy.length, 2);
    for (const r of busy) {
      assert.equal(r.error.code, -32011);
      assert.match(
        r.error.message,
        /^Prover busy: this client already has 2 proofs running or queued, the most one client may have; retry when they finish$/,
      );
    }
    for (const r of ok) await verifyV1(r.result, 0, 'v1_non-inclusion_26_1');
  });

  test('a gRPC deadline shorter than the work ahead: refused at once, holding no queue place', async () => {
    const client = proverClientOf(gw.gateway, 200);
    try {
      // Occupy the worker, then a call that can only wait: its deadline passes in the queue.
      const running = gw.rpc('getValidityProof', {
        newAddressesWithTrees: [{ address: b58(demoAddress(600)), tree: AMT1 }],
      });
      let finished = false;
      running.then(
        () => (finished = true),
        () => (finished = true),
      );
      await new Promise((r) => setTimeout(r, 50));
      await assert.rejects(
        client.getValidityProof({ hashes: [], addresses: [{ address: demoAddress(601), tree: AMT1 }], api: 1 }),
        (e: Error & { kind?: string }) => {
          assert.equal(e.kind, 'prover_busy');
          assert.match(e.message, /would finish in about [\d.]+ s \(1 running, 0 queued\), after its deadline/);
          return true;
        },
      );
      // At once: while the proof it would have waited for is still running.
      assert.equal(finished, false, 'refused before the proof ahead of it finished');
      assert.equal(gw.gateway.prover!.pool.queued, 0, 'the refused call holds no queue place');
      assert.ok((await running).result);
    } finally {
      client.close();
    }
  });
});

describe('per-key share of the queue', () => {
  test('a batch from one key holds at most its share; another key still gets in; waits are logged apart', async () => {
    const other = 'other-key-5d1e2a';
    const gw = await startProverGateway({
      proverThreads: 1,
      proverQueue: 4,
      proofTimeoutMs: 60_000,
      proverBackend: 'snarkjs',
      apiKeys: [TEST_KEY, other],
    });
    try {
      const params = (i: number) => ({ newAddressesWithTrees: [{ address: b58(demoAddress(800 + i)), tree: AMT1 }] });
      await gw.rpc('getValidityProof', params(0));
      const batch = Array.from({ length: 6 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'getValidityProof',
        params: params(1 + i),
      }));
      const sent = postJson(gw.url, JSON.stringify(batch));
      await new Promise((r) => setTimeout(r, 100));
      const otherUrl = `${gw.base}?api-key=${other}`;
      const theirs = rpcCall(otherUrl, 'getValidityProof', params(20));
      const answers: any[] = JSON.parse((await sent).text);
      const busy = answers.filter((a) => a.error);
      // One on the worker and two waiting: half of a queue of 4.
      assert.equal(answers.length - busy.length, 3, JSON.stringify(answers.map((a) => a.error?.message ?? 'ok')));
      for (const a of busy) {
        assert.equal(a.error.code, -32011);
        assert.match(
          a.error.message,
          /^Prover busy: this client already has 3 proofs running or queued, the most one client may have/,
        );
      }
      const t = await theirs;
      assert.ok(t.result, JSON.stringify(t.error));
      await verifyV1(t.result, 0, 'v1_non-inclusion_26_1');
      const lines = gw.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'proof');
      assert.ok(lines.length >= 5);
      for (const l of lines) {
        assert.match(l.caller, /^key-[0-9a-f]{8}$/);
        assert.ok(Number.isInteger(l.queueMs) && Number.isInteger(l.proveMs) && l.proveMs > 0);
      }
      assert.equal(new Set(lines.map((l) => l.caller)).size, 2, 'two callers');
      const metrics = await httpRequest(`${gw.base}metrics`, { method: 'GET' });
      assert.match(metrics.text, /zkgate_prover_queue_wait_seconds_count\{circuit="v1_non-inclusion_26_1"\} \d+/);
      // Shed by the adapter before the call reached the prover.
      assert.match(metrics.text, /zkgate_proofs_shed_total\{limit="caller"\} 3/);
    } finally {
      await gw.stop();
    }
  });
});

describe('per-request timeout', () => {
  test('a proof slower than --proof-timeout-ms answers -32012', async () => {
    const gw = await startProverGateway({ proofTimeoutMs: 150, proverBackend: 'snarkjs' });
    try {
      const r = await gw.rpc('getValidityProof', {
        newAddressesWithTrees: [{ address: b58(demoAddress(700)), tree: AMT1 }],
      });
      assert.equal(r.error.code, -32012);
      assert.equal(r.error.message, 'Proof for v1_non-inclusion_26_1 timed out: deadline passed');
    } finally {
      await gw.stop();
    }
  });

  test('a shape whose key build would outlast --key-build-wait-ms answers "circuit warming up" (-32013) at once, with the time left', async () => {
    // A data dir without the suite's keys (its compiled circuits only): the key has to be built first.
    const dataDir = tempDir();
    linkKeyCache(dataDir, ['circuits']);
    const gw = await startTestGateway(
      { proofTimeoutMs: 300, keyBuildWaitMs: 1000, proverBackend: 'snarkjs' },
      {},
      { prover: true, linkKeys: false, dataDir },
    );
    try {
      const json = await rpcCall(gw.url, 'getValidityProof', {
        newAddressesWithTrees: [{ address: b58(demoAddress(701)), tree: AMT1 }],
      });
      assert.equal(json.error?.code, -32013, JSON.stringify(json));
      // The build's estimate, several seconds, is longer than the second a request may wait.
      assert.match(
        json.error.message,
        /^Circuit v1_non-inclusion_26_1 is warming up: its proving key is being built, about (\d+) s more, longer than a request waits \(1 s, --key-build-wait-ms\); retry in about \1 s$/,
      );
      assert.ok(Number(/about (\d+) s/.exec(json.error.message)![1]) >= 2);
      const client = proverClientOf(gw.gateway);
      const list = await client.listCircuits();
      client.close();
      assert.equal(list.circuits.find((c) => c.name === 'v1_non-inclusion_26_1')?.status, 'building');
    } finally {
      await gw.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('preload', () => {
  test('--preload-circuits: every listed shape loaded in every worker before /health is ready', async () => {
    // A deadline past setTimeout's range used to fire at once (with Node's TimeoutOverflowWarning),
    // and only the first listed shape was loaded.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const shapes = ['v1_inclusion_26_1', 'v1_non-inclusion_26_1'];
    const gw = await startTestGateway({ preloadCircuits: shapes }, {}, { prover: true });
    try {
      const health = async () => {
        const r = await httpRequest(`${gw.base}health`, { method: 'GET' });
        return { code: r.status, report: JSON.parse(r.text) as HealthReport };
      };
      const deadline = Date.now() + 180_000;
      for (;;) {
        const h = await health();
        if (h.report.status === 'warming') {
          // Not ready: 503, with the progress (seen when loading takes long enough to look).
          assert.equal(h.code, 503);
          const c = h.report.components.validityProof!;
          assert.equal(c.status, 'warming');
          assert.match(
            c.detail ?? '',
            /^loading proving keys and fixed-base tables in every worker: [0-2] of 2 circuits/,
          );
        } else {
          assert.equal(h.report.status, 'ok', JSON.stringify(h.report));
          assert.equal(h.code, 200);
          assert.match(h.report.components.validityProof?.detail ?? '', /^2 circuits preloaded in \d+ ms$/);
          break;
        }
        assert.ok(Date.now() < deadline, 'the warm-up ends');
        await new Promise((r) => setTimeout(r, 50));
      }
      // Each shape's key went to every worker, with its tables (the native backend builds them),
      // and every worker proved each shape once (the proof path's first run is not a caller's).
      const pool = gw.gateway.prover!.pool;
      for (const name of shapes) {
        const line = gw.logs.find((l) => l.includes('"circuit warm"') && l.includes(`"circuit":"${name}"`));
        assert.ok(line, `${name} warmed`);
        const entry = JSON.parse(line) as { workers: number; tables: boolean; proofMs?: number };
        assert.equal(entry.workers, pool.threads, name);
        if (pool.backend === 'native') assert.equal(entry.tables, true, name);
        assert.ok((entry.proofMs ?? 0) > 0, `${name} proved in the warm-up`);
      }
      assert.equal(
        gw.logs.some((l) => l.includes('warm-up proof failed')),
        false,
      );
      assert.deepEqual(gw.gateway.prover!.service.warmUpState().failed, []);
      const client = proverClientOf(gw.gateway);
      const list = await client.listCircuits();
      client.close();
      for (const name of shapes) assert.equal(list.circuits.find((c) => c.name === name)?.status, 'ready', name);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
      await gw.stop();
    }
  });
  test("a follower's preloads wait until its backfill reaches the cluster's tip, then load", async () => {
    // The cluster A answers through a proxy that fails every call until it is let through: B can
    // follow nothing, so its preload waits, loading nothing, and says so in /health.
    const a = await startTestGateway({}, {}, { ledger: true });
    let through = false;
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (!through) return res.writeHead(503).end();
        fetch(a.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
          .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()))
          .catch(() => res.destroy());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const clusterRpc = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;
    let b: Awaited<ReturnType<typeof startTestGateway>> | undefined;
    try {
      b = await startTestGateway(
        { clusterRpc, preloadCircuits: ['v1_inclusion_26_1'], upstreamTimeoutMs: 2000 },
        {},
        { prover: true },
      );
      const validity = async () => {
        const r = await httpRequest(`${b!.base}health`, { method: 'GET' });
        return (JSON.parse(r.text) as HealthReport).components.validityProof!;
      };
      // The proxy has failed several of B's calls (its retries), and still nothing is loaded.
      while (!b.logs.some((l) => l.includes('cluster RPC failing'))) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(await validity(), {
        status: 'warming',
        detail:
          "1 circuits to preload, waiting for the index to reach the cluster's tip (the backfill has the cores first)",
        progress: { done: 0, total: 1 },
      });
      assert.equal(b.gateway.prover!.service.warmUpState().done, 0);
      assert.equal(
        b.logs.some((l) => l.includes('"circuit warm"')),
        false,
      );
      through = true;
      for (let i = 0; (await validity()).status !== 'ready'; i++) {
        assert.ok(i < 1800, `the preload ends once B is at A's tip; B's log ends:\n${b.logs.slice(-10).join('\n')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.match((await validity()).detail ?? '', /^1 circuits preloaded in \d+ ms$/);
      // Loaded after B indexed A's tip: the follower's "following" came first, then the warm circuit.
      const order = (text: string) => b!.logs.findIndex((l) => l.includes(text));
      assert.ok(order('"following cluster"') >= 0 && order('"following cluster"') < order('"circuit warm"'));
    } finally {
      await b?.stop();
      await a.stop();
      await new Promise((r) => proxy.close(r));
    }
  });
});

describe('restart', () => {
  test('a restart maps the persisted tables: warm at once, and the first proof verifies', async () => {
    const dataDir = tempDir();
    linkKeyCache(dataDir);
    const shape = 'v1_inclusion_26_1';
    const ready = async (gw: ProverGateway) => {
      const deadline = Date.now() + 180_000;
      while (gw.gateway.prover!.service.warmUpState().phase !== 'ready') {
        assert.ok(Date.now() < deadline, 'the warm-up ends');
        await new Promise((r) => setTimeout(r, 50));
      }
      const line = gw.logs.find((l) => l.includes('"circuit warm"'));
      assert.ok(line, 'warmed');
      return JSON.parse(line) as { tables: boolean; tableFile?: string };
    };
    // The first start writes the tables file (if no earlier run of the shared key cache did).
    let gw = await startProverGateway({ preloadCircuits: [shape] }, dataDir);
    const hashes = demoAccountHashes(SMT1, 1, 0, 2, 'tables-restart');
    try {
      await ready(gw);
      await gw.client.appendLeaves(SMT1, hashes, 7n);
    } finally {
      await gw.stop();
    }
    gw = await startProverGateway({ preloadCircuits: [shape] }, dataDir);
    try {
      const warm = await ready(gw);
      if (gw.gateway.prover!.pool.backend === 'native') {
        assert.equal(warm.tableFile, 'loaded', 'the tables came from their file, not built again');
        assert.equal(warm.tables, true);
      }
      const r = await gw.rpc('getValidityProof', { hashes: [b58(hashes[1]!)] });
      await verifyV1(r.result, 1, shape);
    } finally {
      await gw.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('state', () => {
  test('restart keeps the trees: same roots, and proofs still verify', async () => {
    const dataDir = tempDir();
    linkKeyCache(dataDir);
    let gw = await startProverGateway({}, dataDir);
    const hashes = demoAccountHashes(SMT1, 1, 0, 3, 'restart');
    await gw.client.appendLeaves(SMT1, hashes, 42n);
    await gw.client.insertAddresses(AMT1, [demoAddress(800)], 43n);
    const before = [await gw.client.getTree(SMT1), await gw.client.getTree(AMT1)];
    await gw.stop().catch(() => {});
    gw = await startProverGateway({}, dataDir);
    try {
      assert.deepEqual([await gw.client.getTree(SMT1), await gw.client.getTree(AMT1)], before);
      const r = await gw.rpc('getValidityProof', { hashes: [b58(hashes[2]!)] });
      assert.deepEqual(r.result.value.roots, [b58(before[0]!.root)]);
      assert.deepEqual(r.result.context, { slot: 42 }, 'the slot of the tree proved against');
      await verifyV1(r.result, 1, 'v1_inclusion_26_1');
    } finally {
      await gw.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('StateSync errors carry gRPC codes and name the problem', async () => {
    const gw = await startProverGateway();
    try {
      const code = async (p: Promise<unknown>, kind: string, message: RegExp) =>
        assert.rejects(p, (e: Error & { kind?: string }) => {
          assert.equal(e.kind, kind);
          assert.match(e.message, message);
          return true;
        });
      await code(gw.client.registerTree({ pubkey: SMT1, treeType: 1 }), 'tree_exists', /already registered/);
      await code(gw.client.appendLeaves(b58(5n), [1n]), 'tree_not_found', /is not registered/);
      await code(gw.client.appendLeaves(AMT1, [1n]), 'invalid_tree', /is an address tree, not a state tree/);
      await code(gw.client.appendLeaves(SMT1, [(1n << 254n) + 5n]), 'invalid_argument', /not a BN254 field element/);
      await code(gw.client.insertAddresses(AMT1, [1n << 250n]), 'address_out_of_range', /not below 2\^248/);
      await code(gw.client.nullifyLeaves(SMT1, [{ hash: 99n }]), 'leaf_not_found', /not a live leaf/);
      // A failed batch changes nothing.
      const t = await gw.client.getTree(AMT1);
      await code(gw.client.insertAddresses(AMT1, [demoAddress(900), 1n << 250n]), 'address_out_of_range', /2\^248/);
      assert.deepEqual(await gw.client.getTree(AMT1), t);
      const registered = await gw.client.registerTree({ pubkey: b58(1234n), treeType: 3, rootHistoryCapacity: 7 });
      assert.equal(registered.height, 32);
      assert.equal(registered.rootHistoryCapacity, 7);
      const circuits = await gw.client.listCircuits();
      // `--prover-backend auto` picks the native backend (npm ci built it and it passes its
      // self-check), or cuda on a machine whose GPU passes its own.
      const addon = loadNativeAddon();
      assert.ok(addon.ok);
      assert.equal(circuits.backend, cudaUnavailable(addon.addon, []) === undefined ? 'cuda' : 'native');
      assert.equal(circuits.circuits.find((c) => c.name === 'v1_inclusion_26_1')?.status, 'ready');
      assert.equal(circuits.circuits.length, 83 + 6, 'the validity shapes and the forester’s batch shapes');
      assert.equal(circuits.circuits.find((c) => c.name === 'batch_append_32_10')?.keyKind !== undefined, true);
    } finally {
      await gw.stop();
    }
  });
});

describe('client', () => {
  test('warm() connects and calls ahead of the first request; false, in its time, where no prover listens', async () => {
    const gw = await startProverGateway();
    const fresh = proverClientOf(gw.gateway);
    const nobody = new ProverClient('127.0.0.1:1');
    try {
      assert.equal(await fresh.warm(5000), true);
      const circuits = await fresh.listCircuits();
      assert.equal(circuits.circuits.find((c) => c.name === 'v1_inclusion_26_1')?.status, 'ready');
      // Nobody listens: false once its deadline passes, not an error and not a hang (the test's
      // own timeout would end a hang).
      assert.equal(await nobody.warm(300), false);
    } finally {
      fresh.close();
      nobody.close();
      await gw.stop();
    }
  });
});

describe('roles', () => {
  test('--role rpc reaches a --role prover process over gRPC', async () => {
    const dataDir = tempDir();
    linkKeyCache(dataDir);
    const prover = await startTestGateway({ role: 'prover' }, {}, { prover: true, dataDir });
    const rpc = await startTestGateway({
      role: 'rpc',
      proverUrl: prover.gateway.grpcAddress,
      proverToken: prover.gateway.grpcToken!,
    });
    try {
      assert.equal(prover.gateway.rpcUrl, '');
      const json = await rpcCall(rpc.url, 'getValidityProof', { newAddresses: [b58(demoAddress(1000))] });
      await verifyV1(json.result, 0, 'v1_non-inclusion_26_1');
    } finally {
      await rpc.stop();
      await prover.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('an unreachable prover answers -32014', async () => {
    const rpc = await startTestGateway({ role: 'rpc', proverUrl: '127.0.0.1:1' });
    try {
      const json = await rpcCall(rpc.url, 'getValidityProof', { newAddresses: [b58(demoAddress(1))] });
      const err = json.error;
      assert.equal(err.code, -32014);
      assert.match(err.message, /^Prover at 127\.0\.0\.1:1 is unavailable/);
    } finally {
      await rpc.stop();
    }
  });
});

/** The one web page origin the /prove tests allow (--prove-cors-origins). */
const PAGE = 'http://localhost:5173';

describe("Light's prover HTTP API", () => {
  let gw: ProverGateway;
  let store: TreeStore;
  let body: Record<string, unknown>;
  let publics: bigint[];
  before(async () => {
    gw = await startProverGateway({ proverApiKey: 'light-secret', proveCorsOrigins: [PAGE] });
    // Witnesses from an independent tree holding the same leaves as smt1 would.
    store = await TreeStore.open(tempDir());
    store.registerTree({ pubkey: SMT1, kind: 'state', version: 1 });
    const leaves = demoAccountHashes(SMT1, 1, 0, 4, 'light');
    store.stateTree(SMT1).append(leaves);
    const p = store.stateTree(SMT1).proofByIndex(3);
    body = {
      circuitType: 'inclusion',
      stateTreeHeight: 26,
      inputCompressedAccounts: [
        { root: toHex32(p.root), pathIndex: 3, pathElements: p.pathElements.map(toHex32), leaf: toHex32(p.leaf) },
      ],
    };
    publics = [p.root, p.leaf];
  });
  after(async () => {
    await store.close();
    await gw.stop();
  });

  const prove = (b: unknown, headers: Record<string, string> = { 'x-api-key': 'light-secret' }) =>
    httpRequest(`http://127.0.0.1:${gw.gateway.provePort}/prove`, {
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof b === 'string' ? b : JSON.stringify(b),
    });

  test('POST /prove answers {ar, bs, krs} that verify', async () => {
    const res = await prove(body);
    assert.equal(res.status, 200, res.text);
    const raw = JSON.parse(res.text);
    assert.deepEqual(Object.keys(raw), ['ar', 'bs', 'krs']);
    assert.match(raw.ar[0], /^0x[0-9a-f]{64}$/);
    await assertVerifies(await keys.verificationKey('v1_inclusion_26_1'), publics, fromRaw(raw));
  });

  test('the older kebab-case body without circuitType works too (Bearer auth)', async () => {
    const acc = (body.inputCompressedAccounts as Record<string, unknown>[])[0]!;
    const old = {
      'input-compressed-accounts': [
        { root: acc.root, 'path-index': 3, 'path-elements': acc.pathElements, leaf: acc.leaf },
      ],
    };
    const res = await prove(old, { authorization: 'Bearer light-secret' });
    assert.equal(res.status, 200, res.text);
    await assertVerifies(await keys.verificationKey('v1_inclusion_26_1'), publics, fromRaw(JSON.parse(res.text)));
  });

  test('no web page may drive the prover: plain text and foreign origins are refused before any work; CORS for the configured origin only', async () => {
    const proofs = () => gw.logs.filter((l) => l.includes('"msg":"proof"')).length;
    const before = proofs();
    const url = `http://127.0.0.1:${gw.gateway.provePort}/prove`;
    // A page's "simple request" (no preflight): text/plain, with its origin.
    const plain = await httpRequest(url, {
      headers: { 'content-type': 'text/plain', 'x-api-key': 'light-secret' },
      body: JSON.stringify(body),
    });
    assert.equal(plain.status, 415);
    assert.deepEqual(JSON.parse(plain.text), {
      code: 'unsupported_media_type',
      message: 'Content-Type "text/plain": send the proof request as application/json',
    });
    const foreign = await prove(body, { 'x-api-key': 'light-secret', origin: 'http://evil.example' });
    assert.equal(foreign.status, 403);
    assert.equal(JSON.parse(foreign.text).code, 'forbidden_origin');
    assert.equal(foreign.headers['access-control-allow-origin'], undefined);
    const preflight = await httpRequest(url, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } });
    assert.equal(preflight.status, 403);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    assert.equal(proofs(), before, 'nothing was proved');
    // The configured page: its preflight and its proof, with CORS headers naming it (never "*").
    const ok = await httpRequest(url, { method: 'OPTIONS', headers: { origin: PAGE } });
    assert.equal(ok.status, 204);
    assert.equal(ok.headers['access-control-allow-origin'], PAGE);
    const res = await prove(body, { 'x-api-key': 'light-secret', origin: PAGE });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['access-control-allow-origin'], PAGE);
    await assertVerifies(await keys.verificationKey('v1_inclusion_26_1'), publics, fromRaw(JSON.parse(res.text)));
    // A client that is no page (no Origin: Photon, Light's CLI) needs no CORS and gets none.
    assert.equal((await prove(body)).headers['access-control-allow-origin'], undefined);
  });

  test('errors use Light codes', async () => {
    const noKey = await prove(body, {});
    assert.equal(noKey.status, 401);
    assert.equal(JSON.parse(noKey.text).code, 'unauthorized');
    const bad = await prove('{"circuitType":');
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.text).code, 'malformed_body');
    const badType = await prove({ ...body, circuitType: 'bogus' });
    assert.deepEqual(JSON.parse(badType.text), {
      code: 'malformed_body',
      message: `missing or invalid 'circuitType': expected "inclusion", "non-inclusion" or "combined", got "bogus"`,
    });
    const wrongRoot = await prove({
      ...body,
      inputCompressedAccounts: [{ ...(body.inputCompressedAccounts as object[])[0], root: '0x01' }],
    });
    assert.equal(wrongRoot.status, 400);
    assert.equal(JSON.parse(wrongRoot.text).code, 'proving_error');
    assert.match(JSON.parse(wrongRoot.text).message, /do not satisfy the circuit/);
    const five = await prove({
      ...body,
      inputCompressedAccounts: Array(5).fill((body.inputCompressedAccounts as object[])[0]),
    });
    assert.equal(five.status, 400);
    assert.equal(
      JSON.parse(five.text).message,
      'no V1 inclusion circuit for 5 compressed accounts and 0 new addresses; supported: 1, 2, 3, 4, 8',
    );
    const health = await httpRequest(`http://127.0.0.1:${gw.gateway.provePort}/health`, { method: 'GET' });
    assert.deepEqual(JSON.parse(health.text), { status: 'ok' });
  });
});
