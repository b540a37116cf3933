// Secrets zkgate makes for itself (the API key, the gRPC token): generated once into the data
// dir, owner-readable only, and read back on later starts so clients keep working across restarts.
import { readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';

export interface StoredSecret {
  value: string;
  source: 'stored' | 'generated';
}

/** The secret kept in `file`, or a new one from `make`, written atomically with mode 0600. */
export async function loadOrCreateSecret(file: string, make: () => string): Promise<StoredSecret> {
  let stored: string | undefined;
  try {
    stored = (await readFile(file, 'utf8')).trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (stored) return { value: stored, source: 'stored' };
  const value = make();
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, value + '\n', 0o600);
  return { value, source: 'generated' };
}

/** The secret kept in `file`, or undefined when there is none (a command-line client's lookup). */
export function readSecret(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
