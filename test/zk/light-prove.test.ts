// zkgate proves Light's own circuits with Light's own keys (the 0.27.0 CLI package from the npm
// registry): every proving-system file imports (its points decompressed, its constraint system
// solved by the native solver), and the proof that admitted it verifies under the verifying key
// Light's binary exports — not with one public input changed; Light's binary and zkgate prove the
// same body and both proofs verify under the same key; a bad input names the failing constraint.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseProveBody } from '../../src/prover/light-json.js';
import { circuitInputs } from '../../src/zk/inputs.js';
import { importLightKey, lightVerificationKey } from '../../src/zk/light/import.js';
import { lightInputVector } from '../../src/zk/light/inputs.js';
import {
  LightKeyFileError,
  lightCircuitOfFile,
  parseGnarkVerifyingKey,
  parseLightKeyFile,
} from '../../src/zk/light/keyfile.js';
import { sampleLightInputs } from '../../src/zk/light/sample-inputs.js';
import { LightKeyStore, lightKeyFiles, type LightImportResult } from '../../src/zk/light/store.js';
import { decodeProof, le32, loadNativeAddon, randomScalar, type NativeAddon } from '../../src/zk/native-addon.js';
import { loadPoseidon } from '../../src/zk/poseidon.js';
import { fromRaw, type RawProof } from '../../src/zk/proof-format.js';
import { FR } from '../../src/zk/field.js';
import { shapeByName } from '../../src/zk/shapes.js';
import { verifyGroth16 } from '../../src/zk/verify.js';
import { tempDir } from '../helpers/gateway.js';
import { lightPackage, type LightPackage } from '../helpers/light-package.js';

let pkg: LightPackage;
let addon: NativeAddon;
const dataDir = tempDir('zkgate-light-prove-');
const store = new LightKeyStore(dataDir);
const results = new Map<string, LightImportResult>();
before(async () => {
  pkg = await lightPackage();
  await loadPoseidon();
  const status = loadNativeAddon();
  assert.ok(status.ok, status.ok ? '' : status.reason);
  addon = status.addon;
});
after(() => rmSync(dataDir, { recursive: true, force: true }));

const SHAPE_OF_FILE: Record<string, string> = {
  'mainnet_inclusion_26_1.key': 'v1_inclusion_26_1',
  'mainnet_inclusion_26_4.key': 'v1_inclusion_26_4',
  'inclusion_32_3.key': 'v2_inclusion_32_3',
  'non-inclusion_26_2.key': 'v1_non-inclusion_26_2',
  'non-inclusion_40_1.key': 'v2_non-inclusion_40_1',
  'combined_26_2_1.key': 'v1_combined_26_26_2_1',
  'combined_32_40_1_2.key': 'v2_combined_32_40_1_2',
};

