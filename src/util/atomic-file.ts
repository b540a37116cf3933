// Crash-safe file writes: a reader sees the old content or the new, never a torn file.
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
