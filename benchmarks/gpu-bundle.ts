// npm run gpu-bundle -- OUT [--set a|b]: what `native/gpu-host/run.sh OUT RESULTS` needs on a GPU
// host that has no Node and no registry, under the device tool's 64 MiB carry limit:
//   OUT/keys   zkgate's dev keys with sample witnesses (`zkgate keys export` layout):
//              set a: v1_inclusion_26_1, v2_inclusion_32_1; set b: v1_inclusion_26_4 (35 MB alone)
//   OUT/light  Light's own key for the same statement, imported (SHAPE.zkey, with its constraint
//              system), two inputs files (SHAPE.N.bin, 32-byte little-endian inputs), the /prove body
//              of inputs 0 (SHAPE.body.json) and its verifying key; set a also carries Light's prover
//              binary and its .key file, for the side-by-side on the host's CPU.
// Set a is about 60 MB, set b about 52 MB.
import { copyFileSync, mkdirSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { exportKeys } from '../src/keys-export.js';
import { le32 } from '../src/zk/native-addon.js';
import { importLightKey } from '../src/zk/light/import.js';
import { lightInputVector } from '../src/zk/light/inputs.js';
import { sampleLightInputs } from '../src/zk/light/sample-inputs.js';
import { KeyStore, loadPoseidon, shapeByName, shutdownZk } from '../src/zk/index.js';
import { BENCH_CACHE } from './lib/paths.js';
import { lightBin, lightBodyOf } from './scenarios/vs-light.js';

const SETS = {
  a: { dev: ['v1_inclusion_26_1', 'v2_inclusion_32_1'], light: 'mainnet_inclusion_26_1', binary: true },
  b: { dev: ['v1_inclusion_26_4'], light: 'mainnet_inclusion_26_4', binary: false },
} as const;
/** Light's key file name → zkgate's shape of the same statement. */
const LIGHT_SHAPE: Record<string, string> = {
  mainnet_inclusion_26_1: 'v1_inclusion_26_1',
  mainnet_inclusion_26_4: 'v1_inclusion_26_4',
};

const { values, positionals } = parseArgs({
  options: { set: { type: 'string', default: 'a' } },
  allowPositionals: true,
});
const setName = values.set as keyof typeof SETS;
const out = positionals[0];
if (!out || positionals.length > 1 || !Object.hasOwn(SETS, setName)) {
  console.error('usage: npm run gpu-bundle -- OUT [--set a|b]');
  process.exit(2);
}
const set = SETS[setName];
const dir = resolve(out);
rmSync(dir, { recursive: true, force: true });
mkdirSync(join(dir, 'light'), { recursive: true });

await loadPoseidon();
// Dev keys from the bench's cache (built there once), exported with 4 sample witnesses each.
const keys = new KeyStore(BENCH_CACHE);
for (const shape of set.dev) await keys.ensure(shape);
await exportKeys(keys, set.dev, join(dir, 'keys'), { witnesses: 4 });

// Light's key: imported as zkgate proves it, and inputs its circuit accepts.
const bin = lightBin();
const file = join(bin, 'proving-keys', `${set.light}.key`);
const imported = await importLightKey(file, join(dir, 'light', `${set.light}.zkey`));
writeFileSync(join(dir, 'light', `${set.light}.vk.json`), JSON.stringify(imported.vk));
const shape = shapeByName(LIGHT_SHAPE[set.light]!);
for (const i of [0, 1]) {
  const inputs = sampleLightInputs(shape);
  writeFileSync(join(dir, 'light', `${set.light}.${i}.bin`), Buffer.concat(lightInputVector(shape, inputs).map(le32)));
  if (i === 0) writeFileSync(join(dir, 'light', `${set.light}.body.json`), lightBodyOf(shape, inputs));
}
if (set.binary) {
  copyFileSync(join(bin, 'prover-linux-x64'), join(dir, 'light', 'prover-linux-x64'));
  copyFileSync(file, join(dir, 'light', `${set.light}.key`));
}
await shutdownZk();

let bytes = 0;
const walk = (d: string): void => {
  for (const e of readdirSync(d, { withFileTypes: true }))
    e.isDirectory() ? walk(join(d, e.name)) : (bytes += statSync(join(d, e.name)).size);
};
walk(dir);
console.log(`bundle ${setName} in ${dir}: ${(bytes / 2 ** 20).toFixed(1)} MiB`);
