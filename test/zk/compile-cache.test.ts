// The compile cache key of a shape covers exactly the sources its main component includes: an edit
// to the batch circuits leaves the validity shapes' builds (and so their keys) current.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { compiledPaths, compileShape, includedFiles, sourcesHash, stopCompilers } from '../../src/zk/compile.js';
import { mainSource, shapeByName } from '../../src/zk/shapes.js';

test('a shape hashes the files it includes, and only those', () => {
  const v1 = includedFiles(mainSource(shapeByName('v1_inclusion_26_1')));
  assert.deepEqual(v1, [
    'circomlib/circuits/aliascheck.circom', // circomlib's bitify includes these three
    'circomlib/circuits/binsum.circom',
    'circomlib/circuits/bitify.circom',
    'circomlib/circuits/comparators.circom',
    'circomlib/circuits/compconstant.circom',
    'circomlib/circuits/poseidon_constants.circom',
    'lib/merkle.circom',
    'lib/poseidon.circom',
    'lib/proofs.circom',
    'lib/range.circom',
    'v1.circom',
  ]);
  const batch = includedFiles(mainSource(shapeByName('batch_append_32_10')));
  assert.ok(batch.includes('batch.circom') && batch.includes('circomlib/circuits/comparators.circom'));
  assert.ok(!batch.includes('v1.circom') && !v1.includes('batch.circom'));
  // The same sources with another main component (size) is another build.
  assert.notEqual(sourcesHash(shapeByName('batch_append_32_10')), sourcesHash(shapeByName('batch_append_32_500')));
});

// A gateway stopped while a key builds in the background must not leave circom running: an orphan
// would outlive it and slow the next start (found measuring restarts with the forester's keys unbuilt).
test('stopCompilers kills a compile in flight: it rejects, no circom process is left, nothing is cached', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zkgate-compile-stop-'));
  try {
    const shape = shapeByName('batch_append_32_10');
    const building = compileShape(shape, dataDir);
    const failed = assert.rejects(building, /circom was stopped/);
    // Wait until the compiler runs (a process in its private build folder), then stop it.
    for (let i = 0; i < 500 && compilerCwds(dataDir) === 0; i++) await sleep(10);
    assert.ok(compilerCwds(dataDir) > 0, 'circom started');
    stopCompilers();
    await failed;
    for (let i = 0; i < 100 && compilerCwds(dataDir) > 0; i++) await sleep(20);
    assert.equal(compilerCwds(dataDir), 0);
    assert.equal(existsSync(compiledPaths(shape, dataDir).r1cs), false);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** How many processes run with their working directory under `dir`. */
function compilerCwds(dir: string): number {
  let n = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readlinkSync(`/proc/${pid}/cwd`).startsWith(dir)) n++;
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return n;
}
