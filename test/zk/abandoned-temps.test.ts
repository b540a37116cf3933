// A key build killed midway leaves writeAtomic's temporary file (GBs for the production-size keys):
// the next build of that key deletes it once its process is gone, and leaves a live process's alone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { removeAbandonedTemps } from '../../src/zk/keys.js';
import { tempDir } from '../helpers/gateway.js';

test('temporaries of killed key builds are removed, live ones kept', () => {
  const dir = tempDir('zkgate-temps-');
  try {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const files = [
      `.batch_update_32_500.zkey.${dead}.1795434141531.tmp`, // its builder is gone
      `.batch_update_32_500.zkey.${process.pid}.1795434141532.tmp`, // a build of this process
      `.batch_update_32_10.zkey.${dead}.1795434141533.tmp`, // another key's
      'batch_update_32_500.zkey',
    ];
    for (const f of files) writeFileSync(join(dir, f), 'x');
    removeAbandonedTemps(dir, 'batch_update_32_500.zkey');
    assert.deepEqual(readdirSync(dir).sort(), files.slice(1).sort());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