test('every 0.27.0 file imports, and its test proof verifies under the key Light exports, not with an input changed', async () => {
  const files = lightKeyFiles([pkg.keys]);
  assert.equal(files.length, 18);
  for (const file of files) {
    const r = await store.import(file, { threads: 2 });
    assert.ok(r.status === 'imported', file);
    results.set(r.entry.source, r);
  }
  for (const [file, r] of results) {
    // Public inputs: a legacy circuit's roots and leaves (or addresses), else one hash.
    assert.ok(r.status === 'imported');
    const c = lightCircuitOfFile(file)!;
    assert.equal(r.imported.vk.nPublic, c.legacy ? 2 * (c.header[1] + c.header[3]) : 1, file);
    assert.ok(r.entry.domainSize >= r.entry.nConstraints, file);
  }
  for (const [file, shape] of Object.entries(SHAPE_OF_FILE)) {
    const r = results.get(file);
    assert.ok(r?.status === 'imported' && r.entry.shape === shape, file);
  }
  assert.equal(store.shapes().length, 18);
  // Light's binary exports the verifying key of one file per circuit family and era (each export
  // reads the whole file: 0.5–2 s); every file's own verifying key section was checked equal to
  // Light's export for two of them in light-keyfile.test.ts, and is what the other files use here.
  const exported = new Set(['mainnet_inclusion_26_1.key', 'non-inclusion_40_1.key', 'combined_26_1_1.key']);
  for (const [file, r] of results) {
    assert.equal(r.status, 'imported');
    if (r.status !== 'imported') continue;
    let vk = r.imported.vk;
    if (exported.has(file)) {
      const out = join(dataDir, `${file}.vk`);
      execFileSync(pkg.prover, ['export-vk', '--keys-file', join(pkg.keys, file), '--output', out], {
        stdio: 'ignore',
      });
      vk = lightVerificationKey(parseGnarkVerifyingKey(file, readFileSync(out)));
    }
    const { proof, publicInputs } = r.imported.testProof;
    assert.equal(publicInputs.length, vk.nPublic, file);
    assert.ok(verifyGroth16(vk, publicInputs, proof), `${file}: zkgate's proof verifies`);
    const changed = [(publicInputs[0]! + 1n) % FR, ...publicInputs.slice(1)];
    assert.equal(verifyGroth16(vk, changed, proof), false, `${file}: not with a public input changed`);
  }
  // Importing the same files again changes nothing.
  const again = await store.import(join(pkg.keys, 'mainnet_inclusion_26_1.key'));
  assert.equal(again.status, 'unchanged');
});

