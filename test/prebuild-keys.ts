// Builds the dev keys the suite proves with into its shared cache (test/helpers/zk.ts), and their
// fixed-base tables as a gateway with the default --prover-memory-mb plans them, before the test
// files start: so that no file waits for another's key build, and no two build the same tables
// (a table file is written once and mapped by every process after). test/run.mjs starts two of
// these at once, one taking the list from the front, the other from the back: a build is mostly
// one core (circom's compile), and the key store's lock (src/zk/keys.ts) has one build a key while
// the other finds it built. Keys and tables on file are reused as they are.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig } from '../src/config.js';
import { NativeBackend } from '../src/prover/native-backend.js';
import { withFileLock } from '../src/util/file-lock.js';
import { loadNativeAddon } from '../src/zk/native-addon.js';
import { KeyStore, shapeByName, shutdownZk } from '../src/zk/index.js';
import { KEY_CACHE } from './helpers/zk.js';

/** Every shape a test proves with from the shared cache, the longest build first. */
export const SUITE_KEYS = [
  'batch_update_32_10',
  'batch_address_append_40_10',
  'batch_append_32_10',
  'v2_combined_32_40_1_1',
  'v1_combined_26_26_1_1',
  'v2_non-inclusion_40_1',
  'v2_inclusion_32_1',
  'v1_non-inclusion_26_1',
  'v1_inclusion_26_1',
] as const;

const order = process.argv[2] === 'backward' ? [...SUITE_KEYS].reverse() : SUITE_KEYS;
const keys = new KeyStore(KEY_CACHE);
// The tables a default gateway plans (what most tests run); without the addon, none.
const native = loadNativeAddon().ok
  ? new NativeBackend({ memoryBudgetBytes: defaultConfig().proverMemoryMb * 2 ** 20, curveThreads: 2 })
  : undefined;
const started = performance.now();
// A shape the other lane is building now waits at the back of this lane's list: the lock would
// otherwise hold this lane idle while keys are left that nobody builds yet.
const busy = (shape: string) =>
  existsSync(join(keys.dir, `.${shape}.lock`)) || existsSync(join(keys.dir, `.${shape}.tables.lock`));
const queue: string[] = [...order];
try {
  while (queue.length > 0) {
    const shape = queue.shift()!;
    if (queue.length > 0 && busy(shape)) {
      queue.push(shape);
      if (queue.every(busy)) await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    const t0 = performance.now();
    const built = keys.status(shapeByName(shape)) !== 'ready';
    const key = await keys.ensure(shape);
    const job = { shape, zkeyPath: key.zkeyPath, wasmPath: key.wasmPath, keyBytes: 0, inputs: {} };
    // One builder per table file: the other lane, arriving here, maps what this one wrote.
    if (native) await withFileLock(join(keys.dir, `.${shape}.tables.lock`), () => native.waitForTables(job));
    const what = built ? 'key and tables' : 'tables';
    console.error(`  ${shape}: ${what} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
} finally {
  await shutdownZk();
}
console.error(
  `  keys ready (${process.argv[2] ?? 'forward'}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
