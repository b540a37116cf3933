// The process-wide memory budget of the native addon: named keys and their tables count once for
// the whole process (every worker shares them); loading one evicts the least recently used others
// beyond the budget; a handle of an evicted key says so, and the backend loads the key again.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { NativeBackend } from '../../src/prover/native-backend.js';
import { buildWitnessCalculator, calculateWitness, witnessValues } from '../../src/prover/witness-calculator.js';
import { sampleWitnesses } from '../../src/sample-witnesses.js';
import { decodeProof, fromLe32, le32, loadNativeAddon, type NativeAddon } from '../../src/zk/native-addon.js';
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

  test('claimTables / fillTables: tables for a key loaded without them, only where the budget has room; never evicting', async () => {
    const [a, b] = SHAPES.map((s) => readFileSync(loaded[s]!.zkeyPath));
    const ka = addon.loadKey(a!, 0, 1, false, 'attach-test:a');
    const kb = addon.loadKey(b!, 0, 1, false, 'attach-test:b');
    const { used: keyBytes, keys: keyCount } = addon.memoryInfo();
    const whole = [ka, kb].map((k) => addon.plannedTableBytes(k, 2 ** 40));
    assert.ok(whole[0]! > 0 && whole[1]! > 0);
    assert.equal(addon.plannedTableBytes(ka, 1024), 0, 'no table fits 1 KiB');
    assert.equal(addon.claimTables(ka, 1024), 'none');
    assert.equal(addon.fillTables(ka, 1024, 1, ''), false, 'nothing claimed, nothing filled');
    // Room for a's tables beside both keys, not for b's as well.
    addon.setMemoryBudget(keyBytes + whole[0]! + whole[1]! - 1);
    const evictions = addon.memoryInfo().evictions;
    assert.equal(addon.claimTables(ka, 2 ** 40), 'claimed');
    assert.equal(addon.memoryInfo().used, keyBytes + whole[0]!, 'counted at the claim');
    assert.equal(addon.keyInfo(ka).tablesReady, false);
    assert.equal(addon.claimTables(ka, 2 ** 40), 'held');
    assert.equal(addon.claimTables(kb, 2 ** 40), 'no-room');
    const smaller = whole[0]! - 1;
    assert.notEqual(addon.plannedTableBytes(ka, smaller), whole[0]);
    assert.throws(() => addon.fillTables(ka, smaller, 2, ''), /the budget differs from the claim's/);
    assert.equal(addon.fillTables(ka, 2 ** 40, 2, ''), true);
    assert.equal(addon.fillTables(ka, 2 ** 40, 2, ''), true, 'once: a second fill finds them ready');
    assert.deepEqual(
      { tablesReady: addon.keyInfo(ka).tablesReady, tableBytes: addon.keyInfo(ka).tableBytes },
      { tablesReady: true, tableBytes: whole[0] },
    );
    assert.equal(addon.fillTables(kb, 2 ** 40, 2, ''), false, 'b has no claim');
    assert.deepEqual(
      {
        used: addon.memoryInfo().used,
        evictions: addon.memoryInfo().evictions - evictions,
        bReady: addon.keyInfo(kb).tablesReady,
      },
      { used: keyBytes + whole[0]!, evictions: 0, bReady: false },
    );
    // mustFit: a key that does not fit beside those in is not loaded, and evicts nothing.
    addon.setMemoryBudget(addon.memoryInfo().used + 1024);
    const c = addon.loadKeyFile(loaded[SHAPES[1]]!.zkeyPath, 0, 1, false, 'attach-test:c', '', true);
    assert.equal(c, null);
    assert.deepEqual(
      { keys: addon.memoryInfo().keys, evictions: addon.memoryInfo().evictions - evictions },
      { keys: keyCount, evictions: 0 },
    );
    // An unnamed key is outside the registry: nothing to count its tables against.
    assert.throws(() => addon.claimTables(addon.loadKey(a!, 0, 1, false, ''), 2 ** 40), /not a named key/);
    // The filled tables prove: a proof with them (rerandomized, as served) verifies.
    const s = SHAPES[0];
    const [sample] = await sampleWitnesses(s, loaded[s]!.wasmPath, 1);
    const wc = await buildWitnessCalculator(readFileSync(loaded[s]!.wasmPath));
    const witness = witnessValues(await calculateWitness(wc, s, sample!.inputs));
    const out = addon.prove(ka, witness, le32(5n), le32(7n), 2, 'rerandomized');
    const publicSignals = Array.from({ length: addon.keyInfo(ka).nPublic }, (_, i) => fromLe32(witness, (i + 1) * 32));
    await assertVerifies(loaded[s]!.vk, publicSignals, decodeProof(out));
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
