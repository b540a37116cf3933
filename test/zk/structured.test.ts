// Structured circuits (src/zk/structured/): the production-size batch circuits' builder, run at
// small batch sizes with the production heights. The constraints the setup sees and the witness the
// prover gets must be the same circuit (every constraint holds on the witness, and the A·w and B·w
// the prover is handed are the constraint rows' values); a streamed dev key proves with the native
// prover from those evaluations, snarkjs and the noble verifier accept the proof, and the verifying
// key computed from the circuit's size alone (what genesis patches into Light's program) is the
// key's own; a small circuit's key carries a coefficient section from which snarkjs and the native
// coefficient path prove too. Inputs that break the statement give no witness, naming the broken check.
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as snarkjs from 'snarkjs';
import {
  addressAppendInputs,
  updateInputs,
  type IndexedSource,
  type NodeSource,
} from '../../src/forester/batch-inputs.js';
import { decodeProof } from '../../src/zk/native-addon.js';
import { SnarkjsBackend } from '../../src/prover/snarkjs-backend.js';
import { wtnsFile } from '../../src/prover/witness-calculator.js';
import { fromSnarkjs } from '../../src/zk/proof-format.js';
import { TreeStore } from '../../src/state/index.js';
import { FR } from '../../src/zk/field.js';
import { KeyStore, loadPoseidon, poseidon, shutdownZk, verifyGroth16 } from '../../src/zk/index.js';
import type { CircuitInputs } from '../../src/zk/inputs.js';
import { le32, loadNativeAddon } from '../../src/zk/native-addon.js';
import { batchAddressAppendCircuit, batchUpdateCircuit } from '../../src/zk/structured/batch-circuits.js';
import {
  CircuitUnsatisfied,
  emitConstraints,
  structuredSize,
  structuredWitness,
  type StructuredCircuit,
} from '../../src/zk/structured/cs.js';
import { shapeByName } from '../../src/zk/shapes.js';
import { structuredCircuit } from '../../src/zk/structured/registry.js';
import { domainLog, structuredSetup, structuredVerificationKey } from '../../src/zk/structured/setup.js';
import { tempDir } from '../helpers/gateway.js';
import { assertVerifies } from '../helpers/zk.js';

let store: TreeStore;
let dir: string;
let update: CircuitInputs;
let updatePih: bigint;
let address: CircuitInputs;
let update1: CircuitInputs;

const leaves = Array.from({ length: 20 }, (_, i) => BigInt(i + 1) * 1_000_003n);

before(async () => {
  await loadPoseidon();
  dir = tempDir('zkgate-structured-');
  store = await TreeStore.open(join(dir, 'store'));
  store.registerTree({ pubkey: 'state', kind: 'state', version: 2 });
  store.registerTree({ pubkey: 'addr', kind: 'address', version: 2 });
  const s = store.stateTree('state');
  s.enqueue(0, leaves);
  s.batchAppend(10);
  const nodes: NodeSource = { height: 32, node: (l, i) => s.node(l, i) };
  // Two appended leaves and one still in the output queue (its position holds zero).
  const u = updateInputs(
    nodes,
    [0, 7, 13].map((i) => ({ leaf: leaves[i]!, leafIndex: i, txHash: poseidon([BigInt(i), 9n]) })),
  );
  update = u.inputs;
  updatePih = u.publicInputHash;
  update1 = updateInputs(nodes, [{ leaf: leaves[3]!, leafIndex: 3, txHash: 5n }]).inputs;
  const a = store.addressTree('addr');
  const indexed: IndexedSource = {
    height: 40,
    node: (l, i) => a.node(l, i),
    lowElement: (v) => a.lowElement(v),
    element: (i) => a.element(i),
  };
  address = addressAppendInputs(indexed, a.info().nextIndex, [5n << 200n, 3n << 200n, (5n << 200n) + 1n]).inputs;
});

after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  await shutdownZk();
});

const scalars = (b: Buffer): bigint[] => {
  const out: bigint[] = [];
  for (let i = 0; i < b.length; i += 32)
    out.push(
      BigInt(
        '0x' +
          Buffer.from(b.subarray(i, i + 32))
            .reverse()
            .toString('hex'),
      ),
    );
  return out;
};

