// A newcomer's first minute (issue 48): a gateway on an empty data dir with no key built anywhere,
// and a first script as soon as /health says ok. Every proof it asks for succeeds on its first
// try, the requests waiting for the keys being built; two requests for one unbuilt shape share its
// build; a shape a request may not build is still refused at once; and a client's proof completes
// while the forester's keys build beside it. Order and causality only: how long it takes is the
// benchmark's (`npm run bench -- first-start`).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { HealthReport } from '../../src/obs/health.js';
import { demoAddress } from '../../src/prover/demo-data.js';
import type { RemoteProverError } from '../../src/prover/index.js';
import { bigIntToBase58, decodeBase58, KeyStore } from '../../src/zk/index.js';
import {
  httpRequest,
  linkKeyCache,
  proverClientOf,
  rpcCall,
  startTestGateway,
  tempDir,
  type TestGateway,
} from '../helpers/gateway.js';
import { KEY_CACHE } from '../helpers/zk.js';
import { AMT1, AMT2, verifyV1 } from './helpers.js';

const SCRIPT = fileURLToPath(new URL('../../test/prover/fixtures/first-script.mjs', import.meta.url));

async function health(gw: TestGateway): Promise<{ code: number; report: HealthReport }> {
  const r = await httpRequest(`${gw.base}health`, { method: 'GET' });
  return { code: r.status, report: JSON.parse(r.text) as HealthReport };
}

