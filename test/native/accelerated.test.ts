// The GPU path where there is no GPU: its field and point arithmetic compiled for the host against
// the CPU core and @noble/curves; the whole device pipeline run on host threads ("emulate")
// proving real keys byte for byte as the CPU does with the same r and s; the engine's batcher
// gathering the pool's concurrent proofs; and the backend choice (without a usable device cuda
// refuses naming the reason and auto falls back and logs it; with one, both take it).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { bn254 } from '@noble/curves/bn254.js';
import { ConfigError } from '../../src/config.js';
import { createLogger } from '../../src/obs/log.js';
import { decodeProof } from '../../src/zk/native-addon.js';
import { chooseBackend } from '../../src/prover/index.js';
import { ProverPool } from '../../src/prover/pool.js';
import { MetricsRegistry } from '../../src/obs/metrics.js';
import { witnessValues } from '../../src/prover/witness-calculator.js';
import { sampleWitnesses } from '../../src/sample-witnesses.js';
import { FP, FR, mod } from '../../src/zk/field.js';
import { cudaUnavailable, fromLe32, le32, loadNativeAddon, type NativeAddon } from '../../src/zk/native-addon.js';
import { shutdownZk } from '../../src/zk/index.js';
import { tempDir } from '../helpers/gateway.js';
import { assertVerifies } from '../helpers/zk.js';
import { keys } from '../prover/helpers.js';

let addon: NativeAddon;
before(() => {
  const status = loadNativeAddon();
  assert.ok(status.ok, status.ok ? '' : status.reason);
  addon = status.addon;
});
after(() => shutdownZk());

const rand = (m: bigint) => mod(BigInt('0x' + randomBytes(40).toString('hex')), m);
const cat = (...parts: Uint8Array[]) => Buffer.concat(parts);
const g1 = (p: InstanceType<typeof bn254.G1.Point>) => {
  const a = p.toAffine();
  return cat(le32(a.x), le32(a.y));
};
const g2 = (p: InstanceType<typeof bn254.G2.Point>) => {
  const a = p.toAffine();
  return cat(le32(a.x.c0), le32(a.x.c1), le32(a.y.c0), le32(a.y.c1));
};

describe('host-compiled device arithmetic', () => {
  test('Fq, Fr and Fq2 operations equal the CPU core and bigint arithmetic', () => {
    for (let i = 0; i < 200; i++) {
      const [a, b] = [rand(FP), rand(FP)];
      const edge = i === 0 ? FP - 1n : i === 1 ? 0n : a;
      for (const op of [0, 1, 2, 3, 5]) {
        const x = le32(edge),
          y = le32(b);
        assert.deepEqual(addon.hdFieldOp(0, op, x, y), addon.fieldOp(0, op, x, y), `Fq op ${op}`);
      }
      assert.equal(fromLe32(addon.hdFieldOp(0, 2, le32(a), le32(b))), mod(a * b, FP));
      const [c, d] = [rand(FR), rand(FR)];
      assert.equal(fromLe32(addon.hdFieldOp(1, 2, le32(c), le32(d))), mod(c * d, FR));
      assert.equal(fromLe32(addon.hdFieldOp(1, 1, le32(c), le32(d))), mod(c - d, FR));
      const u = cat(le32(a), le32(b)),
        v = cat(le32(rand(FP)), le32(rand(FP)));
      for (const op of [0, 1, 2, 3, 5]) assert.deepEqual(addon.hdFieldOp(2, op, u, v), addon.fieldOp(2, op, u, v));
    }
  });

  test('G1 and G2 additions, mixed additions (also of a negated point) and doublings equal @noble/curves', () => {
    for (let i = 0; i < 20; i++) {
      const [k, l] = [rand(FR - 1n) + 1n, rand(FR - 1n) + 1n];
      const [P, Q] = [bn254.G1.Point.BASE.multiply(k), bn254.G1.Point.BASE.multiply(l)];
      assert.deepEqual(Buffer.from(addon.hdCurveOp(1, 0, g1(P), g1(Q))), g1(P.add(Q)));
      assert.deepEqual(Buffer.from(addon.hdCurveOp(1, 1, g1(P), g1(Q))), g1(P.add(Q)));
      assert.deepEqual(Buffer.from(addon.hdCurveOp(1, 2, g1(P), g1(Q))), g1(P.double()));
      assert.deepEqual(Buffer.from(addon.hdCurveOp(1, 4, g1(P), g1(Q))), g1(P.subtract(Q)));
      assert.deepEqual(
        Buffer.from(addon.hdCurveOp(1, 1, g1(P), g1(P))),
        g1(P.double()),
        'mixed addition of a point to itself',
      );
      const [R, S] = [bn254.G2.Point.BASE.multiply(k), bn254.G2.Point.BASE.multiply(l)];
      assert.deepEqual(Buffer.from(addon.hdCurveOp(2, 0, g2(R), g2(S))), g2(R.add(S)));
      assert.deepEqual(Buffer.from(addon.hdCurveOp(2, 1, g2(R), g2(S))), g2(R.add(S)));
      assert.deepEqual(Buffer.from(addon.hdCurveOp(2, 2, g2(R), g2(S))), g2(R.double()));
      assert.deepEqual(Buffer.from(addon.hdCurveOp(2, 4, g2(R), g2(S))), g2(R.subtract(S)));
    }
    // P + (−P) is the point at infinity, (0, 0) as zkeys write it.
    const P = bn254.G1.Point.BASE.multiply(5n);
    assert.deepEqual(Buffer.from(addon.hdCurveOp(1, 4, g1(P), g1(P))), Buffer.alloc(64));
  });
});

