// The dev setup's constraint pass: the native form (native/src/qap_setup.hpp) gives exactly what
// the bigint form gives (the QAP at tau per wire and the zkey's coefficient section), on a real
// circuit's constraints; bad input is refused with a reason, not read out of bounds.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { compileShape, shapeByName } from '../../src/zk/index.js';
import { FR, mod } from '../../src/zk/field.js';
import { loadNativeAddon } from '../../src/zk/native-addon.js';
import { parseR1cs } from '../../src/zk/r1cs.js';
import { constraintPass, constraintPassBigint } from '../../src/zk/setup/dev-setup.js';
import { KEY_CACHE } from '../helpers/zk.js';

const random = () => mod(BigInt('0x' + randomBytes(40).toString('hex')), FR);

test('the native constraint pass equals the bigint one on a real circuit, value for value', async () => {
  const addon = loadNativeAddon();
  assert.ok(addon.ok && typeof addon.addon.qapAtTau === 'function', 'the addon has qapAtTau');
  const circuit = await compileShape(shapeByName('v1_inclusion_26_1'), KEY_CACHE);
  const { header, constraints } = parseR1cs(readFileSync(circuit.r1cs));
  const counts = {
    nC: header.nConstraints,
    nVars: header.nWires,
    nPublic: header.nPubOut + header.nPubIn,
    n8: header.n8,
  };
  // The pass is linear in the Lagrange values: any values check it (a zero and a one among them).
  const l = Array.from({ length: counts.nC + counts.nPublic + 1 }, (_, i) => (i === 0 ? 0n : i === 1 ? 1n : random()));
  const native = constraintPass(constraints, counts, l);
  const bigint = constraintPassBigint(constraints, counts, l);
  assert.equal(native.u.length, counts.nVars);
  for (const k of ['u', 'v', 'w'] as const) assert.deepEqual(native[k], bigint[k], k);
  assert.deepEqual(native.coefHeader, bigint.coefHeader);
  assert.ok(Buffer.concat(native.coefChunks).equals(Buffer.concat(bigint.coefChunks)), 'the coefficient sections');
  assert.ok(native.coefHeader.readUInt32LE(0) > counts.nC, 'A and B entries of every constraint');
});

test('qapAtTau refuses what does not fit: truncated constraints, a wire beyond the circuit, values not below r', () => {
  const addon = loadNativeAddon();
  assert.ok(addon.ok);
  const qap = addon.addon.qapAtTau.bind(addon.addon);
  const lagrange = (n: number) => new Uint8Array(32 * n);
  // One constraint: A = 1·w1, B = 1·w1, C = 1·w2 (n8 = 32), and two more wires of lagrange rows.
  const term = (wire: number, coef = 1n) => {
    const b = Buffer.alloc(36);
    b.writeUInt32LE(wire, 0);
    let x = coef;
    for (let i = 0; i < 32; i++, x >>= 8n) b[4 + i] = Number(x & 0xffn);
    return b;
  };
  const lc = (...terms: Buffer[]) => Buffer.concat([Buffer.from(Uint32Array.of(terms.length).buffer), ...terms]);
  const one = Buffer.concat([lc(term(1)), lc(term(1)), lc(term(2))]);
  assert.equal(qap(one, 1, 3, 0, lagrange(2)).count, 3, 'A, B and the one wire’s row');
  assert.throws(() => qap(one.subarray(0, one.length - 1), 1, 3, 0, lagrange(2)), /truncated/);
  assert.throws(() => qap(one, 1, 2, 0, lagrange(2)), /beyond the circuit/);
  assert.throws(() => qap(Buffer.concat([lc(term(1, FR)), lc(), lc()]), 1, 3, 0, lagrange(2)), /not below r/);
  assert.throws(() => qap(one, 1, 3, 0, lagrange(5)), /do not match/);
});