async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, ms = 600_000): Promise<T> {
  for (const end = Date.now() + ms; ;) {
    const v = await f();
    if (v !== undefined) return v;
    assert.ok(Date.now() < end, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** getValidityProof of a new V1 address (the shape v1_non-inclusion_26_1). */
const newV1AddressProof = (gw: TestGateway, n: number) =>
  rpcCall(gw.url, 'getValidityProof', {
    newAddressesWithTrees: [{ address: bigIntToBase58(demoAddress(n)), tree: AMT1 }],
  });

const buildsOf = (gw: TestGateway, circuit: string) =>
  gw.logs.filter((l) => l.includes('"msg":"building proving key"') && l.includes(`"circuit":"${circuit}"`)).length;

test(
  'from an empty data dir and key cache, a first script run as /health says ok gets every proof on its first try',
  { timeout: 1_200_000 },
  async (t) => {
    const dataDir = tempDir('zkgate-first-start-');
    // No key anywhere: the transfer's shape preloaded, every other one built when first asked for.
    // A request may wait longer than the default for its key here: the suite shares two cores.
    const gw = await startTestGateway(
      { preloadCircuits: ['v1_inclusion_26_1'], keyBuildWaitMs: 900_000 },
      {},
      { prover: true, ledger: true, linkKeys: false, dataDir },
    );
    try {
      assert.equal(existsSync(join(dataDir, 'keys', 'manifest.json')), false, 'no key on file');
      await until('/health ok', async () => ((await health(gw)).report.status === 'ok' ? true : undefined));
      const service = gw.gateway.prover!.service;
      assert.deepEqual(service.keysView().ready, ['v1_inclusion_26_1']);

      // The first script, beside two requests for one unbuilt shape at once.
      const script = promisify(execFile)(process.execPath, [SCRIPT], {
        env: { ...process.env, ZKGATE_URL: gw.url },
        timeout: 900_000,
      });
      const twice = Promise.all([newV1AddressProof(gw, 4801), newV1AddressProof(gw, 4802)]);

      // While those keys build: /health stays ok and says which are ready and which are building,
      // and a shape a request may not build is refused at once.
      const building = await until('a key being built for a request', () => {
        const v = service.keysView();
        return v.building.length > 0 && v.building.every((b) => b.priority === 'client') ? v : undefined;
      });
      const h = await health(gw);
      assert.equal(h.report.status, 'ok');
      const keys = h.report.components.provingKeys!.keys!;
      assert.ok(keys.ready.includes('v1_inclusion_26_1'));
      assert.ok(
        keys.building.some((b) => building.building.some((x) => x.circuit === b.circuit)) ||
          keys.ready.includes(building.building[0]!.circuit),
        JSON.stringify(keys),
      );
      const client = proverClientOf(gw.gateway);
      try {
        await assert.rejects(client.verifyingKey('v2_inclusion_32_20'), (e: RemoteProverError) => {
          assert.equal(e.kind, 'key_not_built');
          return true;
        });
      } finally {
        client.close();
      }
      assert.ok(
        !service.keysView().ready.includes('v1_non-inclusion_26_1'),
        'the refusal came back while the keys it did not wait for were still being built',
      );

      // Both requests answered, each proof verified, from one build.
      const [a, b] = await twice;
      const keysHere = new KeyStore(dataDir);
      for (const r of [a, b]) {
        assert.equal(r.error, undefined, JSON.stringify(r.error));
        await verifyV1(r.result, 0, 'v1_non-inclusion_26_1', keysHere);
      }
      assert.notDeepEqual(a.result.value.compressedProof, b.result.value.compressedProof);
      assert.equal(buildsOf(gw, 'v1_non-inclusion_26_1'), 1, 'one build for both');

      // The script: each step once, with the balances to the lamport in the gateway's index.
      const { stdout } = await script;
      const lines = stdout.trimEnd().split('\n');
      t.diagnostic(lines.join(' / '));
      assert.match(lines[0]!, /^mint \w{32,44}$/);
      const [, alice, aliceBalance] = lines[1]!.split(' ');
      const [, bob, bobBalance] = lines[2]!.split(' ');
      assert.equal(aliceBalance, '700000000');
      assert.equal(bobBalance, '300000000');
      const store = gw.gateway.chain!.compression.store;
      assert.equal(store.ownerBalance(decodeBase58(alice!)), 700_000_000n);
      assert.equal(store.ownerBalance(decodeBase58(bob!)), 300_000_000n);
      // The mint's address went into the V2 address tree's queue: Light's system program verified
      // its non-inclusion proof (v2_non-inclusion_40_1, built while the script waited).
      assert.equal(gw.gateway.chain!.compression.trees.addressTree(AMT2).queueSize('address'), 1);
      assert.equal(buildsOf(gw, 'v2_non-inclusion_40_1'), 1);
      assert.ok(service.keysView().ready.includes('v2_non-inclusion_40_1'));
      assert.equal(gw.gateway.chain!.compression.ingester.divergent.size, 0);
      // Nobody was told to come back later.
      assert.equal(gw.logs.filter((l) => l.includes('warming up')).length, 0);
    } finally {
      await gw.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

/** A data dir holding these shapes' keys (and their tables) from the suite's cache, and no other. */
function dataDirWithKeys(shapes: readonly string[]): string {
  const dir = tempDir('zkgate-first-start-');
  linkKeyCache(dir, ['circuits']);
  const keys = join(dir, 'keys');
  mkdirSync(keys);
  const all = JSON.parse(readFileSync(join(KEY_CACHE, 'keys', 'manifest.json'), 'utf8')) as Record<
    string,
    { zkey: string; vk: string }
  >;
  const manifest: typeof all = {};
  for (const s of shapes) {
    const entry = all[s]!;
    manifest[s] = entry;
    for (const f of [entry.zkey, entry.vk, `${entry.zkey}.tables`])
      if (existsSync(join(KEY_CACHE, 'keys', f))) copyFileSync(join(KEY_CACHE, 'keys', f), join(keys, f));
  }
  writeFileSync(join(keys, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

test("a client's proof completes while the forester's keys build beside it", { timeout: 600_000 }, async () => {
  const dataDir = dataDirWithKeys(['v1_non-inclusion_26_1']);
  const gw = await startTestGateway({ forester: 'on' }, {}, { prover: true, ledger: true, linkKeys: false, dataDir });
  try {
    const service = gw.gateway.prover!.service;
    // The forester queued its batch keys' builds at start, at the lowest priority.
    const forester = await until('a forester key being built', () =>
      service.keysView().building.find((b) => b.priority === 'forester'),
    );
    const r = await newV1AddressProof(gw, 4901);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    await verifyV1(r.result, 0, 'v1_non-inclusion_26_1', new KeyStore(dataDir));
    // The proof was answered while that build went on.
    assert.ok(
      service.keysView().building.some((b) => b.circuit === forester.circuit),
      `${forester.circuit} still building after the proof`,
    );
    assert.deepEqual(
      service.keysView().queued.map((q) => q.priority),
      service.keysView().queued.map(() => 'forester'),
    );
  } finally {
    await gw.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
