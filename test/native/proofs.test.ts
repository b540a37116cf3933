// Proofs from the native backend for every V1 shape family and the V2 ones, verified by snarkjs
// and the independent verifier; the differential test proves the same random witnesses with both
// backends (Groth16 randomness differs, so the proofs differ, but both must verify and agree on the
// public signals); and the C++ core under AddressSanitizer + UBSan makes a proof that verifies.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { after, before, describe, test } from 'node:test';
import type { ProveJob } from '../../src/prover/backend.js';
import { chooseBackend } from '../../src/prover/index.js';
import { cudaUnavailable, loadNativeAddon, nativeSelfCheck } from '../../src/zk/native-addon.js';
import { NativeBackend } from '../../src/prover/native-backend.js';
import { createLogger } from '../../src/obs/log.js';
import { SnarkjsBackend } from '../../src/prover/snarkjs-backend.js';
import { buildWitnessCalculator, calculateWitness, witnessValues } from '../../src/prover/witness-calculator.js';
import { TreeStore } from '../../src/state/index.js';
import { circuitInputs, inclusionWitness, nonInclusionWitness, shapeByName, shutdownZk } from '../../src/zk/index.js';
import { tempDir } from '../helpers/gateway.js';
import { assertVerifies } from '../helpers/zk.js';
import { keys, TEST_SHAPES, warmKeys } from '../prover/helpers.js';

let store: TreeStore;
let dir: string;
const budget = 1 << 30;

/** A job of the shape over random leaves and addresses (so each call is a different witness). */
function job(name: string, salt: number): ProveJob & { key: Awaited<ReturnType<typeof keys.ensure>> } {
  const shape = shapeByName(name);
  const v = shape.version;
  const state = store.stateTree(`s${v}`);
  const { firstIndex: first } = state.append(
    Array.from({ length: 4 }, (_, i) => BigInt(salt) * 1_000_003n + BigInt(i) * 7919n + 17n),
  );
  const accounts = Array.from({ length: shape.nInclusion }, (_, i) => inclusionWitness(state.proofByIndex(first + i)));
  const addresses = Array.from({ length: shape.nNonInclusion }, (_, i) =>
    nonInclusionWitness(
      store.addressTree(`a${v}`).nonInclusionProof(BigInt(salt) * 1_000_033n + BigInt(i) * 104729n + 5n),
    ),
  );
  return { shape: name, ...paths(name), inputs: circuitInputs(shape, accounts, addresses), key: loadedKeys[name]! };
}

const loadedKeys: Record<string, Awaited<ReturnType<typeof keys.ensure>>> = {};
const paths = (name: string) => {
  const k = loadedKeys[name]!;
  return {
    zkeyPath: k.zkeyPath,
    wasmPath: k.wasmPath,
    keyBytes: statSync(k.zkeyPath).size + statSync(k.wasmPath).size,
  };
};

before(async () => {
  await warmKeys();
  for (const s of TEST_SHAPES) loadedKeys[s] = await keys.ensure(s);
  dir = tempDir();
  store = await TreeStore.open(join(dir, 'trees'));
  for (const v of [1, 2] as const) {
    store.registerTree({ pubkey: `s${v}`, kind: 'state', version: v });
    store.registerTree({ pubkey: `a${v}`, kind: 'address', version: v });
  }
});

after(async () => {
  await store.close();
  await shutdownZk();
  rmSync(dir, { recursive: true, force: true });
});

describe('native backend', () => {
  test('proofs of every test shape verify, before and after the fixed-base tables are built; the key stays', async () => {
    const backend = new NativeBackend({ memoryBudgetBytes: budget, curveThreads: 2 });
    for (const name of TEST_SHAPES) {
      const j = job(name, 1);
      const first = await backend.prove(j);
      assert.equal(first.timings.keyLoaded, false);
      await assertVerifies(j.key.vk, first.publicSignals, first.points);
      assert.equal(await backend.waitForTables(j), true);
      const again = await backend.prove(job(name, 2));
      assert.equal(again.timings.keyLoaded, true);
      await assertVerifies(j.key.vk, again.publicSignals, again.points);
    }
    assert.ok(backend.residentBytes() > 0);
  });

  test('differential: both backends on the same random witnesses; both verify, same public signals', async () => {
    const native = new NativeBackend({ memoryBudgetBytes: budget, curveThreads: 2 });
    const snark = new SnarkjsBackend({ memoryBudgetBytes: budget, curveThreads: 2 });
    for (const name of ['v1_inclusion_26_1', 'v1_combined_26_26_1_1', 'v2_inclusion_32_1']) {
      const j = job(name, 100);
      const [a, b] = [await native.prove(j), await snark.prove(j)];
      assert.deepEqual(a.publicSignals, b.publicSignals);
      assert.notDeepEqual(a.points, b.points, 'fresh blinding each time');
      await assertVerifies(j.key.vk, a.publicSignals, a.points);
      await assertVerifies(j.key.vk, b.publicSignals, b.points);
    }
  });

  test('a proof does not verify against other public inputs', async () => {
    const backend = new NativeBackend({ memoryBudgetBytes: budget, curveThreads: 1 });
    const j = job('v1_inclusion_26_1', 7);
    const p = await backend.prove(j);
    const { verifyGroth16 } = await import('../../src/zk/verify.js');
    assert.equal(verifyGroth16(j.key.vk, [p.publicSignals[0]!, p.publicSignals[1]! + 1n], p.points), false);
  });
});

