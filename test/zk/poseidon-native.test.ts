// The native Poseidon (C++, circomlib's constants) gives circomlibjs' hashes for every width, one
// by one and in batches (eight lanes of AVX-512 IFMA where the CPU has it; ZKGATE_NATIVE_SIMD=0,
// run in a child process, the scalar path), and is the one in use wherever the addon is built.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
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

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

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
    // Thirteen groups: where the addon has the IFMA path, eight go in its lanes (the edge values
    // among them) and five one by one; poseidon() below hashes each alone.
    const groups = Array.from({ length: 13 }, (_, g) =>
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

test('forced to the scalar path (ZKGATE_NATIVE_SIMD=0), batches give the same hashes as the default path', async () => {
  await loadPoseidon();
  const addon = loadNativeAddon();
  if (!addon.ok) return assert.equal(poseidonImpl(), 'wasm');
  const groups = (n: number) =>
    Array.from({ length: 11 }, (_, g) =>
      Array.from({ length: n }, (_, i) => (FR - 1n - BigInt(g * 31 + i) * 977n) % FR),
    );
  const script = `
    import { loadPoseidon, poseidonMany, poseidonImpl } from './src/zk/poseidon.ts';
    import { loadNativeAddon } from './src/zk/native-addon.ts';
    await loadPoseidon();
    const a = loadNativeAddon();
    const FR = ${FR}n;
    const groups = ${groups.toString()};
    const out = [1, 2, 4, 7].map((n) => poseidonMany(groups(n)).map(String));
    console.log(JSON.stringify({ impl: poseidonImpl(), arithmetic: a.ok ? a.addon.arithmetic() : null, out }));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: ROOT, env: { ...process.env, ZKGATE_NATIVE_SIMD: '0' } },
  );
  const child = JSON.parse(stdout) as { impl: string; arithmetic: string; out: string[][] };
  assert.equal(child.impl, 'native');
  assert.equal(child.arithmetic, 'scalar');
  assert.deepEqual(
    child.out,
    [1, 2, 4, 7].map((n) => poseidonMany(groups(n)).map(String)),
  );
});
