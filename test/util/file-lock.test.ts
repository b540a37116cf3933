// The lock that processes sharing a data dir take around key builds, compiles and the key manifest.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { withFileLock } from '../../src/util/file-lock.js';
import { tempDir } from '../helpers/gateway.js';
import { LOADER, sibling } from '../helpers/paths.js';

const CHILD = sibling(import.meta.url, 'file-lock-child');
const dir = tempDir('zkgate-lock-');
after(() => rmSync(dir, { recursive: true, force: true }));

const pairsOf = (log: string) => log.trim().split('\n');

test('processes holding the same lock run one at a time, each whole', async () => {
  const lock = join(dir, 'a', '.shape.lock');
  const log = join(dir, 'a.log');
  const children = ['p1', 'p2', 'p3'].map(
    (name) =>
      new Promise<number | null>((resolve, reject) => {
        const c = spawn(process.execPath, [...LOADER, CHILD, lock, log, name, '300'], { stdio: 'inherit' });
        c.on('exit', resolve);
        c.on('error', reject);
      }),
  );
  assert.deepEqual(await Promise.all(children), [0, 0, 0]);
  const lines = pairsOf(readFileSync(log, 'utf8'));
  assert.equal(lines.length, 6);
  // Every "in" is followed by the same process's "out" before anyone else enters.
  for (let i = 0; i < 6; i += 2) assert.equal(lines[i + 1], lines[i]!.replace(' in', ' out'), lines.join(', '));
  assert.deepEqual(new Set(lines.filter((l) => l.endsWith(' in'))), new Set(['p1 in', 'p2 in', 'p3 in']));
  assert.equal(existsSync(lock), false, 'the last holder removed the lock');
});

test('callers in one process queue on the lock as well', async () => {
  const lock = join(dir, 'b.lock');
  const events: string[] = [];
  const hold = (name: string) =>
    withFileLock(lock, async () => {
      events.push(`${name} in`);
      await new Promise((r) => setImmediate(r));
      events.push(`${name} out`);
    });
  let waited = false;
  await Promise.all([
    hold('a'),
    withFileLock(
      lock,
      async () => events.push('b in', 'b out'),
      () => (waited = true),
    ),
  ]);
  assert.deepEqual(events, ['a in', 'a out', 'b in', 'b out']);
  assert.equal(waited, true, 'the second caller was told it waits');
});

test('a lock left by a process that died is taken over', async () => {
  const lock = join(dir, 'c.lock');
  // The pid of a process that has exited.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  writeFileSync(lock, `${dead.stdout}\n`);
  assert.equal(await withFileLock(lock, async () => readFileSync(lock, 'utf8').trim()), String(process.pid));
  assert.equal(existsSync(lock), false);
});

test('the lock is released when the work fails', async () => {
  const lock = join(dir, 'd.lock');
  await assert.rejects(
    withFileLock(lock, async () => {
      throw new Error('build failed');
    }),
    /build failed/,
  );
  assert.equal(existsSync(lock), false);
  assert.equal(await withFileLock(lock, async () => 'again'), 'again');
});
