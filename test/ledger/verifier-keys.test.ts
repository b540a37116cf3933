// Patching zkgate's verifying keys into Light's program files, record by record.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import {
  expectedRecords,
  LIGHT_SYSTEM_PROGRAM_FILE,
  locateVkRecords,
  patchVkRecords,
  publicInputCount,
  PatchedProgram,
  VerifierKeyError,
  type VkRecordLocation,
} from '../../src/ledger/index.js';
import { LIGHT_VK_RECORDS } from '../../src/ledger/light-vk-records.js';
import { SHAPES, shapeByName, type SolanaVerifyingKeyBytes } from '../../src/zk/index.js';

const BIN = join(
  dirname(createRequire(import.meta.url).resolve('@lightprotocol/zk-compression-cli/package.json')),
  'bin',
);
const systemFile = () => new Uint8Array(readFileSync(join(BIN, LIGHT_SYSTEM_PROGRAM_FILE)));

function syntheticKey(icPoints: number, nPublic: number): SolanaVerifyingKeyBytes {
  const r = (n: number) => new Uint8Array(randomBytes(n));
  return {
    nPublic,
    alpha: r(64),
    beta: r(128),
    gamma: r(128),
    delta: r(128),
    ic: Array.from({ length: icPoints }, () => r(64)),
  };
}

const keysFor = (locs: Map<string, VkRecordLocation>) =>
  new Map([...locs].map(([s, l]) => [s, syntheticKey(l.icPoints, l.nrPubinputs)]));

test('the system program has one record for each of the 83 shapes zkgate proves, with their public input counts', () => {
  const records = expectedRecords(LIGHT_SYSTEM_PROGRAM_FILE);
  assert.equal(records.length, 83);
  assert.deepEqual(records.map((r) => r.shape).sort(), SHAPES.map((s) => s.name).sort());
  for (const r of records) {
    assert.equal(r.nrPubinputs, publicInputCount(shapeByName(r.shape)), r.shape);
    assert.equal(r.icPoints, r.nrPubinputs + 1, r.shape);
  }
  const locs = locateVkRecords(systemFile(), LIGHT_SYSTEM_PROGRAM_FILE, records);
  assert.equal(locs.size, 83);
  // The offsets measured independently on the 0.28.3 files (spec's light-vk-records.json).
  assert.deepEqual(locs.get('v1_inclusion_26_1'), {
    shape: 'v1_inclusion_26_1',
    recordOffset: 659248 - 24,
    icOffset: 621781,
    icPoints: 3,
    nrPubinputs: 2,
  });
  assert.equal(locs.get('v2_combined_32_40_4_4')!.icPoints, 2);
  // No two records or IC blocks overlap.
  const spans = [...locs.values()].flatMap((l) => [
    [l.recordOffset, l.recordOffset + 472],
    [l.icOffset, l.icOffset + 64 * l.icPoints],
  ]);
  spans.sort((a, b) => a[0]! - b[0]!);
  for (let i = 1; i < spans.length; i++) assert.ok(spans[i]![0]! >= spans[i - 1]![1]!, 'overlapping spans');
});

