// A gateway builds proving keys in processes of their own (src/zk/setup/key-build-process.ts):
// the key one writes is the inline setup's, byte for byte; every thread of it, and its compiler,
// runs at the nice value it was given; it can be stopped and continued, raised (where the system
// allows) and killed, compiler included, leaving nothing that stops the next build; and it ends,
// stopped or not, when the process that started it is killed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { startKeyBuild } from '../../src/zk/setup/key-build-process.js';
import { KeyStore } from '../../src/zk/keys.js';
import { processTree } from '../../src/util/thread-priority.js';
import { linkKeyCache, tempDir } from '../helpers/gateway.js';
import { KEY_CACHE } from '../helpers/zk.js';
import { ROOT } from '../helpers/paths.js';

const SEED = 'zkgate-insecure-dev-seed';
/**
 * The nice values of a build's threads: its processes below the guard (which keeps the gateway's),
 * once they run the build's code (until its exec, a new process is a copy of its parent, and
 * coreutils' nice starts at the guard's value, for the moment it takes to set it).
 */
const proc = (pid: number, file: string) => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8').trim();
  } catch {
    return '';
  }
};
const cmdline = (pid: number) => proc(pid, 'cmdline');
const comm = (pid: number) => proc(pid, 'comm');
const nices = (guard: number) =>
  processTree(guard)
    .pids.slice(1)
    .filter((pid) => comm(pid) === 'node' && /key-build\.child|circom/.test(cmdline(pid)))
    .flatMap((pid) => processTree(pid).tids)
    .flatMap((tid) => {
      try {
        return [getPriority(tid)];
      } catch {
        return []; // a thread that ended meanwhile
      }
    });

async function until(what: string, ok: () => boolean, ms = 120_000): Promise<void> {
  for (const end = Date.now() + ms; !ok();) {
    assert.ok(Date.now() < end, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("a build in its own process writes the inline setup's key, every thread at its nice value", async () => {
  const shape = 'v1_inclusion_26_1';
  const inline = await new KeyStore(KEY_CACHE).ensure(shape);
  const dir = tempDir('zkgate-key-build-');
  linkKeyCache(dir, ['circuits']); // compiled already: the setup alone
  try {
    const build = startKeyBuild({ dataDir: dir, seed: SEED, shape, nice: 19 });
    const seen = new Set<number>();
    let steps = 0;
    const watch = setInterval(() => {
      for (const n of nices(build.pid!)) seen.add(n);
      if (build.step) steps++;
    }, 5);
    try {
      await build.done;
    } finally {
      clearInterval(watch);
    }
    assert.deepEqual([...seen], [19], 'every thread sampled ran at nice 19');
    assert.ok(steps > 0, 'its steps reached the parent');
    const built = await new KeyStore(dir).ensure(shape);
    assert.equal(built.entry.sha256, inline.entry.sha256);
    assert.ok(readFileSync(built.zkeyPath).equals(readFileSync(inline.zkeyPath)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A process's state letter in /proc (T: stopped). */
const state = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];

test('a build is stopped and continued, raised where the system allows, and killed with its compiler; the next build of the shape goes through', async () => {
  const shape = 'v1_inclusion_26_2';
  const dir = tempDir('zkgate-key-build-');
  const build = startKeyBuild({ dataDir: dir, seed: SEED, shape, nice: 19 });
  try {
    // While circom compiles: the guard, the build and its compiler, a process each.
    await until('the compiler', () => processTree(build.pid!).pids.length > 2);
    const tree = processTree(build.pid!).pids;
    const [guard, ...below] = tree;
    // A signal takes effect when the process next runs: each is looked at until it shows.
    build.pause(true);
    await until('the build and its compiler to stop', () => below.every((pid) => state(pid) === 'T'));
    assert.notEqual(state(guard!), 'T', 'the guard runs on');
    build.pause(false);
    await until('the build and its compiler to go on', () => below.every((pid) => state(pid) !== 'T'));
    // Raising a nice value needs privilege (root here and in CI); where it is refused, nothing changes.
    const raised = build.setNice(10);
    for (const n of nices(build.pid!)) assert.equal(n, raised ? 10 : 19);
    build.pause(true);
    build.kill();
    await assert.rejects(build.done, /the build of v1_inclusion_26_2 was stopped/);
    await until('every process of the build to end', () => tree.every((pid) => !existsSync(`/proc/${pid}`)), 10_000);
    // Its lock and its compiler's private folder were left behind: the next build takes over.
    const again = startKeyBuild({ dataDir: dir, seed: SEED, shape, nice: 19 });
    await again.done;
    assert.equal(new KeyStore(dir).status((await new KeyStore(dir).ensure(shape)).shape), 'ready');
    const leftovers = readdirSync(join(dir, 'circuits', shape)).filter((n) => n.includes('.tmp-'));
    assert.deepEqual(leftovers, []);
  } finally {
    build.kill();
    await build.done.catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a stopped build ends when the process that started it is killed', async () => {
  const dir = tempDir('zkgate-key-build-');
  try {
    // A parent of its own (plain JavaScript from dist/), killed -9 as a gateway might be.
    const url = (m: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist', m)).href);
    const task = JSON.stringify({ dataDir: dir, seed: SEED, shape: 'v1_inclusion_26_3', nice: 19 });
    // It stops the build once its compiler runs, and says so.
    const script = [
      `const { startKeyBuild } = await import(${url('zk/setup/key-build-process.js')});`,
      `const { processTree } = await import(${url('util/thread-priority.js')});`,
      `const b = startKeyBuild(${task});`,
      `const t = setInterval(() => { if (processTree(b.pid).pids.length > 2) { b.pause(true); clearInterval(t); console.log(b.pid); } }, 10);`,
      `setInterval(() => {}, 1000);`,
    ].join('\n');
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    parent.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await until('the build to start and stop', () => /^\d+\n/.test(out));
    const tree = processTree(Number(out.trim())).pids;
    assert.ok(tree.length > 2);
    await until('the build to stop', () => tree.slice(1).every((pid) => state(pid) === 'T'));
    parent.kill('SIGKILL');
    await until('the orphaned build to end', () => tree.every((p) => !existsSync(`/proc/${p}`)), 20_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
