// The start-up warm-up's inputs (src/prover/warm-inputs.ts) satisfy the circuits with no tree
// behind them: for one shape of each family and version, the witness calculator accepts them, the
// witness's public wires are the shape's public inputs, and a native proof of it verifies (so every
// constraint holds, not only the ones the calculator asserts).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { decodeProof } from '../../src/zk/native-addon.js';
import { warmUpInputs } from '../../src/prover/warm-inputs.js';
import {
  buildWitnessCalculator,
  calculateWitness,
  warmWitness,
  witnessValues,
} from '../../src/prover/witness-calculator.js';
import { publicInputs } from '../../src/zk/inputs.js';
import { fromLe32, le32, loadNativeAddon } from '../../src/zk/native-addon.js';
import { loadPoseidon, shutdownZk } from '../../src/zk/index.js';
import { shapeByName } from '../../src/zk/shapes.js';
import { assertVerifies } from '../helpers/zk.js';
import { keys, TEST_SHAPES } from './helpers.js';

const native = loadNativeAddon();

before(async () => {
  await loadPoseidon();
});
after(async () => {
  await shutdownZk();
});

describe('warm-up inputs', () => {
  for (const name of TEST_SHAPES) {
    test(`${name}: the witness satisfies the circuit and its proof verifies`, async () => {
      const shape = shapeByName(name);
      const inputs = warmUpInputs(shape);
      assert.ok(inputs, 'a validity shape has warm-up inputs');
      const key = await keys.ensure(name);
      const wc = await buildWitnessCalculator(await readFile(key.wasmPath));
      const w = witnessValues(await calculateWitness(wc, name, inputs));
      const expected = publicInputs(shape, inputs);
      const wires = expected.map((_, i) => fromLe32(w, (i + 1) * 32));
      assert.deepEqual(wires, expected, 'the public wires are the public inputs');
      if (!native.ok) return;
      const handle = native.addon.loadKey(await readFile(key.zkeyPath), 0, 2, false, '');
      const points = decodeProof(native.addon.prove(handle, w, le32(3n), le32(5n), 2, 'snarkjs'));
      await assertVerifies(key.vk, expected, points);
    });
  }

  test('batch circuits have none; a job without inputs calculates nothing; a failure is reported, not thrown', async () => {
    assert.equal(warmUpInputs(shapeByName('batch_update_32_10')), undefined);
    const key = await keys.ensure('v1_inclusion_26_1');
    const wc = await buildWitnessCalculator(await readFile(key.wasmPath));
    assert.deepEqual(await warmWitness(wc, { shape: 'v1_inclusion_26_1', inputs: {} }), {});
    const good = await warmWitness(wc, {
      shape: 'v1_inclusion_26_1',
      inputs: warmUpInputs(shapeByName('v1_inclusion_26_1'))!,
    });
    assert.ok('witnessMs' in good && good.witnessMs > 0, JSON.stringify(good));
    const inputs = warmUpInputs(shapeByName('v1_inclusion_26_1'))!;
    const bad = await warmWitness(wc, { shape: 'v1_inclusion_26_1', inputs: { ...inputs, roots: ['12345'] } });
    assert.ok('witnessError' in bad, JSON.stringify(bad));
    assert.match(bad.witnessError, /^v1_inclusion_26_1: the inputs do not satisfy the circuit/);
  });
});
