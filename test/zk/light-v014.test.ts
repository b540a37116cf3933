// Light's current prover's key files (gnark v0.14: `v1_…`, `v2_…` names). No such file is
// reachable from here, so the 0.27.0 package's files are rewritten in that release's layout
// (test/helpers/gnark-v014.ts, from the format notes in docs/light-keys/), and the integer
// compression both sides use is pinned to the real library's output. The rewritten file must read
// as the same circuit, import, prove under its own verifying key, and fail on a bad input at the
// same constraint as its 0.27 twin; faults of the new layout are refused naming the file.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { uncompressUint32, uncompressUint64 } from '../../src/zk/light/intcomp.js';
import { importLightKey, lightVerificationKey } from '../../src/zk/light/import.js';
import { lightInputVector } from '../../src/zk/light/inputs.js';
import { LightKeyFileError, parseGnarkVerifyingKey, parseLightKeyFile } from '../../src/zk/light/keyfile.js';
import { parseGnarkR1cs, type GnarkR1cs } from '../../src/zk/light/r1cs-cbor.js';
import { parseGnarkR1csV014 } from '../../src/zk/light/r1cs-v014.js';
import { sampleLightInputs } from '../../src/zk/light/sample-inputs.js';
import { decodeProof, le32, loadNativeAddon, randomScalar, type NativeAddon } from '../../src/zk/native-addon.js';
import { loadPoseidon } from '../../src/zk/poseidon.js';
import { shapeByName } from '../../src/zk/shapes.js';
import { verifyGroth16 } from '../../src/zk/verify.js';
import { compressUint32, compressUint64, keyFileV014 } from '../helpers/gnark-v014.js';
import { tempDir } from '../helpers/gateway.js';
import { lightPackage, type LightPackage } from '../helpers/light-package.js';
import { ROOT } from '../helpers/paths.js';