describe('the device pipeline on host threads', () => {
  test('the accelerator self-check (synthetic key, MSMs of several sizes) passes on the emulation', () => {
    assert.equal(addon.accelSelfCheck('emulate', 0, 2), '');
  });

  test('proofs of real keys equal the CPU prover byte for byte with the same r and s, and verify', async () => {
    addon.engineConfigure('emulate', [], 0, 4, 1000, 2);
    for (const shape of ['v1_inclusion_26_1', 'v2_inclusion_32_1']) {
      const k = await keys.ensure(shape);
      const key = addon.loadKey(readFileSync(k.zkeyPath), 0, 2, false, '');
      const [sample] = await sampleWitnesses(shape, k.wasmPath, 1);
      const witness = witnessValues(sample!.wtns);
      const r = le32(rand(FR)),
        s = le32(rand(FR));
      const cpu = addon.prove(key, witness, r, s, 2);
      const emulated = addon.engineProve(key, witness, r, s);
      assert.deepEqual(emulated, cpu, `${shape}: the emulated device proof equals the CPU's`);
      await assertVerifies(k.vk, sample!.publicSignals, decodeProof(emulated));
      // A witness of the wrong length fails alone, naming the problem.
      assert.throws(() => addon.engineProve(key, witness.subarray(32), r, s), /witness has \d+ values/);
    }
  });
});

describe('batched proving through the pool', () => {
  let dir: string;
  before(() => (dir = tempDir()));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("the pool's concurrent proofs of one shape are gathered into shared passes; every proof verifies", async () => {
    const shape = 'v1_inclusion_26_1';
    const k = await keys.ensure(shape);
    const samples = await sampleWitnesses(shape, k.wasmPath, 4);
    const metrics = new MetricsRegistry();
    const pool = new ProverPool({
      metrics,
      backend: 'emulate',
      threads: 4,
      maxQueue: 16,
      memoryBudgetBytes: 1 << 30,
      curveThreads: 1,
      accelerator: { devices: [], deviceBudgetBytes: 0, batchMax: 4, batchWaitUs: 2_000_000 },
    });
    try {
      const job = (i: number) => ({
        shape,
        zkeyPath: k.zkeyPath,
        wasmPath: k.wasmPath,
        keyBytes: 1 << 20,
        inputs: samples[i]!.inputs,
      });
      // Load the key in every worker first, so the four proofs reach the batcher together.
      await Promise.all([0, 1, 2, 3].map((i) => pool.run(job(i), { deadline: Date.now() + 300_000 })));
      const before = addon.engineStats()!;
      const proofs = await Promise.all([0, 1, 2, 3].map((i) => pool.run(job(i), { deadline: Date.now() + 300_000 })));
      const stats = addon.engineStats()!;
      assert.equal(stats.backend, 'emulate');
      assert.equal(stats.proofs - before.proofs, 4);
      assert.ok(stats.batches - before.batches < 4, `4 proofs in ${stats.batches - before.batches} passes`);
      for (const [i, p] of proofs.entries()) await assertVerifies(k.vk, samples[i]!.publicSignals, p.points);
      // The engine's figures reach /metrics.
      const text = metrics.render();
      assert.match(text, new RegExp(`^zkgate_prover_device_batches ${stats.batches}$`, 'm'));
      assert.match(text, new RegExp(`^zkgate_prover_device_largest_batch ${stats.largestBatch}$`, 'm'));
    } finally {
      await pool.close();
    }
  });
});

describe('backend choice follows what the machine has', () => {
  // Where no device can prove (no driver, no GPU, or one that fails its self-check), cuda refuses
  // naming the reason and auto falls back, saying why; where one can, both take it. The suite
  // runs on either kind of machine and checks the branch it is on.
  test('cuda refuses naming the reason and auto falls back, or both take a device that passes its self-check', async () => {
    const lines: string[] = [];
    const log = createLogger('info', (line) => lines.push(line));
    const why = cudaUnavailable(addon, []);
    if (why !== undefined) {
      assert.ok(why.length > 0);
      assert.throws(
        () => chooseBackend('cuda', log),
        (e: unknown) =>
          e instanceof ConfigError && e.message.includes('prover backend "cuda" cannot run') && e.message.includes(why),
      );
      assert.equal(chooseBackend('auto', log), 'native');
      await new Promise((r) => setTimeout(r, 50)); // the logger writes in batches
      assert.ok(
        lines.some((l) => l.includes('cuda backend is not used') && l.includes(JSON.stringify(why).slice(1, -1))),
        lines.join('\n'),
      );
    } else {
      assert.equal(addon.cudaStatus().ok, true);
      assert.equal(chooseBackend('cuda', log), 'cuda');
      assert.equal(chooseBackend('auto', log), 'cuda');
    }
  });

  test('--prover-devices names a device that does not exist: refused with the reason', () => {
    const log = createLogger('silent');
    assert.throws(() => chooseBackend('cuda', log, [7]), /cuda" cannot run/);
  });
});
