// Crash-safe file writes: a reader sees the old content or the new, never a torn file.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Writes through `write` into a temporary file, syncs it, renames it over `path`, syncs the folder. */
export async function writeAtomic(path: string, write: (fh: FileHandle) => Promise<void>, mode = 0o644): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fh = await open(tmp, 'w', mode);
  try {
    await write(fh);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await unlink(tmp).catch(() => {});
    throw e;
  }
  await fh.close();
  await rename(tmp, path);
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

export const writeFileAtomic = (path: string, data: string | Uint8Array, mode = 0o644): Promise<void> =>
  writeAtomic(path, (fh) => fh.writeFile(data), mode);

/** The same, synchronously (for writes that must be ordered with the caller's other work). */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, mode = 0o644): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    const fd = openSync(tmp, 'w', mode);
    try {
      writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
