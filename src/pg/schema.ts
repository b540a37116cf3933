// The index database's schema version (--index-db): created and migrated by zkgate at start, in
// one transaction under an advisory lock (two fronts starting together migrate once). A database
// whose schema is newer than this zkgate knows is refused, naming both versions: an older zkgate
// must not write a layout it does not understand. The key-value tables themselves are created
// as the index opens them (kv.ts).
import { AppError } from '../errors.js';
import type { SyncPg } from './sync-pg.js';

/** The schema this zkgate writes. */
export const SCHEMA_VERSION = 1;

/** Each version's statements, applied in order from the database's version to SCHEMA_VERSION. */
const MIGRATIONS: { version: number; statements: string[] }[] = [
  {
    version: 1,
    statements: [
      // The key-value layout of kv.ts: one table per index table, created on open.
      `CREATE TABLE IF NOT EXISTS zkgate_schema (version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())`,
    ],
  },
];

/** Taken while migrating: an arbitrary constant of zkgate's ("zkg8" in ASCII). */
export const MIGRATION_LOCK = 0x7a6b6738;

export class IndexDbSchemaError extends AppError {
  readonly kind = 'index_db_schema';
}

/** Brings the database to SCHEMA_VERSION; returns the version it had (0: none). */
export function migrate(db: SyncPg, zkgateVersion: string): number {
  return inTransaction(db, () => {
    db.query('writer', [{ sql: 'SELECT pg_advisory_xact_lock($1)', params: [MIGRATION_LOCK] }]);
    const [exists] = db.query<{ t: string | null }>('writer', [{ sql: `SELECT to_regclass('zkgate_schema') AS t` }]);
    const rows = exists?.t
      ? db.query<{ version: number }>('writer', [{ sql: 'SELECT max(version) AS version FROM zkgate_schema' }])
      : [];
    const from = rows[0]?.version ?? 0;
    if (from > SCHEMA_VERSION)
      throw new IndexDbSchemaError(
        `the index database ${db.where} has schema version ${from}, written by a newer zkgate; this zkgate (${zkgateVersion}) knows schema versions up to ${SCHEMA_VERSION}: upgrade zkgate, or use another database`,
      );
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      db.query(
        'writer',
        m.statements.map((sql) => ({ sql })),
      );
      db.query('writer', [{ sql: 'INSERT INTO zkgate_schema (version) VALUES ($1)', params: [m.version] }]);
    }
    return from;
  });
}

function inTransaction<T>(db: SyncPg, fn: () => T): T {
  db.query('writer', [{ sql: 'BEGIN' }]);
  try {
    const r = fn();
    db.query('writer', [{ sql: 'COMMIT' }]);
    return r;
  } catch (e) {
    db.send('writer', [{ sql: 'ROLLBACK' }]);
    throw e;
  }
}
