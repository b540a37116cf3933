// API keys: configured, or generated once and kept in the data dir. Presented keys are hashed and
// compared against every stored digest in constant time; only a short key id ever reaches logs.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { loadOrCreateSecret } from '../util/secret-file.js';
import { UnauthorizedError } from './errors.js';

export const API_KEY_FILE = 'api-key';

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/** A stable, non-secret name for a key: a prefix of its SHA-256, safe to log and to label metrics with. */
export const keyId = (key: string): string => 'key-' + digest(key).subarray(0, 4).toString('hex');

export type KeySource = 'configured' | 'generated' | 'stored';

export class ApiKeys {
  private readonly digests: Buffer[];
  private readonly ids: string[];
  /** Per digest: whether it is an admin key's. Decided by the whole key, never by its short id. */
  private readonly admin: boolean[];

  /** `admin`: the --admin-keys, accepted as API keys too. */
  constructor(keys: readonly string[], admin: readonly string[] = []) {
    if (keys.length === 0) throw new Error('at least one API key is required');
    const all = [...new Set([...keys, ...admin])];
    this.digests = all.map(digest);
    this.ids = all.map(keyId);
    this.admin = all.map((k) => admin.includes(k));
  }

  get keyIds(): readonly string[] {
    return this.ids;
  }

  /**
   * The key id of a valid key, and whether that key is an admin key (compared whole: two keys may
   * share an id, a 4-byte prefix); throws UnauthorizedError otherwise.
   */
  identify(presented: string | null | undefined): { id: string; admin: boolean } {
    if (presented === null || presented === undefined || presented === '') {
      throw new UnauthorizedError('Unauthorized: missing API key; pass it as the query parameter `api-key`');
    }
    const d = digest(presented);
    let match = -1;
    // No early exit: every digest is compared, whichever matches.
    for (let i = 0; i < this.digests.length; i++) {
      if (timingSafeEqual(d, this.digests[i]!) && match < 0) match = i;
    }
    if (match < 0) throw new UnauthorizedError('Unauthorized: invalid API key');
    return { id: this.ids[match]!, admin: this.admin[match]! };
  }

  /** The key id of a valid key; throws UnauthorizedError otherwise. */
  verify(presented: string | null | undefined): string {
    return this.identify(presented).id;
  }
}

export interface LoadedKeys {
  keys: ApiKeys;
  source: KeySource;
  /** The key itself when zkgate made or keeps it (the operator must be told it); never for configured keys. */
  ownKey?: string;
  file?: string;
}

/** Configured keys win; otherwise reuse the key stored in the data dir, or generate and store one. */
export async function loadApiKeys(
  configured: readonly string[],
  dataDir: string,
  admin: readonly string[] = [],
): Promise<LoadedKeys> {
  if (configured.length > 0) return { keys: new ApiKeys(configured, admin), source: 'configured' };
  const file = join(dataDir, API_KEY_FILE);
  const { value, source } = await loadOrCreateSecret(file, randomUUID);
  return { keys: new ApiKeys([value], admin), source, ownKey: value, file };
}
