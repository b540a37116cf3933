// The compile cache key of a shape covers exactly the sources its main component includes: an edit
// to the batch circuits leaves the validity shapes' builds (and so their keys) current.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { includedFiles, sourcesHash } from '../../src/zk/compile.js';
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
