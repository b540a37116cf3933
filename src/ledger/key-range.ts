// LMDB range bounds for every key that starts with a prefix (the indexes' "all entries of X").
/** `{start, end}` where end is the prefix + 1 as a big-endian number; no end after an all-0xff prefix. */
export function prefixRange(prefix: Uint8Array): { start: Buffer; end?: Buffer } {
  const start = Buffer.from(prefix);
  const end = Buffer.from(prefix);
  let i = end.length - 1;
  while (i >= 0 && end[i] === 0xff) end[i--] = 0;
  if (i < 0) return { start };
  end[i]! += 1;
  return { start, end };
}
