// --preload-circuits beyond --prover-memory-mb: every listed key loads first, then tables in list
// order while the budget has room beside the keys; the shapes left over prove without tables and
// are reported, instead of the last listed evicting the first. Its own file: the addon's key
// registry is the process's, and other tests' gateways would leave keys in it.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import type { HealthReport } from '../../src/obs/health.js';
import type { WarmUpState } from '../../src/prover/service.js';
import { demoAccountHashes, demoAddress } from '../../src/prover/index.js';
import { loadNativeAddon, type NativeAddon } from '../../src/zk/native-addon.js';
import { bigIntToBase58, loadPoseidon } from '../../src/zk/index.js';
import { httpRequest, tempDir } from '../helpers/gateway.js';
import { KEY_CACHE } from '../helpers/zk.js';
import { AMT1, keys, SMT1, startProverGateway, verifyV1, type ProverGateway } from './helpers.js';

const b58 = bigIntToBase58;
const status = loadNativeAddon();
const shapes = ['v1_inclusion_26_1', 'v1_non-inclusion_26_1'] as const;
const MiB = 2 ** 20;

/** Each shape's parsed key bytes, its files' bytes (the table cap's input) and its whole tables' bytes. */
async function sizes(addon: NativeAddon, list: readonly string[] = shapes) {
  const out = [];
  for (const s of list) {
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

/**
 * A gateway preloading `list` within `mib` MiB, once ready and with nothing failed; `evictions()`
 * counts the registry's evictions since its start. What an earlier test's gateway left in the
 * process's registry goes first.
 */
async function withPreload(
  addon: NativeAddon,
  list: readonly string[],
  mib: number,
  dataDir: string | undefined,
  body: (gw: ProverGateway, state: WarmUpState, evictions: () => number) => Promise<void>,
): Promise<void> {
  addon.setMemoryBudget(1);
  const before = addon.memoryInfo().evictions;
  const gw = await startProverGateway({ preloadCircuits: [...list], proverMemoryMb: mib }, dataDir);
  try {
    const state = await ready(gw);
    assert.deepEqual(state.failed, []);
    await body(gw, state, () => addon.memoryInfo().evictions - before);
  } finally {
    await gw.stop();
  }
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

    await withPreload(addon, shapes, mib, undefined, async (gw, state, evictions) => {
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
      assert.deepEqual({ keys: mem.keys, evictions: evictions() }, { keys: 2, evictions: 0 });
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
      assert.equal(evictions(), 0);
    });
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
    await withPreload(addon, shapes, mib, undefined, async (gw, state, evictions) => {
      assert.deepEqual(state.notPreloaded, [shapes[1]]);
      assert.equal(state.done, 2);
      assert.equal(evictions(), 0, 'the first key stayed');
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
    });
  },
);

test(
  'keys that do not all fit: in list order each shape takes its key, then its tables, while they fit',
  { skip: !status.ok && 'native addon unavailable' },
  async () => {
    const addon = status.ok ? status.addon : undefined!;
    const list = [
      'v1_inclusion_26_1',
      'v2_combined_32_40_1_1',
      'v2_non-inclusion_40_1',
      'v1_combined_26_26_1_1',
      'v1_non-inclusion_26_1',
      'v2_inclusion_32_1',
    ];
    const sized = await sizes(addon, list);
    const allKeys = sized.reduce((n, x) => n + x.bytes, 0);
    // What the rule gives under a budget of m MiB: a key where it fits beside what is in, then its
    // tables (capped at half of what the budget leaves after the key's files) where they fit.
    const simulate = (m: number) => {
      const budget = m * MiB;
      let used = 0;
      const tables: string[] = [];
      const without: { circuit: string; bytes: number }[] = [];
      const left: string[] = [];
      for (const [i, x] of sized.entries()) {
        if (used + x.bytes > budget) {
          left.push(list[i]!);
          continue;
        }
        used += x.bytes;
        const planned = addon.plannedTableBytes(x.key, Math.max(0, (budget - x.files) / 2));
        if (planned === 0) continue;
        if (used + planned <= budget) {
          used += planned;
          tables.push(list[i]!);
        } else without.push({ circuit: list[i]!, bytes: planned });
      }
      return { used, tables, without, left };
    };
    // A budget below the keys' total where the first shape gets tables and a later key is left out
    // (with every key first, the first shape would have had none).
    let mib = Math.ceil(sized[0]!.bytes / MiB);
    while (mib * MiB < allKeys && !(simulate(mib).tables[0] === list[0] && simulate(mib).left.length > 0)) mib++;
    assert.ok(mib * MiB < allKeys, 'a budget that exercises the rule');
    const expected = simulate(mib);

    // Its own copy of the keys: the tables this budget plans are partial, and their files must not
    // replace the suite's whole ones.
    const dataDir = tempDir();
    mkdirSync(join(dataDir, 'keys'));
    symlinkSync(join(KEY_CACHE, 'circuits'), join(dataDir, 'circuits'), 'dir');
    copyFileSync(join(KEY_CACHE, 'keys', 'manifest.json'), join(dataDir, 'keys', 'manifest.json'));
    for (const s of list)
      for (const f of [`${s}.zkey`, `${s}.vk.json`]) copyFileSync(join(KEY_CACHE, 'keys', f), join(dataDir, 'keys', f));

    try {
      await withPreload(addon, list, mib, dataDir, async (gw, state, evictions) => {
        assert.deepEqual(state.notPreloaded ?? [], expected.left);
        assert.deepEqual(state.withoutTables ?? [], expected.without);
        for (const s of list.filter((x) => !expected.left.includes(x))) {
          const line = gw.logs.find((l) => l.includes('"circuit warm"') && l.includes(`"circuit":"${s}"`));
          assert.ok(line, `${s} warmed`);
          assert.equal((JSON.parse(line) as { tables: boolean }).tables, expected.tables.includes(s), s);
        }
        assert.deepEqual(
          { used: addon.memoryInfo().used, evictions: evictions() },
          { used: expected.used, evictions: 0 },
        );
        // The first shape proves with its (partial) tables.
        const hashes = demoAccountHashes(SMT1, 1, 0, 1, 'budget-greedy');
        await gw.client.appendLeaves(SMT1, hashes, 9n);
        const inc = await gw.rpc('getValidityProof', { hashes: [b58(hashes[0]!)] });
        await verifyV1(inc.result, 1, list[0]!);
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
