// Reading keys ahead: a table of the Postgres index (pg/kv.ts) reads a list of keys in one
// statement, so a caller about to read them one by one (a proof's path, a page of accounts, a
// run's balances) names them first; on LMDB, whose reads cost no round trip, this does nothing.
type Table = object;

export function readAhead(table: Table, keys: Uint8Array[]): void {
  if (keys.length > 1) (table as { prefetch?: (keys: Uint8Array[]) => void }).prefetch?.(keys);
}
