// stringifyJson (wire/json.ts): what JSON.stringify writes, with bigints written as exact integer
// literals wherever they are (nested, negative, u64::MAX); a string or key spelled like the
// internal marker kept as it is (the exact writer takes over); BigInt.prototype left as it was,
// also when stringify throws; and parseJsonExact reading the same text back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJsonExact, stringifyJson } from '../../src/wire/json.js';

const hasToJSON = () => Object.prototype.hasOwnProperty.call(BigInt.prototype, 'toJSON');

test('plain values are written as JSON.stringify writes them', () => {
  const v = { a: 1, b: [true, null, 'x'], c: undefined, d: () => 1, e: { f: 1.5 } };
  assert.equal(stringifyJson(v), JSON.stringify(v));
});

test('bigints are exact integer literals wherever they are', () => {
  const max = 18446744073709551615n;
  const v = {
    lamports: 9999997534014976n,
    rentEpoch: max,
    balances: [1, 2n ** 60n, -(2n ** 63n)],
    nested: { deep: [{ x: 12345678901234567890n }] },
    text: 'n123',
  };
  const text = stringifyJson(v);
  assert.equal(
    text,
    '{"lamports":9999997534014976,"rentEpoch":18446744073709551615,"balances":[1,1152921504606846976,-9223372036854775808],"nested":{"deep":[{"x":12345678901234567890}]},"text":"n123"}',
  );
  assert.deepEqual(parseJsonExact(text), v);
  assert.equal(hasToJSON(), false, 'BigInt.prototype as it was');
});

test('a string or key spelled like the marker stays what it is, beside bigints', () => {
  const v = { s: '\u0000n42', big: 2n ** 64n, ['\u0000n7']: 'key', list: ['\u0000n-1', 3n] };
  const text = stringifyJson(v);
  assert.equal(text, '{"s":"\\u0000n42","big":18446744073709551616,"\\u0000n7":"key","list":["\\u0000n-1",3]}');
  const back = parseJsonExact(text) as { s: string; list: unknown[] };
  assert.equal(back.s, '\u0000n42');
  assert.equal(back.list[0], '\u0000n-1');
  assert.equal(hasToJSON(), false);
});

test('a value whose toJSON throws: the error, and BigInt.prototype left as it was', () => {
  const bad = {
    big: 2n ** 70n,
    toJSON() {
      throw new RangeError('no');
    },
  };
  assert.throws(() => stringifyJson({ big: 2n ** 70n, bad }), RangeError);
  assert.equal(hasToJSON(), false);
});
