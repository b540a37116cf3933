// zkgate's base58 codec against @scure/base (the reference it replaced on the hot paths).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { base58 } from '@scure/base';
import { decodeBase58, encodeBase58 } from '../../src/zk/base58.js';

function samples(): Uint8Array[] {
  const out: Uint8Array[] = [new Uint8Array(0), Uint8Array.of(0), Uint8Array.of(0, 0, 1), Uint8Array.of(255)];
  for (let len = 1; len <= 80; len++)
    for (let k = 0; k < 20; k++) {
      const b = randomBytes(len);
      // Leading zero bytes (the '1' prefix) and runs of 0x00 / 0xff inside.
      if (k % 4 === 1) b.fill(0, 0, Math.min(len, 1 + (k % 3)));
      if (k % 4 === 2) b.fill(255, 0, Math.ceil(len / 2));
      if (k % 4 === 3) b.fill(0);
      out.push(new Uint8Array(b));
    }
  for (const len of [32, 64]) out.push(new Uint8Array(len).fill(255), new Uint8Array(len));
  out.push(randomBytes(1232));
  return out;
}

test('encode and decode agree with @scure/base, lengths 0 to 80 and 1232', () => {
  for (const b of samples()) {
    const s = base58.encode(b);
    assert.equal(encodeBase58(b), s, Buffer.from(b).toString('hex'));
    assert.deepEqual(decodeBase58(s), new Uint8Array(b), s);
  }
});

test('known values: the system program, a Light tree', () => {
  assert.equal(encodeBase58(new Uint8Array(32)), '11111111111111111111111111111111');
  assert.equal(
    Buffer.from(decodeBase58('smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT')).toString('hex'),
    Buffer.from(base58.decode('smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT')).toString('hex'),
  );
});

test('characters outside the alphabet are refused, naming the character and its position', () => {
  for (const [s, bad, at] of [
    ['0abc', '0', 0],
    ['abcO', 'O', 3],
    ['11I', 'I', 2],
    ['abl', 'l', 2],
    ['ab c', ' ', 2],
    ['abé', 'é', 2],
  ] as const)
    assert.throws(() => decodeBase58(s), {
      message: `invalid base58 character ${JSON.stringify(bad)} at position ${at}`,
    });
});
