// `zkgate keys export`: the folder it writes is enough for snarkjs to prove and verify on its own
// (zkey + sample witnesses → proofs whose public signals match public.json and verify against the vk).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import * as snarkjs from 'snarkjs';
import { ConfigError } from '../src/config.js';
import { keysCommand } from '../src/keys-command.js';
import { KeyStore, shutdownZk } from '../src/zk/index.js';
import { runCliToEnd } from './helpers/cli.js';
import { tempDir } from './helpers/gateway.js';
import { KEY_CACHE } from './helpers/zk.js';

const dirs: string[] = [];
after(async () => {
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  await shutdownZk();
});

const cli = (args: string[]) => runCliToEnd(['keys', ...args]);

const SHAPE = 'v1_inclusion_26_1';

test('export writes the zkey, vk and witnesses that snarkjs proves and verifies from', async () => {
  const out = join(tempDir('zkgate-keys-export-'), 'nested', 'out');
  dirs.push(join(out, '..', '..'));
  const r = await cli(['export', SHAPE, '--out', out, '--witnesses', '2', '--data-dir', KEY_CACHE]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^${SHAPE}: ${SHAPE}\\.zkey \\(sha256 [0-9a-f]{64}\\), 2 witness\\(es\\)$`, 'm'));

  const files = ['zkey', 'vk.json', '0.wtns', '0.public.json', '1.wtns', '1.public.json'].map((f) => `${SHAPE}.${f}`);
  for (const f of [...files, 'manifest.json']) assert.ok(existsSync(join(out, f)), f);
  assert.ok(!existsSync(join(out, `${SHAPE}.2.wtns`)), 'only as many witnesses as asked for');

  const store = new KeyStore(KEY_CACHE);
  const entry = store.manifest()[SHAPE]!;
  const zkey = readFileSync(join(out, `${SHAPE}.zkey`));
  assert.ok(zkey.equals(readFileSync(join(store.dir, entry.zkey))), 'the zkey is the key store’s');
  const vk = JSON.parse(readFileSync(join(out, `${SHAPE}.vk.json`), 'utf8'));
  assert.deepEqual(vk, JSON.parse(readFileSync(join(store.dir, entry.vk), 'utf8')));

  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.equal(manifest.createdBy, 'zkgate keys export');
  assert.equal(manifest.shapes.length, 1);
  const m = manifest.shapes[0];
  assert.equal(m.shape, SHAPE);
  assert.equal(m.zkey, `${SHAPE}.zkey`);
  assert.equal(m.sha256, createHash('sha256').update(zkey).digest('hex'));
  assert.equal(m.sha256, entry.sha256);
  assert.equal(m.nPublic, 2);
  assert.deepEqual(m.witnesses, [`${SHAPE}.0.wtns`, `${SHAPE}.1.wtns`]);
  assert.deepEqual(m.public, [`${SHAPE}.0.public.json`, `${SHAPE}.1.public.json`]);

  const signals: string[][] = [];
  for (const [i, wtns] of m.witnesses.entries()) {
    const publicJson = JSON.parse(readFileSync(join(out, m.public[i]), 'utf8'));
    assert.equal(publicJson.length, vk.nPublic);
    assert.ok(publicJson.every((s: unknown) => typeof s === 'string' && /^\d+$/.test(s)));
    const { proof, publicSignals } = await snarkjs.groth16.prove(join(out, m.zkey), join(out, wtns));
    assert.deepEqual(publicSignals, publicJson);
    assert.equal(await snarkjs.groth16.verify(vk, publicSignals, proof), true, `${wtns} proves and verifies`);
    signals.push(publicSignals);
  }
  assert.notDeepEqual(readFileSync(join(out, m.witnesses[0])), readFileSync(join(out, m.witnesses[1])));
  assert.notEqual(signals[0]![1], signals[1]![1], 'the witnesses prove different leaves');
});

test('export without --out, or with an unknown shape, exits 2 naming the mistake', async () => {
  const out = tempDir('zkgate-keys-export-bad-');
  dirs.push(out);
  const noOut = await cli(['export', SHAPE, '--data-dir', KEY_CACHE]);
  assert.equal(noOut.code, 2);
  assert.match(noOut.stderr, /--out/);
  const unknown = await cli(['export', SHAPE, 'v1_inclusion_26_5', '--out', out, '--data-dir', KEY_CACHE]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown circuit shape "v1_inclusion_26_5"/);
  assert.equal(existsSync(join(out, 'manifest.json')), false);
});

// In process (the CLI maps ConfigError to exit 2, as above), to spare a child process per case.
test('export refuses a bad --witnesses, no shape, and the key store’s own folder as --out', async () => {
  const out = tempDir('zkgate-keys-export-bad-');
  dirs.push(out);
  const refuses = (args: string[], message: RegExp) =>
    assert.rejects(keysCommand(['export', ...args, '--data-dir', KEY_CACHE]), (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, message);
      return true;
    });
  for (const n of ['0', '65', '2.5', 'two']) {
    await refuses([SHAPE, '--out', out, '--witnesses', n], /--witnesses must be a whole number from 1 to 64/);
  }
  await refuses(['--out', out], /usage: zkgate keys export SHAPE/);
  await refuses([SHAPE, '--out', join(KEY_CACHE, 'keys')], /--out must not be the key store's folder/);
  assert.equal(existsSync(join(out, 'manifest.json')), false);
});
