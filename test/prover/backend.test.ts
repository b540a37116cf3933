// The snarkjs backend on its own: proofs verify, and the key cache stays within its memory budget,
// evicting the least recently used shape.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { SnarkjsBackend } from '../../src/prover/snarkjs-backend.js';
import type { ProveJob } from '../../src/prover/backend.js';
import { TreeStore } from '../../src/state/index.js';
import {
  circuitInputs,
  inclusionWitness,
  nonInclusionWitness,
  publicInputs,
  shapeByName,
  shutdownZk,
} from '../../src/zk/index.js';
import { tempDir } from '../helpers/gateway.js';
import { assertVerifies } from '../helpers/zk.js';
import { keys, warmKeys } from './helpers.js';

let store: TreeStore;
const jobs: Record<string, ProveJob> = {};

before(async () => {
  await warmKeys();
  store = await TreeStore.open(tempDir());
  store.registerTree({ pubkey: 's', kind: 'state', version: 1 });
  store.registerTree({ pubkey: 'a', kind: 'address', version: 1 });
  store.stateTree('s').append([11n, 22n, 33n]);
  for (const name of ['v1_inclusion_26_1', 'v1_non-inclusion_26_1']) {
    const shape = shapeByName(name);
    const key = await keys.ensure(name);
    const inputs = circuitInputs(
      shape,
      shape.nInclusion ? [inclusionWitness(store.stateTree('s').proofByIndex(1))] : [],
      shape.nNonInclusion ? [nonInclusionWitness(store.addressTree('a').nonInclusionProof(12345n))] : [],
    );
    jobs[name] = {
      shape: name,
      zkeyPath: key.zkeyPath,
      wasmPath: key.wasmPath,
      keyBytes: statSync(key.zkeyPath).size + statSync(key.wasmPath).size,
      inputs,
    };
  }
});

after(async () => {
  await store.close();
  await shutdownZk();
});

test('proofs verify; a budget of one key keeps one shape loaded and evicts the least recently used', async () => {
  const inc = jobs['v1_inclusion_26_1']!;
  const non = jobs['v1_non-inclusion_26_1']!;
  const backend = new SnarkjsBackend({ memoryBudgetBytes: Math.max(inc.keyBytes, non.keyBytes) * 1.5 });
  const first = await backend.prove(inc);
  assert.equal(first.timings.keyLoaded, false);
  await assertVerifies(
    await keys.verificationKey(inc.shape),
    publicInputs(shapeByName(inc.shape), inc.inputs),
    first.points,
  );
  assert.equal((await backend.prove(inc)).timings.keyLoaded, true, 'second proof finds the key loaded');
  const other = await backend.prove(non);
  assert.equal(other.timings.keyLoaded, false);
  await assertVerifies(
    await keys.verificationKey(non.shape),
    publicInputs(shapeByName(non.shape), non.inputs),
    other.points,
  );
  assert.ok(backend.residentBytes() <= Math.max(inc.keyBytes, non.keyBytes) * 1.5, 'within the budget');
  assert.equal((await backend.prove(inc)).timings.keyLoaded, false, 'the older shape was evicted');
});

test('inputs that do not satisfy the circuit fail before proving', async () => {
  const backend = new SnarkjsBackend({ memoryBudgetBytes: 1 << 30 });
  const inc = jobs['v1_inclusion_26_1']!;
  const bad = { ...inc, inputs: { ...inc.inputs, roots: ['12345'] } };
  await assert.rejects(backend.prove(bad), (e: Error & { unsatisfied?: boolean }) => {
    assert.equal(e.unsatisfied, true);
    assert.match(e.message, /^v1_inclusion_26_1: the inputs do not satisfy the circuit/);
    return true;
  });
});
