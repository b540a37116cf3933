// The native prover's arithmetic against independent references: bigint for the fields,
// @noble/curves for G1/G2 (additions, doublings, scalar multiplications, MSMs), ffjavascript for
// the roots of unity and the FFT. Edge cases: zero scalars, r − 1, points at infinity, doubling
// reached through an addition, repeated bases meeting in one bucket.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { bn254 } from '@noble/curves/bn254.js';
import { buildBn128 } from 'ffjavascript';
import { fromLe32, le32, loadNativeAddon, type NativeAddon } from '../../src/zk/native-addon.js';
import { FP, FR, mod, modPow } from '../../src/zk/field.js';

const status = loadNativeAddon();
const addon = (status.ok ? status.addon : undefined) as NativeAddon;
const rand = (m: bigint) => mod(BigInt('0x' + randomBytes(40).toString('hex')), m);
const cat = (parts: Uint8Array[]) => Buffer.concat(parts);
/** Byte strings compared as hex, whatever their class (Buffer or Uint8Array). */
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const G1 = bn254.G1.Point;
const G2 = bn254.G2.Point;
type P1 = InstanceType<typeof G1>;
type P2 = InstanceType<typeof G2>;

const g1Bytes = (p: P1) => {
  if (p.is0()) return new Uint8Array(64);
  const a = p.toAffine();
  return cat([le32(a.x), le32(a.y)]);
};
const g2Bytes = (p: P2) => {
  if (p.is0()) return new Uint8Array(128);
  const a = p.toAffine();
  return cat([le32(a.x.c0), le32(a.x.c1), le32(a.y.c0), le32(a.y.c1)]);
};

test('the addon is built and loads', () => {
  assert.ok(status.ok, status.ok ? '' : status.reason);
});

describe('fields', () => {
  test('Fq and Fr add, sub, mul, square, inverse, negate agree with bigint, edge values included', () => {
    for (const [field, m] of [
      [0, FP],
      [1, FR],
    ] as const) {
      const values = [0n, 1n, 2n, m - 1n, m - 2n, 1n << 253n, ...Array.from({ length: 20 }, () => rand(m))];
      for (const a of values) {
        const b = rand(m);
        const op = (o: number, y = b) => fromLe32(addon.fieldOp(field, o, le32(a), le32(y)));
        assert.equal(op(0), mod(a + b, m));
        assert.equal(op(1), mod(a - b, m));
        assert.equal(op(2), mod(a * b, m));
        assert.equal(op(2, m - 1n), mod(a * (m - 1n), m));
        assert.equal(op(3), mod(a * a, m));
        assert.equal(op(4), a === 0n ? 0n : modPow(a, m - 2n, m));
        assert.equal(op(5), mod(-a, m));
      }
    }
  });

  test('Fq2 multiplication, squaring and inverse agree with @noble/curves', () => {
    const F2 = bn254.fields.Fp2;
    const enc = (x: { c0: bigint; c1: bigint }) => cat([le32(x.c0), le32(x.c1)]);
    const dec = (u: Uint8Array) => ({ c0: fromLe32(u, 0), c1: fromLe32(u, 32) });
    for (let i = 0; i < 20; i++) {
      const a = { c0: rand(FP), c1: rand(FP) };
      const b = { c0: rand(FP), c1: rand(FP) };
      assert.deepEqual(dec(addon.fieldOp(2, 2, enc(a), enc(b))), F2.mul(a, b));
      assert.deepEqual(dec(addon.fieldOp(2, 3, enc(a), enc(b))), F2.sqr(a));
      assert.deepEqual(dec(addon.fieldOp(2, 4, enc(a), enc(b))), F2.inv(a));
    }
    // The product reduces a0·b0 − a1·b1 once, unreduced and of either sign: components at the
    // edges of the field give both signs and the largest sums.
    const edges = [0n, 1n, 2n, (FP - 1n) / 2n, FP - 2n, FP - 1n];
    for (const a0 of edges)
      for (const a1 of edges)
        for (const b0 of edges)
          for (const b1 of edges) {
            const a = { c0: a0, c1: a1 };
            const b = { c0: b0, c1: b1 };
            assert.deepEqual(dec(addon.fieldOp(2, 2, enc(a), enc(b))), F2.mul(a, b), `${a0} ${a1} × ${b0} ${b1}`);
          }
  });

  test('values at or above the modulus are refused', () => {
    assert.throws(() => addon.fieldOp(1, 0, le32(FR), le32(1n)), /out of range/);
    assert.throws(() => addon.fieldOp(0, 0, le32(FP + 5n), le32(1n)), /out of range/);
  });
});

