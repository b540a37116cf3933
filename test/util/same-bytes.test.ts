// sameBytes against Buffer#equals on pairs that differ at each position, in length, or not at all.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { sameBytes } from '../../src/util/same-bytes.js';

test('sameBytes agrees with Buffer#equals: equal, one byte off at every position, other lengths, views', () => {
  const a = randomBytes(32);
  assert.equal(sameBytes(a, Buffer.from(a)), true);
  assert.equal(sameBytes(new Uint8Array(0), new Uint8Array(0)), true);
  for (let i = 0; i < 32; i++) {
    const b = Buffer.from(a);
    b[i] = b[i]! ^ 1;
    assert.equal(sameBytes(a, b), false, `byte ${i}`);
    assert.equal(sameBytes(a, b), a.equals(b));
  }
  assert.equal(sameBytes(a, a.subarray(0, 31)), false);
  assert.equal(sameBytes(a.subarray(0, 31), a), false);
  // A view into a larger buffer compares its own bytes only.
  const big = Buffer.concat([randomBytes(7), a, randomBytes(5)]);
  assert.equal(sameBytes(big.subarray(7, 39), a), true);
  assert.equal(sameBytes(new Uint8Array(big.buffer, big.byteOffset + 8, 32), a), false);
});
