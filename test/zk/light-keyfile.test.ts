// Light's own proving-system files (the 0.27.0 CLI package from the npm registry; every one is read
// and imported by light-prove.test.ts): the verifying key section is byte for byte what
// Light's prover binary exports, and its points, decompressed, are the ones Light's deployed system
// program verifies against; truncated, corrupt, renamed and mismatched files are refused naming the
// file and what is wrong.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { before, after, test } from 'node:test';
import { parseLightKeyFile, LightKeyFileError } from '../../src/zk/light/keyfile.js';
import type { G1, G2 } from '../../src/zk/proof-format.js';
import { tempDir } from '../helpers/gateway.js';
import { lightPackage, type LightPackage } from '../helpers/light-package.js';

let pkg: LightPackage;
const dir = tempDir('zkgate-light-keys-');
before(async () => {
  pkg = await lightPackage();
});
after(() => rmSync(dir, { recursive: true, force: true }));

const read = (name: string) => parseLightKeyFile(name, readFileSync(join(pkg.keys, name)));

test("the verifying key is what Light's binary exports, and what Light's deployed system program holds", () => {
  for (const name of ['mainnet_inclusion_26_1.key', 'combined_32_40_1_1.key']) {
    const out = join(dir, `${name}.vk`);
    execFileSync(pkg.prover, ['export-vk', '--keys-file', join(pkg.keys, name), '--output', out], { stdio: 'ignore' });
    assert.ok(Buffer.from(read(name).vkBytes).equals(readFileSync(out)), name);
  }
  // The 0.27.0 system program verifies V1 inclusion of one account with mainnet_inclusion_26_1's
  // key, whose points it holds uncompressed (x, y big-endian; G2 as x.c1, x.c0, y.c1, y.c0): so
  // finding every point there checks the decompression, y and all.
  const program = readFileSync(join(pkg.bin, 'light_system_program_pinocchio.so'));
  const be = (x: bigint) => Buffer.from(x.toString(16).padStart(64, '0'), 'hex');
  const g1 = (p: G1) => Buffer.concat([be(p.x), be(p.y)]);
  const g2 = (p: G2) => Buffer.concat([be(p.x.c1), be(p.x.c0), be(p.y.c1), be(p.y.c0)]);
  const { vk } = read('mainnet_inclusion_26_1.key');
  for (const [what, bytes] of [
    ['α', g1(vk.alpha1)],
    ['β', g2(vk.beta2)],
    ['γ', g2(vk.gamma2)],
    ['δ', g2(vk.delta2)],
    ...vk.ic.map((p, i) => [`K${i}`, g1(p)] as const),
  ] as const)
    assert.ok(program.indexOf(bytes) >= 0, `${what} is in the program`);
});

test('truncated, corrupt, renamed and mismatched files are refused, naming the file and what is wrong', () => {
  const name = 'inclusion_32_1.key';
  const good = readFileSync(join(pkg.keys, name));
  const refused = (bytes: Uint8Array, pattern: RegExp, as = name) =>
    assert.throws(
      () => parseLightKeyFile(as, bytes),
      (e: unknown) => e instanceof LightKeyFileError && e.message.startsWith(`${as}: `) && pattern.test(e.message),
    );
  const k = parseLightKeyFile(name, good);
  const bitmaps = k.pk.infinityA.byteOffset - good.byteOffset;
  const patched = (f: (b: Buffer) => void) => {
    const b = Buffer.from(good);
    f(b);
    return b;
  };
  refused(good.subarray(0, 1000), /truncated in A/);
  refused(good.subarray(0, k.csOffset), /no constraint system/);
  refused(good, /its header says \[32, 1, 0, 0\], its name \[32, 2, 0, 0\]/, 'inclusion_32_2.key');
  refused(good, /not a Light proving-system file name/, 'some.key');
  // A current-release name (gnark v0.14) on a 0.27-release file; a batch (forester) circuit's file.
  refused(
    good,
    /its name is a current-release \(gnark v0\.14\) name, but its contents are a 0\.27-release/,
    'v2_inclusion_32_1.key',
  );
  for (const batch of ['batch_address-append_40_250.key', 'update_32_10.key'])
    refused(good, /is one of Light's batch \(forester\) circuits/, batch);
  // The domain's coset generator (gnark stores 5).
  refused(
    patched((b) => (b[16 + 8 + 96 + 31] = 6)),
    /the domain is not gnark’s/,
  );
  // The count of A points at infinity (just before the bitmaps) no longer what the bitmap holds.
  refused(
    patched((b) => b.writeBigUInt64BE(b.readBigUInt64BE(bitmaps - 16) + 1n, bitmaps - 16)),
    /the infinity bitmaps do not hold the counts before them/,
  );
  // A bitmap byte that is neither 0 nor 1.
  refused(
    patched((b) => (b[bitmaps] = 2)),
    /the infinity bitmaps do not hold the counts before them/,
  );
  // The verifying key's α from another setup: its sign flag flipped.
  const vkAlpha = k.csOffset - k.vkBytes.length;
  refused(
    patched((b) => (b[vkAlpha] = b[vkAlpha]! ^ 0x40)),
    /not of one setup/,
  );
});