describe('curves', () => {
  for (const [name, group, Point, enc, size] of [
    ['G1', 1, G1, g1Bytes, 64],
    ['G2', 2, G2, g2Bytes, 128],
  ] as const) {
    const P = (k: bigint) => (Point.BASE as P1 & P2).multiply(k);
    const encode = enc as (p: P1 | P2) => Uint8Array;
    test(`${name}: add, mixed add, double and scalar multiplication agree with @noble/curves`, () => {
      for (let i = 0; i < 8; i++) {
        const p = P(rand(FR - 1n) + 1n);
        const q = P(rand(FR - 1n) + 1n);
        const k = rand(FR);
        assert.equal(hex(addon.curveOp(group, 0, encode(p), encode(q))), hex(encode(p.add(q))));
        assert.equal(hex(addon.curveOp(group, 1, encode(p), encode(q))), hex(encode(p.add(q))));
        assert.equal(hex(addon.curveOp(group, 2, encode(p), new Uint8Array(size))), hex(encode(p.double())));
        assert.equal(
          hex(addon.curveOp(group, 3, encode(p), le32(k))),
          hex(encode(k === 0n ? Point.ZERO : p.multiply(k))),
        );
      }
    });

    test(`${name}: edge cases: P + P doubles, P + (−P) and r·P are infinity, (r − 1)·P = −P, infinity is neutral`, () => {
      const p = P(12345n);
      const zero = new Uint8Array(size);
      assert.equal(hex(addon.curveOp(group, 0, encode(p), encode(p))), hex(encode(p.double())));
      assert.equal(hex(addon.curveOp(group, 1, encode(p), encode(p))), hex(encode(p.double())));
      assert.equal(hex(addon.curveOp(group, 0, encode(p), encode(p.negate()))), hex(zero));
      assert.equal(hex(addon.curveOp(group, 1, encode(p), encode(p.negate()))), hex(zero));
      assert.equal(hex(addon.curveOp(group, 3, encode(p), le32(FR))), hex(zero));
      assert.equal(hex(addon.curveOp(group, 3, encode(p), le32(FR - 1n))), hex(encode(p.negate())));
      assert.equal(hex(addon.curveOp(group, 3, encode(p), le32(0n))), hex(zero));
      assert.equal(hex(addon.curveOp(group, 0, zero, encode(p))), hex(encode(p)));
      assert.equal(hex(addon.curveOp(group, 1, encode(p), zero)), hex(encode(p)));
      assert.equal(hex(addon.curveOp(group, 2, zero, zero)), hex(zero));
    });

    test(`${name}: MSM equals the sum of scalar multiplications (zeros, ones, r − 1, infinity, repeats), plain and with a fixed-base table, 1 and 2 threads`, () => {
      for (const n of [0, 1, 5, 64, 300]) {
        const points: (P1 | P2)[] = [];
        const scalars: bigint[] = [];
        for (let i = 0; i < n; i++) {
          let pt: P1 | P2 = P(rand(FR - 1n) + 1n);
          let k = rand(FR);
          if (i % 7 === 0) k = 0n;
          if (i % 7 === 1) k = 1n;
          if (i % 7 === 2) k = FR - 1n;
          if (i % 7 === 3) pt = Point.ZERO;
          if (i % 7 === 4 && i > 4) pt = points[i - 4]!;
          if (i % 7 === 5) k = 2n;
          points.push(pt);
          scalars.push(k);
        }
        let want: P1 | P2 = Point.ZERO;
        points.forEach((pt, i) => {
          if (scalars[i] !== 0n && !pt.is0()) want = (want as P1).add(pt.multiply(scalars[i]!) as P1);
        });
        const bases = cat(points.map(encode));
        const ks = cat(scalars.map(le32));
        for (const threads of [1, 2])
          for (const fixed of [false, true])
            assert.equal(
              hex(addon.msm(group, bases, ks, threads, fixed)),
              hex(encode(want)),
              `n = ${n}, ${threads} thread(s), ${fixed ? 'fixed-base table' : 'plain'}`,
            );
      }
    });
  }
});

describe('NTT', () => {
  let curve: Awaited<ReturnType<typeof buildBn128>>;
  before(async () => {
    curve = await buildBn128(true);
  });
  after(async () => {
    await curve.terminate();
  });

  test("roots of unity are ffjavascript's (the domain snarkjs's H points are built on)", () => {
    for (const k of [0, 1, 2, 10, 13, 20, 28]) {
      assert.equal(fromLe32(addon.rootOfUnity(k)), BigInt(curve.Fr.toObject(curve.Fr.w[k])), `2^${k}`);
    }
  });

  test('forward and inverse transforms agree with ffjavascript fft/ifft', async () => {
    for (const log of [0, 1, 3, 9, 13]) {
      const n = 1 << log;
      const values = Array.from({ length: n }, (_, i) => (i % 5 === 0 ? 0n : i % 5 === 1 ? FR - 1n : rand(FR)));
      const buf = cat(values.map(le32));
      const ffIn = new Uint8Array(n * 32);
      values.forEach((v, i) => curve.Fr.toRprLE(ffIn, i * 32, curve.Fr.e(v)));
      const fwd = await curve.Fr.fft(ffIn);
      const inv = await curve.Fr.ifft(ffIn);
      const read = (b: Uint8Array) =>
        Array.from({ length: n }, (_, i) => BigInt(curve.Fr.toObject(curve.Fr.fromRprLE(b, i * 32))));
      const ours = (b: Uint8Array) => Array.from({ length: n }, (_, i) => fromLe32(b, i * 32));
      assert.deepEqual(ours(addon.ntt(buf, false, 2)), read(fwd), `forward 2^${log}`);
      assert.deepEqual(ours(addon.ntt(buf, true, 1)), read(inv), `inverse 2^${log}`);
    }
  });
});
