// Builds the dev keys the suite proves with into its shared cache (test/helpers/zk.ts) before the
// test files start, so that no file waits for another's build. test/run.mjs starts two of these at
// once, one taking the list from the front, the other from the back: each build is mostly one core
// (circom's compile, the setup's constraint pass), and the key store's lock (src/zk/keys.ts) has
// one build a key while the other finds it built. Keys on file are reused as they are.
import { KeyStore, shapeByName, shutdownZk } from '../src/zk/index.js';
import { KEY_CACHE } from './helpers/zk.js';

/** Every shape a test proves with from the shared cache, the longest build first. */
export const SUITE_KEYS = [
  'batch_address_append_40_10',
  'batch_update_32_10',
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
const started = performance.now();
try {
  for (const shape of order) {
    const t0 = performance.now();
    const built = keys.status(shapeByName(shape)) !== 'ready';
    await keys.ensure(shape);
    if (built) console.error(`  ${shape}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
} finally {
  await shutdownZk();
}
console.error(
  `  keys ready (${process.argv[2] ?? 'forward'}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