/** Every constraint holds on the witness, and the witness' A·w and B·w are the rows' values. */
function assertSameCircuit(circuit: StructuredCircuit<CircuitInputs>, inputs: CircuitInputs): void {
  const w = structuredWitness(circuit, inputs);
  const wit = scalars(w.witness);
  const [a, b] = [scalars(w.a), scalars(w.b)];
  const rows = [new Map<number, bigint>(), new Map<number, bigint>(), new Map<number, bigint>()];
  const size = emitConstraints(circuit, {
    term(m, j, wire, coef) {
      assert.ok(wire < wit.length, `constraint ${j} names wire ${wire}, beyond the witness`);
      rows[m]!.set(j, ((rows[m]!.get(j) ?? 0n) + coef * wit[wire]!) % FR);
    },
  });
  assert.deepEqual(size, structuredSize(circuit));
  assert.equal(wit.length, size.nVars);
  assert.equal(w.nConstraints, size.nConstraints);
  assert.equal(a.length, size.nConstraints + 2, 'A·w has the two rows snarkjs adds for the one and public wires');
  assert.deepEqual([a.at(-2), a.at(-1), wit[0], wit[1]], [1n, w.publicInput, 1n, w.publicInput]);
  for (let j = 0; j < size.nConstraints; j++) {
    const [ra, rb, rc] = rows.map((r) => r.get(j) ?? 0n) as [bigint, bigint, bigint];
    if ((ra * rb) % FR !== rc) assert.fail(`constraint ${j} does not hold on the witness`);
    if (ra !== a[j] || rb !== b[j]) assert.fail(`constraint ${j}: the prover's A·w or B·w differs from the row`);
  }
  // Wires 0 and 1 appear in constraints 0 and 1 only: what lets the verifying key skip the pass.
  const outside: string[] = [];
  emitConstraints(circuit, {
    term(m, j, wire) {
      if (wire < 2 && j > 1) outside.push(`wire ${wire} in constraint ${j}`);
    },
  });
  assert.deepEqual(outside, []);
}

test('batch update: the constraints and the witness are one circuit', () => {
  assertSameCircuit(batchUpdateCircuit(3, 32), update);
});

test('batch address append: the constraints and the witness are one circuit', () => {
  assertSameCircuit(batchAddressAppendCircuit(3, 40), address);
});

test('inputs that break the statement give no witness, naming the check', () => {
  const u = batchUpdateCircuit(3, 32);
  const broken = (patch: (i: CircuitInputs) => void, why: RegExp) => {
    const i = structuredClone(update);
    patch(i);
    assert.throws(
      () => structuredWitness(u, i),
      (e: Error) => e instanceof CircuitUnsatisfied && why.test(e.message),
    );
  };
  broken((i) => ((i.merkleProofs as string[][])[1]![5] = '12345'), /update 1: the old leaf is not in the tree/);
  broken((i) => ((i.oldLeaves as string[])[2] = '77'), /update 2: the position holds another leaf/);
  broken((i) => ((i.pathIndices as string[])[0] = String(2n ** 32n)), /update 0: index does not fit in 32 bits/);
  broken((i) => (i.newRoot = '5'), /do not end at newRoot/);
  broken((i) => (i.publicInputHash = String(updatePih + 1n)), /public input does not match/);
  const a = batchAddressAppendCircuit(3, 40);
  const i = structuredClone(address);
  (i.newElementValues as string[])[0] = (i.lowElementValues as string[])[0]!;
  assert.throws(() => structuredWitness(a, i), /address 0: not above its low element/);
});

