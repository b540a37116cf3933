// A lock between processes that share a data dir (a gateway and `zkgate keys build`, or the test
// suite's files sharing one key cache): a file created exclusively, holding its owner's pid. A lock
// whose owner is gone (killed midway) is taken over, so a crash never leaves a data dir locked.
// Within one process, callers queue on the same lock too.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const POLL_MS = 100;
const held = new Map<string, Promise<void>>();

function ownerAlive(path: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path, 'utf8').trim());
  } catch {
    return false; // gone meanwhile, or not yet written: try again
  }
  return processAlive(pid);
}

/** Whether process `pid` exists (this one included). */
export function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tryTake(path: string): boolean {
  try {
    writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  // A file naming a dead process is a crashed owner's: remove it and retry. (A file being written
  // right now reads as empty: left alone here, see withFileLock.)
  if (!readEmpty(path) && !ownerAlive(path)) rmSync(path, { force: true });
  return false;
}

/**
 * Runs `fn` holding the lock file `path` (created, with its folder, if needed). `onWait` is called
 * once if another holder makes this caller wait.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, onWait?: () => void): Promise<T> {
  // One process's callers first queue among themselves (the file would not stop them).
  while (held.has(path)) {
    onWait?.();
    onWait = undefined;
    await held.get(path);
  }
  let release!: () => void;
  held.set(path, new Promise<void>((r) => (release = r)));
  try {
    mkdirSync(dirname(path), { recursive: true });
    let polls = 0;
    while (!tryTake(path)) {
      if (polls++ === 0) onWait?.();
      // An empty file seen twice is an owner that died between creating and writing it.
      if (polls > 50 && readEmpty(path)) rmSync(path, { force: true });
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    try {
      return await fn();
    } finally {
      rmSync(path, { force: true });
    }
  } finally {
    held.delete(path);
    release();
  }
}

function readEmpty(path: string): boolean {
  try {
    return readFileSync(path, 'utf8') === '';
  } catch {
    return false;
  }
}
