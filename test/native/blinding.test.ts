// Served proofs are rerandomized (native/src/groth16.hpp's Blinding): the unblinded proof
// (A₀, B₀, C₀), i.e. snarkjs' blinding with r = s = 0, becomes (A₀/u, u·(B₀ + v·δ₂), C₀ + v·A₀).
// Checked here against @noble/curves (not the addon's own curve code), with the key's δ₂ from
// its verifying key; every proof verifies (snarkjs and the independent verifier), and the
// arguments a caller controls are refused with a message.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { bn254 } from '@noble/curves/bn254.js';
import { decodeProof } from '../../src/zk/native-addon.js';
import { witnessValues } from '../../src/prover/witness-calculator.js';
import type { SampleWitness } from '../../src/sample-witnesses.js';
import { loadNativeAddon, le32, type NativeAddon } from '../../src/zk/native-addon.js';
import { loadPoseidon, shutdownZk } from '../../src/zk/index.js';
import type { ProofPoints } from '../../src/zk/proof-format.js';
import { vkG2 } from '../../src/zk/verify.js';
import { assertVerifies } from '../helpers/zk.js';
import { keyCopy, type KeyCopy } from './key-copy.js';

const R = bn254.fields.Fr.ORDER;
const status = loadNativeAddon();
let addon: NativeAddon;
let copy: KeyCopy;
let samples: SampleWitness[];

before(async () => {
  await loadPoseidon();
  if (!status.ok) return;
  addon = status.addon;
  copy = await keyCopy('v1_inclusion_26_1', 2);
  samples = copy.samples;
});
after(async () => {
  if (copy) rmSync(copy.dir, { recursive: true, force: true });
  await shutdownZk();
});

const g1 = (p: ProofPoints['a']) => bn254.G1.Point.fromAffine(p);
const g2 = (p: ProofPoints['b']) => bn254.G2.Point.fromAffine(p);
const inv = (u: bigint) => bn254.fields.Fr.inv(u);

describe(
  'rerandomized blinding',
  { skip: !status.ok && `native addon unavailable: ${!status.ok ? status.reason : ''}` },
  () => {
    test('equals the unblinded proof moved by u and v (checked with @noble/curves); verifies; fresh u, v give another proof', async () => {
      const handle = addon.loadKey(readFileSync(copy.zkeyPath), 1 << 30, 2, false, '');
      const delta2 = g2(vkG2(copy.key.vk.vk_delta_2));
      for (const s of samples) {
        const w = witnessValues(s.wtns);
        const p0 = decodeProof(addon.prove(handle, w, le32(0n), le32(0n), 2, 'snarkjs'));
        await assertVerifies(copy.key.vk, s.publicSignals, p0);
        for (const [u, v] of [
          [0x1234567890abcdefn, 0xfedcba0987654321n],
          [R - 1n, 1n],
          [7n, 0n],
        ] as const) {
          const p = decodeProof(addon.prove(handle, w, le32(u), le32(v), 1, 'rerandomized'));
          const a0 = g1(p0.a);
          assert.ok(g1(p.a).equals(a0.multiply(inv(u))), 'A = A₀ / u');
          const b = g2(p0.b)
            .add(v === 0n ? bn254.G2.Point.ZERO : delta2.multiply(v))
            .multiply(u);
          assert.ok(g2(p.b).equals(b), 'B = u·(B₀ + v·δ₂)');
          assert.ok(g1(p.c).equals(v === 0n ? g1(p0.c) : g1(p0.c).add(a0.multiply(v))), 'C = C₀ + v·A₀');
          await assertVerifies(copy.key.vk, s.publicSignals, p);
        }
        const x = decodeProof(addon.prove(handle, w, le32(11n), le32(12n), 2, 'rerandomized'));
        const y = decodeProof(addon.prove(handle, w, le32(13n), le32(12n), 2, 'rerandomized'));
        assert.notDeepEqual(x, y);
      }
    });

    test('u = 0, an unknown blinding and scalars out of range are refused by name', () => {
      const handle = addon.loadKey(readFileSync(copy.zkeyPath), 0, 1, false, '');
      const w = witnessValues(samples[0]!.wtns);
      assert.throws(
        () => addon.prove(handle, w, le32(0n), le32(5n), 1, 'rerandomized'),
        /rerandomized blinding needs u ≠ 0/,
      );
      assert.throws(
        () => addon.prove(handle, w, le32(1n), le32(5n), 1, 'random' as never),
        /blinding must be "snarkjs" or "rerandomized"/,
      );
      assert.throws(() => addon.prove(handle, w, le32(R), le32(5n), 1, 'rerandomized'), /r and s must be below r/);
    });
  },
);
