// The process-wide memory budget of the native addon: named keys and their tables count once for
// the whole process (every worker shares them); loading one evicts the least recently used others
// beyond the budget; a handle of an evicted key says so, and the backend loads the key again.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { NativeBackend } from '../../src/prover/native-backend.js';
import { sampleWitnesses } from '../../src/sample-witnesses.js';
import { loadNativeAddon, type NativeAddon } from '../../src/zk/native-addon.js';
import { loadPoseidon, shutdownZk } from '../../src/zk/index.js';
import { assertVerifies } from '../helpers/zk.js';
import { keys } from '../prover/helpers.js';

const status = loadNativeAddon();
const SHAPES = ['v1_inclusion_26_1', 'v1_non-inclusion_26_1'] as const;
let addon: NativeAddon;
const loaded: Record<string, Awaited<ReturnType<typeof keys.ensure>>> = {};

before(async () => {
  await loadPoseidon();
  if (!status.ok) return;
  addon = status.addon;
  for (const s of SHAPES) loaded[s] = await keys.ensure(s);
});

after(shutdownZk);

describe('process-wide key budget', { skip: !status.ok && 'native addon unavailable' }, () => {
  test('the least recently used key leaves; its handle says "key evicted"; nothing unnamed counts', () => {
    const [a, b] = SHAPES.map((s) => readFileSync(loaded[s]!.zkeyPath));
    // Room for either key alone (no tables), not both.
    addon.setMemoryBudget(Math.max(a!.length, b!.length) + 1024);
    const before = addon.memoryInfo().evictions;
    const ka = addon.loadKey(a!, 0, 1, false, 'budget-test:a');
    assert.equal(addon.memoryInfo().keys, 1);
    const kb = addon.loadKey(b!, 0, 1, false, 'budget-test:b');
    assert.deepEqual(
      { keys: addon.memoryInfo().keys, evictions: addon.memoryInfo().evictions - before },
      { keys: 1, evictions: 1 },
    );
    assert.throws(() => addon.keyInfo(ka), /^Error: key evicted: budget-test:a left the memory budget/);
    assert.equal(addon.findKey('budget-test:a'), null);
    assert.equal(addon.keyInfo(kb).nVars > 0, true);
    // Unnamed keys are their caller's: outside the registry and its budget.
    const unnamed = addon.loadKey(a!, 0, 1, false, '');
    assert.equal(addon.memoryInfo().keys, 1);
    assert.ok(addon.keyInfo(unnamed).nVars > 0);
    // Used recently, b stays when a comes back... until the budget has room for one only.
    addon.keyInfo(kb);
    addon.loadKey(a!, 0, 1, false, 'budget-test:a');
    assert.throws(() => addon.keyInfo(kb), /key evicted/);
    addon.setMemoryBudget(0);
  });

  test('the backend proves on after its key was evicted (loaded again), across two shapes', async () => {
    const sizes = SHAPES.map((s) => statSync(loaded[s]!.zkeyPath).size);
    // Room for one key (and what tables fit beside it), not for two: each switch evicts the other.
    const budget = Math.max(...sizes) + Math.floor(Math.min(...sizes) / 2);
    const backend = new NativeBackend({ memoryBudgetBytes: budget, curveThreads: 2 });
    const samples = await Promise.all(SHAPES.map((s) => sampleWitnesses(s, loaded[s]!.wasmPath, 1)));
    const evictions = addon.memoryInfo().evictions;
    for (let round = 0; round < 2; round++)
      for (const [i, s] of SHAPES.entries()) {
        const k = loaded[s]!;
        const job = {
          shape: s,
          zkeyPath: k.zkeyPath,
          wasmPath: k.wasmPath,
          keyBytes: statSync(k.zkeyPath).size + statSync(k.wasmPath).size,
          inputs: samples[i]![0]!.inputs,
        };
        const proof = await backend.prove(job);
        await assertVerifies(k.vk, proof.publicSignals, proof.points);
      }
    assert.ok(addon.memoryInfo().evictions - evictions >= 3, 'each switch evicted the other key');
    assert.ok(addon.memoryInfo().used <= budget);
  });
});