test("a streamed dev key proves from the evaluations; the fast verifying key is the key's own", async (t) => {
  const addon = loadNativeAddon();
  if (!addon.ok) assert.fail(addon.reason);
  const circuit = batchUpdateCircuit(3, 32);
  const zkey = join(dir, 'update.zkey');
  const t0 = performance.now();
  // Without a coefficient section, as the production sizes' keys are.
  const info = await structuredSetup(circuit, zkey, {
    seed: 'structured-test',
    label: circuit.name,
    coefficients: false,
  });
  t.diagnostic(`setup of ${info.nConstraints} constraints: ${(performance.now() - t0).toFixed(0)} ms`);
  assert.equal(info.domainSize, 2 ** domainLog(info.nConstraints, 1));
  const vk = structuredVerificationKey(circuit, { seed: 'structured-test', label: circuit.name });
  const exported = await snarkjs.zKey.exportVerificationKey(zkey);
  for (const f of ['vk_alpha_1', 'vk_beta_2', 'vk_gamma_2', 'vk_delta_2', 'IC'] as const)
    assert.deepEqual(vk[f], exported[f], `${f} from the size alone equals the key's`);

  const key = addon.addon.loadKeyFile(zkey, 0, 2, false, '');
  const w = structuredWitness(circuit, update);
  const points = decodeProof(addon.addon.proveEvals(key, w.witness, w.a, w.b, le32(1234567n), le32(7654321n), 2));
  await assertVerifies(vk, [updatePih], points);
  assert.equal(verifyGroth16(vk, [updatePih + 1n], points), false, 'another public input fails');
  // Another circuit's evaluations (a changed witness with the same public input) give no valid proof.
  const forged = Buffer.from(w.a);
  forged.writeUInt8((forged[32 * 100]! + 1) & 0xff, 32 * 100);
  const bad = decodeProof(addon.addon.proveEvals(key, w.witness, forged, w.b, le32(1n), le32(2n), 2));
  assert.equal(verifyGroth16(vk, [updatePih], bad), false, 'evaluations off the witness do not prove');
  // The key has no coefficients: the ordinary path refuses it rather than prove garbage, and so
  // does the snarkjs backend (the backend of a machine without a C++ compiler), naming the reason.
  assert.throws(() => addon.addon.prove(key, w.witness, le32(1n), le32(2n), 1), /proves only with A·w and B·w given/);
  const snark = new SnarkjsBackend({ memoryBudgetBytes: 1 << 30, curveThreads: 1 });
  await assert.rejects(
    snark.prove({ shape: 'batch_update_32_500', zkeyPath: zkey, wasmPath: '', keyBytes: 0, inputs: update }),
    /batch_update_32_500 proves only with the native prover \(its key has no coefficient section for snarkjs\)/,
  );
});

test('a small structured key carries its coefficients: snarkjs and the native coefficient path prove it too', async () => {
  const addon = loadNativeAddon();
  if (!addon.ok) assert.fail(addon.reason);
  // One nullification (about 16 k constraints): snarkjs proves it in seconds.
  const circuit = batchUpdateCircuit(1, 32);
  const zkey = join(dir, 'update1.zkey');
  await structuredSetup(circuit, zkey, { seed: 'structured-test', label: circuit.name });
  const vk = structuredVerificationKey(circuit, { seed: 'structured-test', label: circuit.name });
  const w = structuredWitness(circuit, update1);
  // snarkjs computes A·w and B·w from the coefficient section and the .wtns file alone.
  const { proof, publicSignals } = await snarkjs.groth16.prove(zkey, { type: 'mem', data: wtnsFile(w.witness) });
  assert.deepEqual(publicSignals, [w.publicInput.toString()]);
  await assertVerifies(vk, [w.publicInput], fromSnarkjs(proof));
  // The native prover's coefficient path (what circom keys take) reads the same section.
  const key = addon.addon.loadKeyFile(zkey, 0, 2, false, '');
  const native = decodeProof(addon.addon.prove(key, w.witness, le32(11n), le32(13n), 2));
  await assertVerifies(vk, [w.publicInput], native);
  const evals = decodeProof(addon.addon.proveEvals(key, w.witness, w.a, w.b, le32(11n), le32(13n), 2));
  assert.deepEqual(evals, native, 'the same blinding gives the same proof from the evaluations');
});

test('production sizes: domains, and verifying keys ready for Light program before any proving key', () => {
  const sizes = Object.fromEntries(
    ['batch_update_32_500', 'batch_address_append_40_250'].map((name) => {
      const { nConstraints } = structuredSize(structuredCircuit(name)!);
      return [name, domainLog(nConstraints, 1)];
    }),
  );
  assert.deepEqual(sizes, { batch_update_32_500: 23, batch_address_append_40_250: 24 });
  const keys = new KeyStore(join(dir, 'keys-data'));
  const vks = new Map(keys.usableVerificationKeys().map((k) => [k.shape, k]));
  for (const name of ['batch_update_32_500', 'batch_address_append_40_250']) {
    const k = vks.get(name);
    assert.ok(k, `${name} has a verifying key with no proving key built`);
    assert.equal(k.vk.nPublic, 1);
    assert.equal(k.vk.IC.length, 2);
    assert.equal(keys.status(shapeByName(name)), 'missing');
  }
  // Cached beside the keys: the second store reads the file the first wrote.
  assert.ok(
    readdirSync(join(dir, 'keys-data', 'keys')).some(
      (f) => f.startsWith('batch_update_32_500.') && f.endsWith('.vk.json'),
    ),
  );
  assert.deepEqual(
    new KeyStore(join(dir, 'keys-data')).usableVerificationKeys().find((k) => k.shape === 'batch_update_32_500')?.vk,
    vks.get('batch_update_32_500')!.vk,
  );
});
