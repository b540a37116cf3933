// The standalone prover (native/build/zkgate-prove, no Node): its proof.json and public.json from
// real witnesses of a test shape verify with snarkjs, on the CPU and on the emulated GPU path; the
// accelerator check agrees with the CPU byte for byte (one at a time and in one batch); a broken
// witness file fails with a message; and the bench prints a machine-readable result.
// ZKGATE_PROVE_BIN points the test at another build of the binary.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import * as snarkjs from 'snarkjs';
import { sampleWitnesses, type SampleWitness } from '../../src/sample-witnesses.js';
import { shutdownZk } from '../../src/zk/index.js';
import { importLightKey } from '../../src/zk/light/import.js';
import { lightInputVector } from '../../src/zk/light/inputs.js';
import { sampleLightInputs } from '../../src/zk/light/sample-inputs.js';
import { le32 } from '../../src/zk/native-addon.js';
import { shapeByName } from '../../src/zk/shapes.js';
import { tempDir } from '../helpers/gateway.js';
import { lightPackage } from '../helpers/light-package.js';
import { keys } from '../prover/helpers.js';

const SHAPE = 'v1_inclusion_26_1';
const BIN = process.env.ZKGATE_PROVE_BIN || new URL('../../native/build/zkgate-prove', import.meta.url).pathname;

