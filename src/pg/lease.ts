// Which process writes the index (--index-db): the one holding a Postgres advisory lock on its
// writer connection. The lock lives as long as that session: a writer killed -9, or cut off, loses
// it with its connection, and another process's next try takes it. Every commit of the writer is
// fenced: the transaction checks, before COMMIT, that its own session still holds the lock, so a
// process that lost it (its connection was replaced) cannot commit one more block after another
// took over.
import type { Statement } from './bridge.worker.js';
import type { SyncPg } from './sync-pg.js';

/** The writer's advisory lock key ("zkgw" in ASCII). */
export const WRITER_LOCK = 0x7a6b6777;

/** This session holds the lock: pg_locks splits a bigint key into classid (high) and objid (low), objsubid 1. */
const HELD_HERE = `EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = ${WRITER_LOCK} AND objsubid = 1 AND pid = pg_backend_pid() AND granted)`;

export class WriterLease {
  /** Before COMMIT in the writer's transactions: fails the transaction unless this session holds the lock. */
  readonly fence: Statement = {
    sql: `DO $$ BEGIN IF NOT ${HELD_HERE} THEN RAISE EXCEPTION 'this process no longer holds the index writer''s lock: another process writes the index'; END IF; END $$`,
  };

  constructor(private readonly db: SyncPg) {}

  /** Takes the lock if no other session holds it; true when this session holds it now. */
  tryAcquire(): boolean {
    // Taken twice, it would need two unlocks: only when this session does not hold it already.
    if (this.held()) return true;
    const [r] = this.db.query<{ ok: boolean }>('writer', [
      { sql: 'SELECT pg_try_advisory_lock($1) AS ok', params: [WRITER_LOCK] },
    ]);
    return r?.ok === true;
  }

  /** Whether this session (the writer connection as it is now) holds the lock. */
  held(): boolean {
    const [r] = this.db.query<{ held: boolean }>('writer', [{ sql: `SELECT ${HELD_HERE} AS held` }]);
    return r?.held === true;
  }

  /** Gives the lock up (a clean stop, or a writer that found it lost). */
  release(): void {
    this.db.send('writer', [{ sql: 'SELECT pg_advisory_unlock_all()' }]);
  }
}
