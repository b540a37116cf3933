// Tree → witness → proof → verify, for every circuit family (V1 and V2), with dev keys: checked
// by snarkjs, by the independent noble verifier over the decompressed Light-format proof, and by
// the snarkjs CLI. Inputs that do not satisfy the statement must not produce a proof.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import * as snarkjs from 'snarkjs';
import { TreeStore } from '../../src/state/index.js';
import {
  circuitInputs,
  decompressProof,
  inclusionWitness,
  KeyStore,
  nonInclusionWitness,
  proveWithSnarkjs,
  publicInputs,
  shapeByName,
  shutdownZk,
  verifyGroth16,
  type InclusionWitness,
  type NonInclusionWitness,
  type ProofResult,
  type ProvingKey,
} from '../../src/zk/index.js';
import { tempDir } from '../helpers/gateway.js';
import { KEY_CACHE, toSnarkjsProof } from '../helpers/zk.js';

const keys = new KeyStore(KEY_CACHE);
let store: TreeStore;
let dir: string;

before(async () => {
  dir = tempDir('zkgate-proofs-');
  store = await TreeStore.open(dir);
  for (const v of [1, 2] as const) {
    store.registerTree({ pubkey: `state${v}`, kind: 'state', version: v });
    store.registerTree({ pubkey: `addr${v}`, kind: 'address', version: v });
    store.stateTree(`state${v}`).append([101n, 202n, 303n, 404n, 505n]);
    store.addressTree(`addr${v}`).insert([1000n, 3000n, 2n ** 247n]);
  }
});

after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  await shutdownZk();
});

async function proveAndCheck(
  key: ProvingKey,
  accounts: InclusionWitness[],
  addresses: NonInclusionWitness[],
): Promise<ProofResult> {
  const inputs = circuitInputs(key.shape, accounts, addresses);
  const proof = await proveWithSnarkjs(key, inputs);
  const expected = publicInputs(key.shape, inputs);
  assert.deepEqual(proof.publicSignals, expected);
  assert.equal(await snarkjs.groth16.verify(key.vk, expected.map(String), toSnarkjs(proof)), true, 'snarkjs verifies');
  assert.equal(
    verifyGroth16(key.vk, expected, decompressProof(proof.compressed)),
    true,
    'noble verifies the Light-format proof',
  );
  assert.equal(
    verifyGroth16(
      key.vk,
      expected.map((x, i) => (i === 0 ? x + 1n : x)),
      proof.points,
    ),
    false,
    'other inputs do not verify',
  );
  return proof;
}

const toSnarkjs = (p: ProofResult) => toSnarkjsProof(p.points);

const account = (v: 1 | 2, index: number) => inclusionWitness(store.stateTree(`state${v}`).proofByIndex(index));
const address = (v: 1 | 2, value: bigint) =>
  nonInclusionWitness(store.addressTree(`addr${v}`).nonInclusionProof(value));

describe('every circuit family proves and verifies', () => {
  test('v1_inclusion_26_1 (and the snarkjs CLI verifies it)', async () => {
    const key = await keys.ensure('v1_inclusion_26_1');
    assert.equal(key.entry.setup, 'dev');
    const proof = await proveAndCheck(key, [account(1, 3)], []);
    const files = tempDir('zkgate-cli-verify-');
    try {
      writeFileSync(join(files, 'vk.json'), JSON.stringify(key.vk));
      writeFileSync(join(files, 'public.json'), JSON.stringify(proof.publicSignals.map(String)));
      writeFileSync(join(files, 'proof.json'), JSON.stringify(toSnarkjs(proof)));
      const cli = join(dirname(createRequire(import.meta.url).resolve('snarkjs')), 'cli.cjs');
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [cli, 'groth16', 'verify', 'vk.json', 'public.json', 'proof.json'],
        { cwd: files },
      );
      assert.match(stdout, /OK!/);
    } finally {
      rmSync(files, { recursive: true, force: true });
    }
  });

  test('v1_non-inclusion_26_1', async () => {
    await proveAndCheck(await keys.ensure('v1_non-inclusion_26_1'), [], [address(1, 2000n)]);
  });

  test('v1_combined_26_26_1_1', async () => {
    await proveAndCheck(await keys.ensure('v1_combined_26_26_1_1'), [account(1, 0)], [address(1, 5n)]);
  });

  test('v2_inclusion_32_1', async () => {
    await proveAndCheck(await keys.ensure('v2_inclusion_32_1'), [account(2, 4)], []);
  });

  test('v2_non-inclusion_40_1', async () => {
    await proveAndCheck(await keys.ensure('v2_non-inclusion_40_1'), [], [address(2, 2n ** 247n + 1n)]);
  });

  test('v2_combined_32_40_1_1', async () => {
    await proveAndCheck(await keys.ensure('v2_combined_32_40_1_1'), [account(2, 1)], [address(2, 1500n)]);
  });
});

describe('statements that are false produce no proof', () => {
  const refuse = async (shape: string, accounts: InclusionWitness[], addresses: NonInclusionWitness[]) => {
    const key = await keys.ensure(shape);
    await assert.rejects(
      proveWithSnarkjs(key, circuitInputs(key.shape, accounts, addresses)),
      /do not satisfy the circuit/,
    );
  };

  test('inclusion: wrong root, wrong leaf, wrong path bit, index beyond the height', async () => {
    const good = account(1, 3);
    await refuse('v1_inclusion_26_1', [{ ...good, root: good.root + 1n }], []);
    await refuse('v1_inclusion_26_1', [{ ...good, leaf: 999n }], []);
    await refuse('v1_inclusion_26_1', [{ ...good, pathIndex: good.pathIndex ^ 1 }], []);
    await refuse('v1_inclusion_26_1', [{ ...good, pathIndex: good.pathIndex + 2 ** 26 }], []);
  });

  test('non-inclusion: address equal to the low or next value, above the next value, or >= 2^248', async () => {
    const good = address(1, 2000n);
    await refuse('v1_non-inclusion_26_1', [], [{ ...good, value: good.lowValue }]);
    await refuse('v1_non-inclusion_26_1', [], [{ ...good, value: good.nextValue }]);
    await refuse('v1_non-inclusion_26_1', [], [{ ...good, value: good.nextValue + 1n }]);
    await refuse('v1_non-inclusion_26_1', [], [{ ...good, root: good.root + 1n }]);
    const top = address(2, 2n ** 247n + 1n);
    await refuse('v2_non-inclusion_40_1', [], [{ ...top, value: 2n ** 248n }]);
    await refuse('v2_non-inclusion_40_1', [], [{ ...top, value: 2n ** 248n + 5n }]);
  });

  test('witness counts and path lengths must match the shape', () => {
    const shape = shapeByName('v1_inclusion_26_2');
    assert.throws(() => circuitInputs(shape, [account(1, 0)], []), /proves 2 accounts and 0 addresses, got 1 and 0/);
    assert.throws(
      () => circuitInputs(shapeByName('v2_inclusion_32_1'), [account(1, 0)], []),
      /needs state paths of 32 elements, got 26/,
    );
  });
});
