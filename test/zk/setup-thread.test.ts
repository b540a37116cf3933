// The gateway's key builds run the dev setup on a worker thread (src/zk/setup/dev-setup-thread.ts):
// the key it writes is the inline setup's, byte for byte (the suite's cached key of the same
// shape, seed and label was built inline).
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileShape } from '../../src/zk/compile.js';
import { KeyStore } from '../../src/zk/keys.js';
import { devSetupOnThread } from '../../src/zk/setup/dev-setup-thread.js';
import { shapeByName } from '../../src/zk/shapes.js';
import { DEFAULT_DEV_SEED } from '../../src/zk/dev-seed.js';
import { tempDir } from '../helpers/gateway.js';
import { KEY_CACHE } from '../helpers/zk.js';

test("a dev setup on a worker thread writes the inline setup's key byte for byte", async () => {
  const shape = shapeByName('v1_inclusion_26_1');
  const inline = await new KeyStore(KEY_CACHE).ensure(shape.name);
  const circuit = await compileShape(shape, KEY_CACHE);
  const dir = tempDir('zkgate-setup-thread-');
  try {
    const zkeyPath = join(dir, 'k.zkey');
    const progress: string[] = [];
    const info = await devSetupOnThread(
      { r1csPath: circuit.r1cs, zkeyPath, seed: DEFAULT_DEV_SEED, label: shape.name },
      (step) => progress.push(step),
    );
    assert.equal(info.nVars, inline.entry.nVars);
    assert.ok(progress.length > 0, 'progress reached the caller from the thread');
    assert.ok(readFileSync(zkeyPath).equals(readFileSync(inline.zkeyPath)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