test('every record is patched with its own key, and nothing else in the file changes', () => {
  const pristine = systemFile();
  const locs = locateVkRecords(pristine, LIGHT_SYSTEM_PROGRAM_FILE, expectedRecords(LIGHT_SYSTEM_PROGRAM_FILE));
  const keys = keysFor(locs);
  const patched = patchVkRecords(pristine, locs, keys);
  assert.equal(patched.length, pristine.length);
  const touched = new Uint8Array(pristine.length);
  for (const [shape, k] of keys) {
    const l = locs.get(shape)!;
    const at = (o: number, n: number) => Buffer.from(patched.subarray(o, o + n));
    assert.deepEqual(at(l.recordOffset + 24, 64), Buffer.from(k.alpha), shape);
    assert.deepEqual(at(l.recordOffset + 88, 128), Buffer.from(k.beta), shape);
    assert.deepEqual(at(l.recordOffset + 216, 128), Buffer.from(k.gamma), shape);
    assert.deepEqual(at(l.recordOffset + 344, 128), Buffer.from(k.delta), shape);
    k.ic.forEach((p, i) => assert.deepEqual(at(l.icOffset + 64 * i, 64), Buffer.from(p), `${shape} IC ${i}`));
    // The header (IC pointer, count, nr_pubinputs) stays.
    assert.deepEqual(at(l.recordOffset, 24), Buffer.from(pristine.subarray(l.recordOffset, l.recordOffset + 24)));
    touched.fill(1, l.recordOffset + 24, l.recordOffset + 472);
    touched.fill(1, l.icOffset, l.icOffset + 64 * l.icPoints);
  }
  for (let i = 0; i < pristine.length; i++) if (!touched[i]) assert.equal(patched[i], pristine[i], `byte ${i}`);
  // The pristine bytes are left as they were (patching works on a copy).
  assert.deepEqual(Buffer.from(pristine), readFileSync(join(BIN, LIGHT_SYSTEM_PROGRAM_FILE)));
});

test("V1 non-inclusion 26_{3,4,8} and the batch keys are not patched; account_compression's 6 records are found", () => {
  const pristine = systemFile();
  const all = LIGHT_VK_RECORDS.filter((r) => r.program === LIGHT_SYSTEM_PROGRAM_FILE);
  assert.equal(all.length, 86);
  const locs = locateVkRecords(pristine, LIGHT_SYSTEM_PROGRAM_FILE, all);
  const ours = locateVkRecords(pristine, LIGHT_SYSTEM_PROGRAM_FILE, expectedRecords(LIGHT_SYSTEM_PROGRAM_FILE));
  const patched = patchVkRecords(pristine, ours, keysFor(ours));
  for (const s of ['v1_non-inclusion_26_3', 'v1_non-inclusion_26_4', 'v1_non-inclusion_26_8']) {
    const l = locs.get(s)!;
    assert.equal(l.icPoints, 2);
    const span = (b: Uint8Array) => Buffer.from(b.subarray(l.recordOffset, l.recordOffset + 472));
    assert.deepEqual(span(patched), span(pristine), s);
  }
  const compression = new Uint8Array(readFileSync(join(BIN, 'account_compression.so')));
  const batch = locateVkRecords(
    compression,
    'account_compression.so',
    LIGHT_VK_RECORDS.filter((r) => r.program === 'account_compression.so'),
  );
  assert.deepEqual([...batch.keys()].sort(), [
    'batch_address_append_40_10',
    'batch_address_append_40_250',
    'batch_append_32_10',
    'batch_append_32_500',
    'batch_update_32_10',
    'batch_update_32_500',
  ]);
});

