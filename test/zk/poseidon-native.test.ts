// The native Poseidon (C++, circomlib's constants) gives circomlibjs' hashes for every width, and
// is the one in use wherever the addon is built.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildPoseidon } from 'circomlibjs';
import { FR } from '../../src/zk/field.js';
import { loadNativeAddon } from '../../src/zk/native-addon.js';
import {
  KNOWN_ANSWERS,
  knownAnswerInputs,
  loadPoseidon,
  poseidon,
  poseidonImpl,
  poseidonMany,
} from '../../src/zk/poseidon.js';

test('the native Poseidon equals circomlibjs on 1 to 16 inputs across the field, one by one and in batches', async () => {
  await loadPoseidon();
  const addon = loadNativeAddon();
  if (!addon.ok) {
    assert.equal(poseidonImpl(), 'wasm');
    return;
  }
  assert.equal(poseidonImpl(), 'native', 'the addon is built: its Poseidon is used');
  const reference = await buildPoseidon();
  let seed = 1n;
  const next = () => (seed = (seed * 6364136223846793005n + 1442695040888963407n) % FR);
  for (let n = 1; n <= 16; n++) {
    const groups = Array.from({ length: 5 }, (_, g) =>
      Array.from({ length: n }, (_, i) => (g === 0 && i === 0 ? 0n : g === 1 && i === 0 ? FR - 1n : next())),
    );
    const want = groups.map((g) => reference.F.toObject(reference(g)));
    assert.deepEqual(
      groups.map((g) => poseidon(g)),
      want,
      `${n} inputs`,
    );
    assert.deepEqual(poseidonMany(groups), want, `${n} inputs, batched`);
  }
  assert.throws(() => poseidon([FR]), /not a field element/);
  assert.throws(() => poseidonMany([[1n], [1n, 2n]]), /same arity/);
});

test("the load-time known answers are circomlibjs' hashes of their inputs", async () => {
  const reference = await buildPoseidon();
  assert.equal(KNOWN_ANSWERS.length, 16);
  for (let n = 1; n <= 16; n++)
    assert.equal(KNOWN_ANSWERS[n - 1], reference.F.toObject(reference(knownAnswerInputs(n))), `${n} inputs`);
});
