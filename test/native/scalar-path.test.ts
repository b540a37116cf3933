// The 64-bit scalar arithmetic (what CPUs without AVX-512 IFMA run) stays correct where the CPU
// has the eight-lane path too: ZKGATE_NATIVE_SIMD=0 forces it for this process (node:test runs
// each file in its own process; the addon reads the setting at its first table). Tables built and
// persisted in this form prove proofs that verify; where the CPU has the eight-lane path, a table
// file in that form (written by a child process) is detected as the other form and rebuilt.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { tablesPathOf } from '../../src/prover/native-backend.js';
import { witnessValues } from '../../src/prover/witness-calculator.js';
import type { SampleWitness } from '../../src/sample-witnesses.js';
import { decodeProof, loadNativeAddon, le32, type NativeAddon } from '../../src/zk/native-addon.js';
import { loadPoseidon, shutdownZk } from '../../src/zk/index.js';
import { LOADER, sourceModule } from '../helpers/paths.js';
import { assertVerifies } from '../helpers/zk.js';
import { keyCopy, type KeyCopy } from './key-copy.js';

process.env.ZKGATE_NATIVE_SIMD = '0';

const SHAPE = 'v1_inclusion_26_1';
const BUDGET = 1 << 30;
/** The addon's loader as a child process imports it (an absolute path: `-e` resolves from the cwd). */
const ADDON_MODULE = pathToFileURL(sourceModule('zk/native-addon')).href;
const status = loadNativeAddon();
let addon: NativeAddon;
let dir: string;
let zkeyPath: string;
let key: KeyCopy['key'];
let samples: SampleWitness[];

/** What a process with the default setting uses on this CPU ("ifma-x8" or "scalar"). */
const defaultArithmetic = (): string =>
  execFileSync(
    process.execPath,
    [
      ...LOADER,
      '-e',
      `import(${JSON.stringify(ADDON_MODULE)}).then((m) => { const s = m.loadNativeAddon(); console.log(s.ok ? s.addon.arithmetic() : 'none'); })`,
    ],
    { encoding: 'utf8', env: { ...process.env, ZKGATE_NATIVE_SIMD: '' } },
  ).trim();

before(async () => {
  await loadPoseidon();
  if (!status.ok) return;
  addon = status.addon;
  ({ key, samples, dir, zkeyPath } = await keyCopy(SHAPE, 2));
});
after(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await shutdownZk();
});

const load = () => {
  const handle = addon.loadKey(readFileSync(zkeyPath), BUDGET, 2, false, '', tablesPathOf(zkeyPath));
  return { handle, info: addon.keyInfo(handle) };
};

async function assertProves(handle: ReturnType<typeof load>['handle'], threads: number): Promise<void> {
  for (const s of samples)
    for (const blinding of ['snarkjs', 'rerandomized'] as const) {
      const w = witnessValues(s.wtns);
      const points = decodeProof(addon.prove(handle, w, le32(0xabcdefn), le32(0xfedcban), threads, blinding));
      await assertVerifies(key.vk, s.publicSignals, points);
    }
}

describe(
  'the scalar arithmetic, forced (ZKGATE_NATIVE_SIMD=0)',
  { skip: !status.ok && `native addon unavailable: ${!status.ok ? status.reason : ''}` },
  () => {
    test('tables built, persisted and mapped in the scalar form; proofs verify on 1 and 2 threads', async () => {
      assert.equal(addon.arithmetic(), 'scalar');
      rmSync(tablesPathOf(zkeyPath), { force: true });
      const built = load();
      assert.equal(built.info.tableFile, 'absent');
      assert.equal(built.info.tablesReady, true);
      await assertProves(built.handle, 1);
      const mapped = load();
      assert.equal(mapped.info.tableFile, 'loaded');
      await assertProves(mapped.handle, 2);
    });

    test('a table file in the other form is rebuilt, never used (where the CPU has the eight-lane path)', async (t) => {
      const other = defaultArithmetic();
      if (other !== 'ifma-x8') {
        // Both forms are the same here: a file from a default process is this form, and is used.
        assert.equal(other, 'scalar');
        t.diagnostic('this CPU has no AVX-512 IFMA: one form only');
        return;
      }
      rmSync(tablesPathOf(zkeyPath), { force: true });
      execFileSync(
        process.execPath,
        [
          ...LOADER,
          '-e',
          `import(${JSON.stringify(ADDON_MODULE)}).then((m) => { const s = m.loadNativeAddon(); const fs = require('node:fs'); s.addon.loadKey(fs.readFileSync(${JSON.stringify(zkeyPath)}), ${BUDGET}, 2, false, '', ${JSON.stringify(tablesPathOf(zkeyPath))}); })`,
        ],
        { env: { ...process.env, ZKGATE_NATIVE_SIMD: '' } },
      );
      const reloaded = load();
      assert.equal(reloaded.info.tableFile, 'invalid');
      assert.equal(reloaded.info.tablesSaved, true, 'rebuilt in this form and written over');
      await assertProves(reloaded.handle, 2);
    });
  },
);
