// The dev setups' constraint pass (src/zk/setup/qap.ts): the native form (native/src/qap_setup.hpp)
// gives exactly what the bigint form gives (the QAP at tau per wire and the zkey's coefficient
// section), on a circom circuit's constraints in one run and on a structured circuit's emitted in
// runs; bad input is refused with a reason, not read out of bounds.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { compileShape, shapeByName } from '../../src/zk/index.js';
import { FR, mod } from '../../src/zk/field.js';
import { loadNativeAddon } from '../../src/zk/native-addon.js';
import { parseR1cs } from '../../src/zk/r1cs.js';
import { constraintPass } from '../../src/zk/setup/dev-setup.js';
import { QapPass, type ConstraintPass } from '../../src/zk/setup/qap.js';
import { batchAddressAppendCircuit } from '../../src/zk/structured/batch-circuits.js';
import { emitConstraints, structuredSize } from '../../src/zk/structured/cs.js';
import { R1csRuns } from '../../src/zk/structured/r1cs-runs.js';
import { KEY_CACHE } from '../helpers/zk.js';

const random = () => mod(BigInt('0x' + randomBytes(40).toString('hex')), FR);

function assertSamePass(native: ConstraintPass, bigint: ConstraintPass, nVars: number, nC: number): void {
  assert.equal(native.u.length, nVars);
  for (const k of ['u', 'v', 'w'] as const) assert.deepEqual(native[k], bigint[k], k);
  assert.deepEqual(native.coefHeader, bigint.coefHeader);
  assert.ok(Buffer.concat(native.coefChunks).equals(Buffer.concat(bigint.coefChunks)), 'the coefficient sections');
  assert.ok(native.coefHeader.readUInt32LE(0) > nC, 'A and B entries of every constraint');
}

test('the native constraint pass equals the bigint one on a real circuit, value for value', async () => {
  const addon = loadNativeAddon();
  assert.ok(addon.ok && typeof addon.addon.qapAccumulate === 'function', 'the addon has qapAccumulate');
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
  const bigint = constraintPass(constraints, counts, l, { native: false });
  assertSamePass(native, bigint, counts.nVars, counts.nC);
});

test('a structured circuit emitted in runs: the native and bigint passes agree, and the runs cover every constraint', () => {
  const circuit = batchAddressAppendCircuit(1, 40);
  const { nVars, nConstraints } = structuredSize(circuit);
  const l = Array.from({ length: nConstraints + 2 }, () => random());
  const passes = [
    new QapPass(nVars, { coefficients: true }),
    new QapPass(nVars, { coefficients: true, native: false }),
  ];
  assert.equal(passes[0]!.native, true);
  const covered = new Array<number>(nConstraints).fill(0);
  const runs = new R1csRuns((bytes, first, count) => {
    for (let c = first; c < first + count; c++) covered[c]!++;
    for (const p of passes) p.add(bytes, first, l.slice(first, first + count));
  });
  emitConstraints(circuit, runs);
  runs.end();
  assert.deepEqual(new Set(covered), new Set([1]), 'each constraint in exactly one run');
  const [native, bigint] = passes.map((p) => p.finish(nConstraints, l.slice(nConstraints))) as [
    ConstraintPass,
    ConstraintPass,
  ];
  assertSamePass(native, bigint, nVars, nConstraints);
});

test('qapAccumulate refuses what does not fit: truncated constraints, a wire beyond the circuit, values not below r', () => {
  const addon = loadNativeAddon();
  assert.ok(addon.ok);
  const qap = (cs: Uint8Array, n: number, lagrange: Uint8Array, nVars = 3) => {
    const [u, v, w] = [0, 1, 2].map(() => new Uint8Array(32 * nVars)) as [Uint8Array, Uint8Array, Uint8Array];
    return addon.addon.qapAccumulate(cs, n, 0, lagrange, u, v, w, true);
  };
  const lagrange = (n: number) => new Uint8Array(32 * n);
  // One constraint: A = 1·w1, B = 1·w1, C = 1·w2 (n8 = 32).
  const term = (wire: number, coef = 1n) => {
    const b = Buffer.alloc(36);
    b.writeUInt32LE(wire, 0);
    let x = coef;
    for (let i = 0; i < 32; i++, x >>= 8n) b[4 + i] = Number(x & 0xffn);
    return b;
  };
  const lc = (...terms: Buffer[]) => Buffer.concat([Buffer.from(Uint32Array.of(terms.length).buffer), ...terms]);
  const one = Buffer.concat([lc(term(1)), lc(term(1)), lc(term(2))]);
  assert.equal(qap(one, 1, lagrange(1)).count, 2, 'the A and B entries');
  assert.throws(() => qap(one.subarray(0, one.length - 1), 1, lagrange(1)), /truncated/);
  assert.throws(() => qap(Buffer.concat([one, Buffer.alloc(4)]), 1, lagrange(1)), /bytes left/);
  assert.throws(() => qap(one, 1, lagrange(1), 2), /beyond the circuit/);
  assert.throws(() => qap(Buffer.concat([lc(term(1, FR)), lc(), lc()]), 1, lagrange(1)), /not below r/);
  assert.throws(() => qap(one, 1, lagrange(2)), /one Lagrange value per constraint/);
  const u = new Uint8Array(96);
  assert.throws(() => addon.addon.qapAccumulate(one, 1, 0, lagrange(1), u, u.subarray(32), u, false), /nVars × 32/);
});