test('backend choice: auto takes native (built, self-check passes) unless a GPU passes its own; explicit choices are kept', () => {
  const log = createLogger('error', () => {});
  const status = loadNativeAddon();
  assert.ok(status.ok);
  assert.equal(nativeSelfCheck(status.addon), undefined);
  assert.equal(chooseBackend('auto', log), cudaUnavailable(status.addon, []) === undefined ? 'cuda' : 'native');
  assert.equal(chooseBackend('native', log), 'native');
  assert.equal(chooseBackend('snarkjs', log), 'snarkjs');
});

test('the C++ core under AddressSanitizer + UBSan: self-test passes; proofs with and without tables (and a key dropped mid-build) verify', async () => {
  const j = job('v1_inclusion_26_1', 9);
  const wc = await buildWitnessCalculator(await readFile(j.wasmPath));
  const witness = witnessValues(await calculateWitness(wc, j.shape, j.inputs));
  const witnessFile = join(dir, 'witness.bin');
  writeFileSync(witnessFile, witness);
  const script = new URL('../../native/build.mjs', import.meta.url).pathname;
  const { stdout } = await promisify(execFile)(process.execPath, [script, '--sanitize', j.zkeyPath, witnessFile], {
    maxBuffer: 1 << 24,
    env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1' },
  });
  assert.match(stdout, /selftest ok/);
  // Three proofs: one made while the key's tables were still being built, one with them, and one
  // rerandomized (the gateway's blinding) with them.
  const proofs = stdout
    .split('\n')
    .filter((l) => l.startsWith('proof '))
    .map((l) => {
      const f = l
        .trim()
        .split(' ')
        .slice(1)
        .map((w) => BigInt('0x' + w));
      return {
        a: { x: f[0]!, y: f[1]! },
        b: { x: { c0: f[2]!, c1: f[3]! }, y: { c0: f[4]!, c1: f[5]! } },
        c: { x: f[6]!, y: f[7]! },
      };
    });
  assert.equal(proofs.length, 3);
  const publicSignals = [1, 2].map((i) => {
    let v = 0n;
    for (let b = 31; b >= 0; b--) v = (v << 8n) | BigInt(witness[i * 32 + b]!);
    return v;
  });
  for (const points of proofs) await assertVerifies(j.key.vk, publicSignals, points);
});

test('without a C++ compiler or nvcc the install still succeeds and records why (zkgate then runs snarkjs)', async () => {
  const out = join(dir, 'no-compiler-build');
  const script = new URL('../../native/build.mjs', import.meta.url).pathname;
  const { stderr } = await promisify(execFile)(process.execPath, [script], {
    env: {
      ...process.env,
      CXX: 'zkgate-no-such-compiler',
      NVCC: 'zkgate-no-such-nvcc',
      ZKGATE_NATIVE_BUILD_DIR: out,
    },
  });
  assert.match(stderr, /native prover addon not built: no C\+\+ compiler \(zkgate-no-such-compiler\)/);
  assert.match(stderr, /zkgate-prove not built: no C\+\+ compiler/);
  assert.match(stderr, /CUDA library not built: nvcc was not found/);
  assert.match(stderr, /the snarkjs backend will be used/);
  const status = JSON.parse(readFileSync(join(out, 'status.json'), 'utf8'));
  assert.equal(status.ok, false);
  assert.match(status.reason, /^no C\+\+ compiler \(zkgate-no-such-compiler\)/);
  assert.equal(status.prove.ok, false);
  assert.equal(status.cuda.ok, false);
  assert.match(status.cuda.reason, /nvcc was not found/);
  for (const f of ['zkgate_native.node', 'zkgate-prove', 'libzkgate_cuda.so'])
    assert.equal(existsSync(join(out, f)), false);
});

test("the process's threads share a loaded key (one copy of its points and tables)", async () => {
  const backend = new NativeBackend({ memoryBudgetBytes: budget, curveThreads: 2 });
  const j = job('v1_inclusion_26_1', 11);
  await backend.prove(j);
  const st = statSync(j.zkeyPath);
  const cacheKey = `${j.zkeyPath}\0${st.size}\0${st.mtimeMs}`;
  const addonPath = new URL('../../native/build/zkgate_native.node', import.meta.url).pathname;
  // Another thread (as a second prover worker would be) finds the same key without loading it.
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const addon = require(workerData.addonPath);
     const key = addon.findKey(workerData.cacheKey);
     parentPort.postMessage(key === null ? null : addon.keyInfo(key));`,
    { eval: true, workerData: { addonPath, cacheKey } },
  );
  const info = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.deepEqual(
    { nVars: (info as { nVars: number }).nVars, nPublic: (info as { nPublic: number }).nPublic },
    { nVars: j.key.entry.nVars, nPublic: 2 },
  );
  const status = loadNativeAddon();
  if (!status.ok) throw new Error(status.reason);
  assert.equal(status.addon.findKey('no such key'), null);
});
