// --preload-circuits beyond --prover-memory-mb: every listed key loads first, then tables in list
// order while the budget has room beside the keys; the shapes left over prove without tables and
// are reported, instead of the last listed evicting the first. Its own file: the addon's key
// registry is the process's, and other tests' gateways would leave keys in it.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { before, test } from 'node:test';
import type { HealthReport } from '../../src/obs/health.js';
import { demoAccountHashes, demoAddress } from '../../src/prover/index.js';
import { loadNativeAddon, type NativeAddon } from '../../src/zk/native-addon.js';
import { bigIntToBase58, loadPoseidon } from '../../src/zk/index.js';
import { httpRequest } from '../helpers/gateway.js';
import { AMT1, keys, SMT1, startProverGateway, verifyV1, type ProverGateway } from './helpers.js';

const b58 = bigIntToBase58;
const status = loadNativeAddon();
const shapes = ['v1_inclusion_26_1', 'v1_non-inclusion_26_1'] as const;
const MiB = 2 ** 20;

/** Each shape's parsed key bytes, its files' bytes (the table cap's input) and its whole tables' bytes. */
async function sizes(addon: NativeAddon) {
  const out = [];
  for (const s of shapes) {
    const k = await keys.ensure(s);
    const key = addon.loadKey(readFileSync(k.zkeyPath), 0, 1, false, '');
    const files = statSync(k.zkeyPath).size + statSync(k.wasmPath).size;
    out.push({ key, bytes: addon.keyInfo(key).bytes, files, whole: addon.plannedTableBytes(key, 2 ** 40) });
  }
  return out;
}

async function ready(gw: ProverGateway) {
  const deadline = Date.now() + 180_000;
  while (gw.gateway.prover!.service.warmUpState().phase !== 'ready') {
    assert.ok(Date.now() < deadline, 'the warm-up ends');
    await new Promise((r) => setTimeout(r, 50));
  }
  return gw.gateway.prover!.service.warmUpState();
}

async function healthDetail(gw: ProverGateway): Promise<string> {
  const h = JSON.parse((await httpRequest(`${gw.base}health`, { method: 'GET' })).text) as HealthReport;
  return h.components.validityProof?.detail ?? '';
}

before(loadPoseidon);

test(
  'keys first, then tables in list order while they fit: nothing evicted, the rest proves without tables',
  { skip: !status.ok && 'native addon unavailable' },
  async () => {
    const addon = status.ok ? status.addon : undefined!;
    // A budget (whole MiB, as --prover-memory-mb takes it) with room for both keys and the first
    // shape's whole tables, not for the second's as well: sizes from the addon (unnamed keys stay
    // outside the registry), each key's table cap as the backend computes it.
    const sized = await sizes(addon);
    const [first, second] = sized as [(typeof sized)[0], (typeof sized)[0]];
    const keyBytes = first.bytes + second.bytes;
    const cap = (m: number, files: number) => Math.max(0, (m * MiB - files) / 2);
    let mib = Math.ceil((keyBytes + first.whole) / MiB);
    while (cap(mib, first.files) < first.whole) mib++;
    const secondPlanned = addon.plannedTableBytes(second.key, cap(mib, second.files));
    assert.ok(secondPlanned > 0 && keyBytes + first.whole + secondPlanned > mib * MiB, `budget ${mib} MiB`);

    addon.setMemoryBudget(1); // what an earlier test's gateway left in the process's registry goes
    const evictionsBefore = addon.memoryInfo().evictions;
    const gw = await startProverGateway({ preloadCircuits: [...shapes], proverMemoryMb: mib });
    try {
      const state = await ready(gw);
      assert.deepEqual(state.failed, []);
      assert.deepEqual(state.withoutTables, [{ circuit: shapes[1], bytes: secondPlanned }]);
      const warm = (name: string) => {
        const line = gw.logs.find((l) => l.includes('"circuit warm"') && l.includes(`"circuit":"${name}"`));
        assert.ok(line, `${name} warmed`);
        return JSON.parse(line) as { tables: boolean };
      };
      assert.equal(warm(shapes[0]).tables, true);
      assert.equal(warm(shapes[1]).tables, false);
      assert.equal(
        gw.logs.some((l) => l.includes('the least recently used were evicted')),
        false,
      );
      assert.ok(gw.logs.some((l) => l.includes('preloaded circuits without fixed-base tables (slower proofs)')));
      const mem = addon.memoryInfo();
      assert.deepEqual({ keys: mem.keys, evictions: mem.evictions - evictionsBefore }, { keys: 2, evictions: 0 });
      assert.equal(mem.used, keyBytes + first.whole);
      assert.match(
        await healthDetail(gw),
        /^2 circuits preloaded in \d+ ms; without fixed-base tables \(no room in --prover-memory-mb\): v1_non-inclusion_26_1$/,
      );
      // Both prove: the first with its tables, the second without.
      const hashes = demoAccountHashes(SMT1, 1, 0, 1, 'budget-preload');
      await gw.client.appendLeaves(SMT1, hashes, 9n);
      const inc = await gw.rpc('getValidityProof', { hashes: [b58(hashes[0]!)] });
      await verifyV1(inc.result, 1, shapes[0]);
      const non = await gw.rpc('getValidityProof', {
        newAddressesWithTrees: [{ address: b58(demoAddress(910)), tree: AMT1 }],
      });
      await verifyV1(non.result, 0, shapes[1]);
      assert.equal(addon.memoryInfo().evictions - evictionsBefore, 0);
    } finally {
      await gw.stop();
    }
  },
);

test(
  'a key that does not fit beside the earlier ones is not preloaded (reported); it loads on first use',
  { skip: !status.ok && 'native addon unavailable' },
  async () => {
    const addon = status.ok ? status.addon : undefined!;
    const [first, second] = (await sizes(addon)).map((x) => x.bytes) as [number, number];
    // Room for the first key, not for both.
    const mib = Math.ceil(first / MiB);
    assert.ok(first + second > mib * MiB);
    addon.setMemoryBudget(1); // what an earlier test's gateway left in the process's registry goes
    const evictionsBefore = addon.memoryInfo().evictions;
    const gw = await startProverGateway({ preloadCircuits: [...shapes], proverMemoryMb: mib });
    try {
      const state = await ready(gw);
      assert.deepEqual(state.failed, []);
      assert.deepEqual(state.notPreloaded, [shapes[1]]);
      assert.equal(state.done, 2);
      assert.equal(addon.memoryInfo().evictions - evictionsBefore, 0, 'the first key stayed');
      assert.ok(gw.logs.some((l) => l.includes('preloaded circuits not loaded')));
      assert.ok(gw.logs.some((l) => l.includes('"circuit warm"') && l.includes(`"circuit":"${shapes[0]}"`)));
      assert.match(
        await healthDetail(gw),
        /^1 circuits preloaded in \d+ ms; not preloaded \(no room in --prover-memory-mb; loaded on first use\): v1_non-inclusion_26_1$/,
      );
      // On first use it loads (the budget makes room for it as for any request) and proves.
      const non = await gw.rpc('getValidityProof', {
        newAddressesWithTrees: [{ address: b58(demoAddress(911)), tree: AMT1 }],
      });
      await verifyV1(non.result, 0, shapes[1]);
    } finally {
      await gw.stop();
    }
  },
);
