// kill -9 during ingestion: after reopening, the trees equal the last committed batch exactly.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { TreeStore } from '../../src/state/index.js';
import { tempDir } from '../helpers/gateway.js';
import { LOADER, sibling } from '../helpers/paths.js';

const CHILD = sibling(import.meta.url, 'crash-child');
const BATCH = 400;

test('a process killed mid-batch leaves the last committed state, consistent and usable', async () => {
  const dir = tempDir('zkgate-crash-');
  try {
    const child = spawn(process.execPath, [...LOADER, CHILD, dir, String(BATCH)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        // Kill at an arbitrary point inside a later batch, not right after a commit.
        if ((out.match(/committed/g) ?? []).length >= 3) setTimeout(() => child.kill('SIGKILL'), 37);
      });
      child.on('exit', () => resolve());
      child.on('error', reject);
    });
    const committed = (out.match(/committed/g) ?? []).length;
    assert.ok(committed >= 3);

    const store = await TreeStore.open(dir);
    const st = store.stateTree('state');
    const info = st.info();
    // Whole batches only, never a partial one; at least the batches reported committed.
    assert.equal(info.nextIndex % BATCH, 0, `nextIndex ${info.nextIndex} is not a whole number of batches`);
    assert.ok(info.nextIndex >= committed * BATCH);
    assert.equal(info.rootSeq, BigInt(info.nextIndex));
    const ad = store.addressTree('addr');
    assert.equal((ad.info().nextIndex - 1) % (BATCH / 10), 0);

    // The recovered root is exactly the root of those leaves, rebuilt from scratch elsewhere.
    const refDir = tempDir('zkgate-crash-ref-');
    const ref = await TreeStore.open(refDir);
    ref.registerTree({ pubkey: 'state', kind: 'state', version: 1 });
    ref.stateTree('state').append(Array.from({ length: info.nextIndex }, (_, i) => BigInt(i + 1)));
    assert.equal(ref.info('state').root, info.root);
    await ref.close();
    rmSync(refDir, { recursive: true, force: true });

    // And the store keeps working.
    st.append([123456789n]);
    assert.equal(st.findLeaf(123456789n), info.nextIndex);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
