// Light's proof compression against the spec's vector, and round trips through every format.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compressProof, decompressProof, fromRaw, toRaw, type RawProof } from '../../src/zk/proof-format.js';

const RAW: RawProof = {
  ar: [
    '0x22bdaa3187d8fe294925a66fa0165a11bc9e07678fa2fc72402ebfd33d521c69',
    '0x2d18ff780b69898b4cdd8d7b6ac72d077799399f0f45e52665426456f3903584',
  ],
  bs: [
    [
      '0x138cc0962e49f76a701d2871d2799892c9782940095eb0429e979f336d2e162d',
      '0x2fe1bfbb15cbfb83d7e00ace23e45f890604003783eaf34affa35e0d6f4822bc',
    ],
    [
      '0x1a89264f82cc6e8ef1c696bea0b5803c28c0ba6ab61366bcb71e73a4135cae8d',
      '0x0f778d857b3df01a4100265c9d014ce02d47425f0114685356165fa5ee3f3a26',
    ],
  ],
  krs: [
    '0x176b6ae9001f66832951e2d43a98a972667447bb1781f534b70cb010270dcdd3',
    '0x0b748d5fac1686db28d94c02250af7eb4f28dfdabc8983305c45bcbc6e163eeb',
  ],
};

const hexBytes = (h: string) => [...Buffer.from(h, 'hex')];

test('compression matches the stateless.js vector (negated A, flags per p)', () => {
  const c = compressProof(fromRaw(RAW));
  assert.deepEqual(c.a, hexBytes('22bdaa3187d8fe294925a66fa0165a11bc9e07678fa2fc72402ebfd33d521c69'));
  assert.deepEqual(
    c.b,
    hexBytes(
      '938cc0962e49f76a701d2871d2799892c9782940095eb0429e979f336d2e162d2fe1bfbb15cbfb83d7e00ace23e45f890604003783eaf34affa35e0d6f4822bc',
    ),
  );
  assert.deepEqual(c.c, hexBytes('176b6ae9001f66832951e2d43a98a972667447bb1781f534b70cb010270dcdd3'));
  assert.deepEqual(c.a.slice(0, 4), [34, 189, 170, 49]);
  assert.equal(c.b[0], 147);
  assert.deepEqual(c.b.slice(-4), [111, 72, 34, 188]);
  assert.deepEqual(c.c.slice(0, 4), [23, 107, 106, 233]);
});

test('decompression restores the original points; raw round trip', () => {
  const points = fromRaw(RAW);
  assert.deepEqual(decompressProof(compressProof(points)), points);
  assert.deepEqual(toRaw(points), RAW);
});