let pkg: LightPackage;
let addon: NativeAddon;
const dir = tempDir('zkgate-light-v014-');
before(async () => {
  pkg = await lightPackage();
  await loadPoseidon();
  const status = loadNativeAddon();
  assert.ok(status.ok, status.ok ? '' : status.reason);
  addon = status.addon;
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** A 0.27.0 file and its rewrite under the current release's name, on disk. */
function rewritten(from: string, to: string, opts: Parameters<typeof keyFileV014>[2] = {}) {
  const old = readFileSync(join(pkg.keys, from));
  const bytes = keyFileV014(from, old, opts);
  const path = join(dir, to);
  writeFileSync(path, bytes);
  return { old, bytes, path };
}

/** A constraint system as plain data; hints by first output (the two encodings order them differently). */
const plain = (cs: GnarkR1cs) => ({
  ...cs,
  rowStart: [...cs.rowStart],
  terms: [...cs.terms],
  hints: cs.hints
    .map((h) => ({ id: h.id, input: [...h.input], outputs: [...h.outputs] }))
    .sort((a, b) => a.outputs[0]! - b.outputs[0]!),
});

test('intcomp streams decode as the real library wrote them, and the test writer writes them word for word', () => {
  // Vectors from github.com/ronanh/intcomp v1.1.1's CompressUint32/CompressUint64 (the version
  // gnark v0.14 pins): bit-packed blocks with plain, zigzag and full-width groups, var-byte tails.
  const vectors = JSON.parse(readFileSync(join(ROOT, 'test/zk/fixtures/intcomp-v1.1.1.json'), 'utf8')) as {
    name: string;
    bits: 32 | 64;
    values: string[];
    words: string[];
  }[];
  assert.equal(vectors.length, 12);
  for (const v of vectors) {
    if (v.bits === 32) {
      const words = Uint32Array.from(v.words.map(Number));
      assert.deepEqual([...uncompressUint32(words)].map(String), v.values, v.name);
      assert.deepEqual([...compressUint32(v.values.map(Number))], [...words], v.name);
    } else {
      const words = BigUint64Array.from(v.words.map(BigInt));
      assert.deepEqual([...uncompressUint64(words)].map(String), v.values, v.name);
      assert.deepEqual([...compressUint64(v.values.map(BigInt))], [...words], v.name);
    }
  }
});

test('a current-release file reads as the same circuit, imports, and its proofs verify under its own verifying key', async () => {
  for (const [from, to, shapeName] of [
    ['mainnet_inclusion_26_1.key', 'v1_inclusion_26_1.key', 'v1_inclusion_26_1'],
    ['non-inclusion_40_1.key', 'v2_non-inclusion_40_1.key', 'v2_non-inclusion_40_1'],
  ] as const) {
    const { old, bytes, path } = rewritten(from, to);
    const file = parseLightKeyFile(to, bytes);
    const before = parseLightKeyFile(from, old);
    assert.equal(file.circuit.gnark, '0.14');
    assert.equal(file.pk.z.count, file.domain.cardinality - 1);
    assert.deepEqual(file.vk, before.vk);
    // The verifying key alone, as the current release's export-vk writes it (with its empty commitment lists).
    assert.equal(file.vkBytes.length, before.vkBytes.length + 8);
    assert.deepEqual(parseGnarkVerifyingKey(to, file.vkBytes), before.vk);
    assert.deepEqual(
      plain(parseGnarkR1csV014(to, bytes.subarray(file.csOffset))),
      plain(parseGnarkR1cs(from, old.subarray(before.csOffset))),
    );

    // Imported (the import's own test proof must verify), then a proof of other inputs.
    const imported = await importLightKey(path, join(dir, `${shapeName}.zkey`), { threads: 2 });
    assert.equal(imported.shape.name, shapeName);
    const shape = shapeByName(shapeName);
    const vector = lightInputVector(shape, sampleLightInputs(shape));
    const native = addon.loadKeyFile(join(dir, `${shapeName}.zkey`), 0, 2, false, '');
    const proof = decodeProof(
      addon.proveInputs(native, Buffer.concat(vector.map(le32)), randomScalar(), randomScalar(), 2),
    );
    const vk = lightVerificationKey(parseGnarkVerifyingKey(to, file.vkBytes));
    const publicInputs = vector.slice(0, vk.nPublic);
    assert.ok(verifyGroth16(vk, publicInputs, proof), `${to}: the proof verifies`);
    assert.ok(
      !verifyGroth16(vk, [publicInputs[0]! + 1n, ...publicInputs.slice(1)], proof),
      `${to}: not for other inputs`,
    );
  }
});

test('a bad input fails at the same constraint as with the 0.27 file, and the witnesses agree', async () => {
  await importLightKey(join(pkg.keys, 'mainnet_inclusion_26_1.key'), join(dir, 'v08.zkey'), { threads: 2 });
  const { path } = rewritten('mainnet_inclusion_26_1.key', 'v1_inclusion_26_1.key');
  await importLightKey(path, join(dir, 'v014.zkey'), { threads: 2 });
  const [v08, v014] = ['v08', 'v014'].map((k) => addon.loadKeyFile(join(dir, `${k}.zkey`), 0, 1, false, ''));
  const shape = shapeByName('v1_inclusion_26_1');
  const good = lightInputVector(shape, sampleLightInputs(shape));
  assert.deepEqual(addon.solve(v014!, Buffer.concat(good.map(le32))), addon.solve(v08!, Buffer.concat(good.map(le32))));
  // The root changed: the last constraint, which compares the computed root with it, fails.
  const bad = Buffer.concat([good[0]! + 1n, ...good.slice(1)].map(le32));
  assert.throws(() => addon.solve(v08!, bad), /^Error: constraint #6319 is not satisfied$/);
  assert.throws(() => addon.solve(v014!, bad), /^Error: constraint #6319 is not satisfied$/);
});

test('faults of the current layout are refused, naming the file and what is wrong', () => {
  const to = 'v2_inclusion_32_1.key';
  const { old, bytes } = rewritten('inclusion_32_1.key', to);
  const cs = parseLightKeyFile(to, bytes).csOffset;
  const refused = (b: Uint8Array, pattern: RegExp, as = to) =>
    assert.throws(
      () => {
        const f = parseLightKeyFile(as, b);
        parseGnarkR1csV014(as, b.subarray(f.csOffset));
      },
      (e: unknown) => e instanceof LightKeyFileError && e.message.startsWith(`${as}: `) && pattern.test(e.message),
    );
  const patched = (f: (b: Buffer) => void) => {
    const b = Buffer.from(bytes);
    f(b);
    return b;
  };
  // Named for one release, laid out as the other.
  refused(old, /its name is a current-release \(gnark v0\.14\) name, but its contents are a 0\.27-release/);
  refused(
    bytes,
    /its contents are a current-release \(gnark v0\.14\) file: name it as that release does/,
    'inclusion_32_1.key',
  );
  // The constraint system cut short, or another gnark's.
  refused(bytes.subarray(0, bytes.length - 1), /says it is \d+ bytes long, and \d+ follow its header/);
  refused(
    patched((b) => b.writeBigUInt64LE(15n, cs + 16)),
    /the constraint system is from gnark 0\.15\.0; zkgate reads gnark 0\.14’s/,
  );
  // A compressed instruction column whose section claims more words than the stream has.
  const levels = Number(bytes.readBigUInt64LE(cs + 32));
  const column = cs + 64 + levels;
  refused(
    patched((b) => b.writeUInt32LE(0xffff, column + 8 + 4)),
    /has a corrupt instruction column: a section runs past the stream/,
  );
  // A hint zkgate does not run; a circuit with commitments.
  refused(
    keyFileV014('inclusion_32_1.key', old, { hintId: 0x12345678 }),
    /needs hint github\.com\/consensys\/gnark\/std\/math\/bits\.nBits \(305419896\), which zkgate does not run/,
  );
  refused(keyFileV014('inclusion_32_1.key', old, { commitments: 1 }), /commitment keys lists 1/);
});
