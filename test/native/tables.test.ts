// Fixed-base tables persisted beside their key: built and written once, mapped at the next load,
// and never used when the file is truncated, changed, or another key's: then rebuilt and written
// again. Every proof along the way verifies (snarkjs and the independent verifier), with either
// blinding.
import assert from 'node:assert/strict';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tablesPathOf } from '../../src/prover/native-backend.js';
import { witnessValues } from '../../src/prover/witness-calculator.js';
import type { SampleWitness } from '../../src/sample-witnesses.js';
import { decodeProof, loadNativeAddon, le32, type NativeAddon } from '../../src/zk/native-addon.js';
import { KeyStore, loadPoseidon, shutdownZk } from '../../src/zk/index.js';
import { assertVerifies, KEY_CACHE } from '../helpers/zk.js';
import { keyCopy, type KeyCopy } from './key-copy.js';

const SHAPE = 'v1_inclusion_26_1';
const BUDGET = 1 << 30;
const status = loadNativeAddon();
let addon: NativeAddon;
let dir: string;
let zkeyPath: string;
let key: KeyCopy['key'];
let samples: SampleWitness[];

before(async () => {
  await loadPoseidon();
  if (!status.ok) return;
  addon = status.addon;
  ({ key, samples, dir, zkeyPath } = await keyCopy(SHAPE, 1));
});
after(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await shutdownZk();
});

/** A fresh load of the key file (not shared with earlier loads), its tables built in the foreground. */
function load(path = zkeyPath, tables = tablesPathOf(zkeyPath)) {
  const handle = addon.loadKey(readFileSync(path), BUDGET, 2, false, '', tables);
  return { handle, info: addon.keyInfo(handle) };
}

async function assertProves(handle: ReturnType<typeof load>['handle']): Promise<void> {
  const s = samples[0]!;
  const r = le32(0x1234567n);
  const sv = le32(0x7654321n);
  for (const blinding of ['snarkjs', 'rerandomized'] as const) {
    const points = decodeProof(addon.prove(handle, witnessValues(s.wtns), r, sv, 2, blinding));
    await assertVerifies(key.vk, s.publicSignals, points);
  }
}

/** Overwrites `count` bytes at `at` with their complement. */
function flip(path: string, at: number, count = 1): void {
  const fd = openSync(path, 'r+');
  const b = Buffer.alloc(count);
  readSync(fd, b, 0, count, at);
  for (let i = 0; i < count; i++) b[i] = ~b[i]! & 0xff;
  writeSync(fd, b, 0, count, at);
  closeSync(fd);
}

describe(
  'persisted fixed-base tables',
  { skip: !status.ok && `native addon unavailable: ${!status.ok ? status.reason : ''}` },
  () => {
    const tables = () => tablesPathOf(zkeyPath);

    test('built and written on the first load, mapped on the next; proofs verify both ways', async () => {
      rmSync(tables(), { force: true });
      const first = load();
      assert.equal(first.info.tableFile, 'absent');
      assert.equal(first.info.tablesReady, true);
      assert.equal(first.info.tablesSaved, true);
      assert.ok(existsSync(tables()));
      // A header page, then exactly the planned tables.
      assert.equal(statSync(tables()).size, 4096 + first.info.tableBytes);
      await assertProves(first.handle);
      const again = load();
      assert.equal(again.info.tableFile, 'loaded');
      assert.equal(again.info.tablesReady, true, 'ready at once: nothing to build');
      assert.equal(again.info.tablesSaved, false, 'nothing written');
      await assertProves(again.handle);
    });

    test('a truncated file is detected, not used, and rebuilt', async () => {
      load();
      const size = statSync(tables()).size;
      truncateSync(tables(), size - 4096);
      const loaded = load();
      assert.equal(loaded.info.tableFile, 'invalid');
      assert.equal(loaded.info.tablesSaved, true);
      assert.equal(statSync(tables()).size, size, 'written whole again');
      await assertProves(loaded.handle);
      assert.equal(load().info.tableFile, 'loaded');
    });

    test('a changed byte past window 0 fails the checksum: rebuilt', async () => {
      load();
      // Well inside the first table, beyond its first window (the key's own bases).
      flip(tables(), statSync(tables()).size - 100_000, 8);
      const loaded = load();
      assert.equal(loaded.info.tableFile, 'invalid');
      await assertProves(loaded.handle);
      assert.equal(load().info.tableFile, 'loaded');
    });

    test("another key's tables (same shape, another setup) are detected: rebuilt", async () => {
      // The same circuit with a dev setup of another seed: same sizes, other points.
      const otherDir = join(dir, 'other');
      mkdirSync(otherDir, { recursive: true });
      symlinkSync(join(KEY_CACHE, 'circuits'), join(otherDir, 'circuits'), 'dir');
      const other = await new KeyStore(otherDir, 'tables-test-other-seed').ensure(SHAPE);
      const otherTables = tablesPathOf(other.zkeyPath);
      load(other.zkeyPath, otherTables);
      assert.ok(existsSync(otherTables));
      load();
      copyFileSync(otherTables, tables());
      const loaded = load();
      assert.equal(loaded.info.tableFile, 'invalid', "the other key's tables are not used");
      await assertProves(loaded.handle);
      assert.equal(load().info.tableFile, 'loaded');
    });

    test('a budget that plans other tables does not use the file', () => {
      load();
      const small = addon.loadKey(readFileSync(zkeyPath), 1, 2, false, '', tables());
      assert.equal(addon.keyInfo(small).tableFile, 'invalid');
      assert.equal(addon.keyInfo(small).tableBytes, 0);
    });
  },
);