let dir: string;
let key: Awaited<ReturnType<typeof keys.ensure>>;
let samples: SampleWitness[];
let wtnsPaths: string[];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the binary; a non-zero exit is returned (not thrown) so tests can assert on it. */
async function zkgateProve(...args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(BIN, args, { maxBuffer: 1 << 24 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof err.code !== 'number') throw e;
    return { code: err.code, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

before(async () => {
  assert.ok(existsSync(BIN), `${BIN} is missing: \`npm run build\` builds it (or set ZKGATE_PROVE_BIN)`);
  key = await keys.ensure(SHAPE);
  samples = await sampleWitnesses(SHAPE, key.wasmPath, 2);
  dir = tempDir();
  wtnsPaths = samples.map((s, i) => {
    const path = join(dir, `w${i}.wtns`);
    writeFileSync(path, s.wtns);
    return path;
  });
});

after(async () => {
  // snarkjs's verifier keeps its curve's worker threads (and so the process) alive until closed.
  await shutdownZk();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Proves sample 0 on `backend`; its proof verifies and public.json is the sample's public signals. */
async function proveAndVerify(backend: string): Promise<void> {
  const proofPath = join(dir, `proof-${backend}.json`);
  const publicPath = join(dir, `public-${backend}.json`);
  const run = await zkgateProve(
    'prove',
    '--zkey',
    key.zkeyPath,
    '--wtns',
    wtnsPaths[0]!,
    '--proof',
    proofPath,
    '--public',
    publicPath,
    '--backend',
    backend,
  );
  assert.equal(run.code, 0, run.stderr);
  const proof = JSON.parse(readFileSync(proofPath, 'utf8'));
  const publicSignals = JSON.parse(readFileSync(publicPath, 'utf8'));
  assert.equal(proof.protocol, 'groth16');
  assert.equal(proof.curve, 'bn128');
  assert.deepEqual(publicSignals, samples[0]!.publicSignals.map(String));
  assert.equal(await snarkjs.groth16.verify(key.vk, publicSignals, proof), true, `${backend} proof verifies`);
}

test('prove on the CPU: proof.json and public.json as snarkjs writes them, and the proof verifies', async () => {
  await proveAndVerify('cpu');
});

test('prove on the emulated GPU path: the proof verifies', async () => {
  await proveAndVerify('emulate');
});

test('check: the emulated accelerator equals the CPU byte for byte, one at a time and in one batch', async () => {
  const proofBase = join(dir, 'check-proof.json');
  const run = await zkgateProve(
    'check',
    '--zkey',
    key.zkeyPath,
    '--wtns',
    ...wtnsPaths,
    '--backend',
    'emulate',
    '--proof',
    proofBase,
  );
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.equal(lines.length, 4, run.stdout);
  for (const line of lines) assert.match(line, /: equal$/);
  assert.equal(lines.filter((l) => l.includes('batch of 2')).length, 2);
  // The accelerator's proofs, numbered as the witnesses (SHAPE.N.wtns ↔ proof.N.json), verify.
  for (const [i, sample] of samples.entries()) {
    const proof = JSON.parse(readFileSync(join(dir, `check-proof.${i}.json`), 'utf8'));
    assert.equal(await snarkjs.groth16.verify(key.vk, sample.publicSignals.map(String), proof), true);
  }
});

test("check-inputs: a key imported from Light's file, solved from its inputs, proves equal on the emulated accelerator", async () => {
  const pkg = await lightPackage();
  const zkey = join(dir, 'light.zkey');
  const { vk } = await importLightKey(join(pkg.keys, 'mainnet_inclusion_26_1.key'), zkey, { threads: 2 });
  const shape = shapeByName(SHAPE);
  const vectors = [0, 1].map(() => lightInputVector(shape, sampleLightInputs(shape)));
  const inputs = vectors.map((v, i) => {
    const path = join(dir, `light.${i}.bin`);
    writeFileSync(path, Buffer.concat(v.map(le32)));
    return path;
  });
  const proofBase = join(dir, 'light-proof.json');
  const run = await zkgateProve(
    'check-inputs',
    ...['--zkey', zkey, '--inputs', ...inputs, '--backend', 'emulate', '--n', '1', '--threads', '2'],
    ...['--proof', proofBase],
  );
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.deepEqual(
    lines.slice(0, 2),
    inputs.map((p) => `emulate ${p}: equal`),
  );
  assert.match(lines[2]!, /^p50 of 1 proofs of .*: cpu [\d.]+ ms \(2 threads\), emulate [\d.]+ ms/);
  for (const [i, v] of vectors.entries()) {
    const proof = JSON.parse(readFileSync(join(dir, `light-proof.${i}.json`), 'utf8'));
    assert.equal(await snarkjs.groth16.verify(vk, v.slice(0, vk.nPublic).map(String), proof), true);
  }
  // A key without a constraint system (the dev key) is refused, saying how to prove it.
  const dev = await zkgateProve('check-inputs', '--zkey', key.zkeyPath, '--inputs', inputs[0]!, '--backend', 'emulate');
  assert.equal(dev.code, 1);
  assert.match(dev.stderr, /no constraint system \(prove it with check --wtns\)/);
});

test('bad-batch: three callers batched together, the one with an invalid witness fails alone', async () => {
  const run = await zkgateProve(
    'bad-batch',
    '--zkey',
    key.zkeyPath,
    '--wtns',
    ...wtnsPaths,
    '--backend',
    'emulate',
    '--batch',
    '3',
  );
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /caller 1 \(bad witness\): failed: witness value out of range/);
  assert.match(run.stdout, /caller 0: equal to the CPU's proof/);
  assert.match(run.stdout, /caller 2: equal to the CPU's proof/);
  assert.match(run.stdout, /engine: 2 proofs in 1 batches, largest 2; ok/);
});

test('a truncated witness file fails with a message (exit 1)', async () => {
  const truncated = join(dir, 'truncated.wtns');
  writeFileSync(truncated, samples[0]!.wtns.subarray(0, samples[0]!.wtns.length - 100));
  const run = await zkgateProve(
    'prove',
    '--zkey',
    key.zkeyPath,
    '--wtns',
    truncated,
    '--proof',
    join(dir, 'never.json'),
    '--public',
    join(dir, 'never-public.json'),
  );
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^zkgate-prove: .*truncated\.wtns: truncated/);
  assert.equal(existsSync(join(dir, 'never.json')), false);
});

test('bench on a synthetic key prints a RESULT line with the throughput', async () => {
  const run = await zkgateProve('bench', '--random', '600:1024:2', '--n', '4', '--batch', '2', '--backend', 'emulate');
  assert.equal(run.code, 0, run.stderr);
  const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  assert.ok(line, run.stdout);
  const result = JSON.parse(line.slice('RESULT '.length));
  assert.equal(result.backend, 'emulate');
  assert.equal(result.n, 4);
  assert.equal(result.batch, 2);
  assert.ok(result.proofs_per_s > 0, line);
});