test('a file without the records, or with a record twice, refuses with the reason', () => {
  const records = expectedRecords(LIGHT_SYSTEM_PROGRAM_FILE);
  assert.throws(
    () => locateVkRecords(new Uint8Array(readFileSync(join(BIN, 'spl_noop.so'))), 'spl_noop.so', records),
    (e: unknown) =>
      e instanceof VerifierKeyError && /spl_noop\.so: 83 verifying-key record\(s\) not found/.test(e.message),
  );
  assert.throws(
    () => locateVkRecords(new Uint8Array(100), 'zeros.so', records),
    (e: unknown) => e instanceof VerifierKeyError && e.message === 'zeros.so: not an ELF file',
  );
  // Light's own delta of one record copied into another record: both now claim the shape.
  const bytes = systemFile();
  const locs = locateVkRecords(bytes, LIGHT_SYSTEM_PROGRAM_FILE, records);
  const a = locs.get('v1_inclusion_26_1')!;
  const b = locs.get('v1_inclusion_26_2')!;
  bytes.copyWithin(b.recordOffset + 344, a.recordOffset + 344, a.recordOffset + 472);
  assert.throws(
    () => locateVkRecords(bytes, LIGHT_SYSTEM_PROGRAM_FILE, records),
    (e: unknown) =>
      e instanceof VerifierKeyError &&
      // v1_inclusion_26_2's delta is gone and 26_1's appears in a record with the wrong counts.
      /v1_inclusion_26_1 key record has 5 IC points and nr_pubinputs 4, expected 3 and 2/.test(e.message),
  );
  const twice = systemFile();
  const c = locs.get('v2_inclusion_32_1')!;
  const d = locs.get('v2_inclusion_32_2')!;
  twice.copyWithin(d.recordOffset + 344, c.recordOffset + 344, c.recordOffset + 472);
  assert.throws(
    () => locateVkRecords(twice, LIGHT_SYSTEM_PROGRAM_FILE, records),
    (e: unknown) =>
      e instanceof VerifierKeyError &&
      e.message === `${LIGHT_SYSTEM_PROGRAM_FILE}: verifying-key records found more than once: v2_inclusion_32_1`,
  );
});

test('a key whose IC count does not match the record is refused', () => {
  const pristine = systemFile();
  const locs = locateVkRecords(pristine, LIGHT_SYSTEM_PROGRAM_FILE, expectedRecords(LIGHT_SYSTEM_PROGRAM_FILE));
  assert.throws(
    () => patchVkRecords(pristine, locs, new Map([['v1_inclusion_26_1', syntheticKey(2, 1)]])),
    /zkgate's key for v1_inclusion_26_1 has 2 IC points and 1 public inputs; the program's record has 3 and 2/,
  );
});

test('PatchedProgram redeploys once per change, keeps earlier keys and writes the patched file', () => {
  const pristine = systemFile();
  const deployed: Uint8Array[] = [];
  const written: Uint8Array[] = [];
  const p = new PatchedProgram(
    new Uint8Array(32),
    LIGHT_SYSTEM_PROGRAM_FILE,
    pristine,
    expectedRecords(LIGHT_SYSTEM_PROGRAM_FILE),
    (_, b) => deployed.push(b),
    (b) => written.push(b),
  );
  const k1 = { shape: 'v1_inclusion_26_1', keyId: 'a', vk: syntheticKey(3, 2) };
  const k2 = { shape: 'v2_inclusion_32_1', keyId: 'b', vk: syntheticKey(2, 1) };
  assert.equal(p.install([k1]), true);
  assert.equal(p.install([k1]), false, 'the same key again is a no-op');
  assert.equal(p.install([k2, { shape: 'batch_append_32_10', keyId: 'c', vk: syntheticKey(2, 1) }]), true);
  assert.equal(deployed.length, 2);
  assert.deepEqual(written, deployed);
  assert.equal(p.keyId('v1_inclusion_26_1'), 'a');
  assert.equal(p.keyId('batch_append_32_10'), undefined);
  assert.equal(p.installedCount(), 2);
  const last = deployed[1]!;
  const locs = locateVkRecords(pristine, LIGHT_SYSTEM_PROGRAM_FILE, expectedRecords(LIGHT_SYSTEM_PROGRAM_FILE));
  const l1 = locs.get('v1_inclusion_26_1')!;
  assert.deepEqual(
    createHash('sha256')
      .update(last.subarray(l1.recordOffset + 344, l1.recordOffset + 472))
      .digest(),
    createHash('sha256').update(k1.vk.delta).digest(),
    'the first key is still in the second deployment',
  );
  // A failed install (wrong IC count) deploys nothing and keeps the state.
  assert.throws(() => p.install([{ shape: 'v1_inclusion_26_2', keyId: 'x', vk: syntheticKey(2, 1) }]));
  assert.equal(deployed.length, 2);
  assert.equal(p.keyId('v1_inclusion_26_2'), undefined);
});
