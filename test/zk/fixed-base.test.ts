// The native fixed-base multiplication a dev setup uses for its points: the same bytes as the
// WebAssembly comb (and as @noble/curves' own scalar multiplication) for scalars across the field,
// zero included; the setup takes the native path once it has checked that agreement.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { bn254 } from '@noble/curves/bn254.js';
import { FR } from '../../src/zk/field.js';
import { loadNativeAddon } from '../../src/zk/native-addon.js';
import { closeSetupWorkers, fixedBase, wasmFixedBase } from '../../src/zk/setup/dev-setup.js';

after(() => closeSetupWorkers());

// The zkey encoding: coordinates as Montgomery limbs (x·2^256 mod p), little-endian.
const P = bn254.fields.Fp.ORDER;
const mont = (x: bigint) => ((x << 256n) % P).toString(16).padStart(64, '0').match(/../g)!.reverse().join('');

const scalars = [
  0n,
  1n,
  2n,
  FR - 1n,
  FR - 2n,
  (1n << 253n) + 12345n,
  0xffffn,
  0x10000n,
  ...Array.from({ length: 40 }, (_, i) => (BigInt(i + 1) * 0x9e3779b97f4a7c15f39cc0605cedc834n) % FR),
];

test('native fixed-base multiples equal the comb and noble, for both groups', async () => {
  const native = loadNativeAddon();
  if (!native.ok) assert.fail(native.reason);
  const bytes = Buffer.alloc(32 * scalars.length);
  scalars.forEach((s, i) =>
    bytes.write(s.toString(16).padStart(64, '0').match(/../g)!.reverse().join(''), 32 * i, 'hex'),
  );
  for (const [group, size] of [
    ['G1', 64],
    ['G2', 128],
  ] as const) {
    const got: Buffer = Buffer.from(native.addon.fixedBaseMul(group === 'G1' ? 1 : 2, bytes, 2));
    assert.deepEqual(got, await wasmFixedBase(group, scalars), `${group}: native and comb agree`);
    assert.deepEqual(await fixedBase(group, scalars), got, `${group}: the setup's path gives the same`);
    scalars.forEach((s, i) => {
      const point = got.subarray(i * size, (i + 1) * size).toString('hex');
      if (s === 0n) return assert.equal(point, '00'.repeat(size), 'zero is the point at infinity');
      const want =
        group === 'G1'
          ? (() => {
              const a = bn254.G1.Point.BASE.multiply(s).toAffine();
              return mont(a.x) + mont(a.y);
            })()
          : (() => {
              const a = bn254.G2.Point.BASE.multiply(s).toAffine();
              return mont(a.x.c0) + mont(a.x.c1) + mont(a.y.c0) + mont(a.y.c1);
            })();
      assert.equal(point, want, `${group}: ${s}·G`);
    });
  }
  assert.throws(() => native.addon.fixedBaseMul(1, Buffer.alloc(32, 0xff), 1), /not below r/);
});
