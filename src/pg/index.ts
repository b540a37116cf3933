// Postgres under the followed cluster's index (--index-db): see docs/index-db.md.
export { PgRoot, PgTable, tableName } from './kv.js';
export { WriterLease, WRITER_LOCK } from './lease.js';
export { migrate, IndexDbSchemaError, SCHEMA_VERSION } from './schema.js';
export { IndexDbError, IndexDbUnavailableError, redactDbUrl, SyncPg } from './sync-pg.js';