test("Light's binary and zkgate prove one body; both proofs verify under the same key", async () => {
  const key = store.get('v2_inclusion_32_1');
  assert.ok(key, 'imported by the test before');
  // Light's `prove` loads every inclusion key of its list: the ones this body does not use are
  // stand-ins (the smallest file under their names), so it loads in seconds.
  const keysDir = join(dataDir, 'light-keys');
  mkdirSync(keysDir);
  for (const n of [1, 2, 3, 4, 8])
    for (const name of [`inclusion_32_${n}.key`, `mainnet_inclusion_26_${n}.key`])
      symlinkSync(
        join(pkg.keys, name === 'inclusion_32_1.key' ? name : 'mainnet_inclusion_26_1.key'),
        join(keysDir, name),
      );
  const body = execFileSync(pkg.prover, ['gen-test-params', '--tree-height', '32', '--compressed-accounts', '1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  }).toString();
  const lightProof = fromRaw(
    JSON.parse(
      execFileSync(pkg.prover, ['prove', '--inclusion', '--circuit', 'inclusion', '--keys-dir', keysDir + '/'], {
        input: body,
        stdio: ['pipe', 'pipe', 'ignore'],
      }).toString(),
    ) as RawProof,
  );
  const request = parseProveBody(JSON.parse(body));
  const shape = shapeByName('v2_inclusion_32_1');
  const vector = lightInputVector(shape, circuitInputs(shape, request.accounts, request.addresses));
  // The body's own public input hash is the one the circuit computes.
  assert.equal(vector[0], request.publicInputHash);
  const native = addon.loadKeyFile(key.zkeyPath, 0, 2, false, '');
  const ours = decodeProof(
    addon.proveInputs(native, Buffer.concat(vector.map(le32)), randomScalar(), randomScalar(), 2, 'rerandomized'),
  );
  const publicInputs = [request.publicInputHash!];
  assert.ok(verifyGroth16(key.vk, publicInputs, lightProof), "Light's proof verifies under the imported key");
  assert.ok(verifyGroth16(key.vk, publicInputs, ours), "zkgate's proof verifies under the same key");
  assert.notDeepEqual(ours, lightProof);
});

test('an input the circuit does not accept fails naming the first unsatisfied constraint', () => {
  const key = store.get('v1_non-inclusion_26_1')!;
  const native = addon.loadKeyFile(key.zkeyPath, 0, 1, false, '');
  const shape = shapeByName('v1_non-inclusion_26_1');
  const good = lightInputVector(shape, sampleLightInputs(shape));
  const solved = addon.solve(native, Buffer.concat(good.map(le32)));
  assert.equal(solved.witness.length, key.entry.nVars * 32);
  assert.equal(solved.a.length, key.entry.nConstraints * 32);
  const bad = (change: (v: bigint[]) => void) => {
    const v = [...good];
    change(v);
    return Buffer.concat(v.map(le32));
  };
  // The root (public input 0): only the last constraints compare the computed root with it.
  assert.throws(
    () =>
      addon.solve(
        native,
        bad((v) => (v[0] = v[0]! + 1n)),
      ),
    /^Error: constraint #7078 is not satisfied$/,
  );
  // The address (public input 1) no longer above its low element: a range check's bits fail.
  assert.throws(
    () =>
      addon.solve(
        native,
        bad((v) => (v[1] = v[2]!)),
      ),
    (e: Error) => /^constraint #\d+ is not satisfied$/.test(e.message) && !e.message.includes('#7078'),
  );
  assert.throws(
    () =>
      addon.solve(
        native,
        bad((v) => v.pop()),
      ),
    /takes 32 inputs, not 31/,
  );
});

test("the GPU pipeline's Compute (emulated on host threads) proves Light's keys byte for byte as the CPU", () => {
  const key = store.get('v1_inclusion_26_1')!;
  const native = addon.loadKeyFile(key.zkeyPath, 0, 2, false, '');
  const shape = shapeByName('v1_inclusion_26_1');
  const vector = lightInputVector(shape, sampleLightInputs(shape));
  const inputs = Buffer.concat(vector.map(le32));
  const [r, s] = [randomScalar(), randomScalar()];
  addon.engineConfigure('emulate', [], 0, 1, 0, 2);
  const emulated = addon.engineProveInputs(native, inputs, r, s, 2, 'snarkjs');
  assert.deepEqual(emulated, addon.proveInputs(native, inputs, r, s, 2, 'snarkjs'));
  assert.ok(verifyGroth16(key.vk, vector.slice(0, 2), decodeProof(emulated)));
});

test('a file whose parts do not belong together is refused at import, naming the file and the fault', async () => {
  const name = 'inclusion_32_1.key';
  const good = readFileSync(join(pkg.keys, name));
  const parsed = parseLightKeyFile(name, good);
  const refused = async (bytes: Uint8Array, pattern: RegExp) => {
    const path = join(dataDir, 'bad', name);
    mkdirSync(join(dataDir, 'bad'), { recursive: true });
    writeFileSync(path, bytes);
    await assert.rejects(
      importLightKey(path, join(dataDir, 'bad', 'out.zkey'), { name }),
      (e: unknown) => e instanceof LightKeyFileError && e.message.startsWith(`${name}: `) && pattern.test(e.message),
    );
  };
  // The constraint system of another circuit (V1 inclusion of one account) after this file's keys.
  const other = readFileSync(join(pkg.keys, 'mainnet_inclusion_26_1.key'));
  const otherCs = other.subarray(parseLightKeyFile('mainnet_inclusion_26_1.key', other).csOffset);
  await refused(
    Buffer.concat([good.subarray(0, parsed.csOffset), otherCs]),
    /the constraint system has \d+ wires, the proving key \d+/,
  );
  // A byte of the constraint system's CBOR changed into a reserved head.
  const cbor = Buffer.from(good);
  cbor[parsed.csOffset] = 0xbf;
  await refused(cbor, /the constraint system has an indefinite or reserved head/);
  // Two A points swapped: every point valid, the key no longer the setup's; only a proof tells.
  const swapped = Buffer.from(good);
  const a = parsed.pk.a.offset;
  good.copy(swapped, a, a + 32, a + 64);
  good.copy(swapped, a + 32, a, a + 32);
  await refused(swapped, /a test proof made with its proving key does not verify under its verifying key/);
});
