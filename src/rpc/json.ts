// JSON on the wire. bigint values (u64 lamports, supplies, slots) are written as exact integer
// literals, never rounded through a JS number.

export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError) || !/BigInt/i.test(e.message)) throw e;
  }
  return write(value);
}

function write(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return write((v as { toJSON(): unknown }).toJSON());
  if (Array.isArray(v)) {
    return '[' + v.map((x) => (x === undefined || typeof x === 'function' ? 'null' : write(x))).join(',') + ']';
  }
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
    parts.push(JSON.stringify(k) + ':' + write(x));
  }
  return '{' + parts.join(',') + '}';
}
