// Reading keys ahead: a table of the Postgres index (pg/kv.ts) reads a list of keys in one
// statement, so a caller about to read them one by one (a proof's path, a page of accounts, a
// run's balances) names them first; on LMDB, whose reads cost no round trip, this does nothing
// (and `keys`, given as a function, is not even listed).
type Table = object;

export function readAhead(table: Table, keys: Uint8Array[] | (() => Uint8Array[])): void {
  const prefetch = (table as { prefetch?: (keys: Uint8Array[]) => void }).prefetch;
  if (!prefetch) return;
  const list = typeof keys === 'function' ? keys() : keys;
  if (list.length > 1) prefetch.call(table, list);
}
