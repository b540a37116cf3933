// `zkgate keys`: list, export-vk in both formats, import (checked against the circuit).
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { KeyStore, shutdownZk } from '../src/zk/index.js';
import { runCliToEnd } from './helpers/cli.js';
import { linkKeyCache, tempDir } from './helpers/gateway.js';
import { KEY_CACHE } from './helpers/zk.js';

const dirs: string[] = [];
after(async () => {
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  await shutdownZk();
});

const cli = (args: string[]) => runCliToEnd(['keys', ...args]);

test('export-vk prints the snarkjs key and the Solana byte layout of the same key', async () => {
  const snark = await cli(['export-vk', 'v1_inclusion_26_1', '--data-dir', KEY_CACHE]);
  assert.equal(snark.code, 0, snark.stderr);
  const vk = JSON.parse(snark.stdout);
  assert.equal(vk.protocol, 'groth16');
  assert.equal(vk.nPublic, 2);
  const sol = await cli(['export-vk', 'v1_inclusion_26_1', '--format', 'solana', '--data-dir', KEY_CACHE]);
  const s = JSON.parse(sol.stdout);
  assert.deepEqual(Object.keys(s), [
    'nr_pubinputs',
    'vk_alpha_g1',
    'vk_beta_g2',
    'vk_gamme_g2',
    'vk_delta_g2',
    'vk_ic',
  ]);
  assert.equal(s.nr_pubinputs, 2);
  assert.equal(s.vk_alpha_g1.length, 64);
  assert.equal(s.vk_delta_g2.length, 128);
  assert.equal(s.vk_ic.length, 3);
  const be = (dec: string) => [...Buffer.from(BigInt(dec).toString(16).padStart(64, '0'), 'hex')];
  assert.deepEqual(s.vk_alpha_g1, [...be(vk.vk_alpha_1[0]), ...be(vk.vk_alpha_1[1])]);
  // G2: x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0 (imaginary part first)
  assert.deepEqual(s.vk_beta_g2, [
    ...be(vk.vk_beta_2[0][1]),
    ...be(vk.vk_beta_2[0][0]),
    ...be(vk.vk_beta_2[1][1]),
    ...be(vk.vk_beta_2[1][0]),
  ]);
  const bad = await cli(['export-vk', 'v1_inclusion_26_1', '--format', 'xml', '--data-dir', KEY_CACHE]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--format must be snarkjs or solana/);
});

test('list shows every shape with its status', async () => {
  const r = await cli(['list', '--data-dir', KEY_CACHE]);
  assert.equal(r.code, 0);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1 + 83 + 6, 'the validity shapes, then the forester’s batch shapes');
  assert.match(r.stdout, /^v1_inclusion_26_1\s+(ready|missing)\s/m);
  assert.match(r.stdout, /^v2_non-inclusion_40_32\s+missing\s+-\s+-$/m);
  assert.match(r.stdout, /^batch_address_append_40_250\s+missing\s+-\s+-$/m);
});

test('import takes a key made elsewhere for the same circuit, and refuses one for another shape', async () => {
  const elsewhere = tempDir('zkgate-keys-src-');
  const target = tempDir('zkgate-keys-dst-');
  dirs.push(elsewhere, target);
  // The suite's compiled circuits: what is under test is the key, not circom's compile.
  for (const d of [elsewhere, target]) linkKeyCache(d, ['circuits']);
  // A key from another setup (a different seed stands in for a ceremony's).
  const foreign = await new KeyStore(elsewhere, 'some-ceremony').build('v1_inclusion_26_1');
  const ok = await cli(['import', 'v1_inclusion_26_1', foreign.zkeyPath, '--data-dir', target]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /v1_inclusion_26_1: imported .* sha256 [0-9a-f]{64}/);
  const store = new KeyStore(target);
  const entry = store.manifest().v1_inclusion_26_1!;
  assert.equal(entry.setup, 'imported');
  assert.equal(entry.sha256, foreign.entry.sha256);
  assert.deepEqual((await store.ensure('v1_inclusion_26_1')).vk, foreign.vk);

  const wrong = await cli(['import', 'v1_non-inclusion_26_1', foreign.zkeyPath, '--data-dir', target]);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /was not made for v1_non-inclusion_26_1 as zkgate compiles it: wires/);
  const notZkey = await cli([
    'import',
    'v1_inclusion_26_1',
    join(target, 'keys', 'manifest.json'),
    '--data-dir',
    target,
  ]);
  assert.equal(notZkey.code, 1);
  assert.match(notZkey.stderr, /not a zkey file/);
});
