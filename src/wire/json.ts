// JSON on the wire. bigint values (u64 lamports, supplies, slots) are written as exact integer
// literals, never rounded through a JS number.

const BIGINT_MARK = /"\\u0000n(-?\d+)"/g;

/**
 * A u64 for the wire: a plain number when it is exactly representable, else a bigint (written as
 * an exact integer literal). Answers made of plain numbers take the fast path of stringifyJson.
 */
export const u64 = (v: bigint): number | bigint => (v <= 9007199254740991n && v >= -9007199254740991n ? Number(v) : v);

export function stringifyJson(value: unknown): string {
  // Plain JSON.stringify first (answers hold bigints only for values beyond 2^53); then native
  // JSON.stringify writing bigints as marked strings ("\u0000n<digits>") and unquoting them; where
  // a string of the value is spelled like a marker, the exact writer.
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
  return withBigintsMarked(value) ?? write(value);
}

/**
 * JSON.stringify with bigints written through BigInt.prototype.toJSON, defined for this call only
 * (native stringify asks a bigint for toJSON, as it does an object): a replacer function would be
 * called for every value of the answer, a third slower for a block of 50 transactions. Undefined
 * when more markers were found than bigints written (a string spelled like one).
 */
function withBigintsMarked(value: unknown): string | undefined {
  let written = 0;
  const proto = BigInt.prototype as { toJSON?: (this: bigint) => string };
  proto.toJSON = function () {
    written++;
    return `\u0000n${this}`;
  };
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    if (e instanceof TypeError) return undefined;
    throw e;
  } finally {
    delete proto.toJSON;
  }
  let found = 0;
  const out = text.replace(BIGINT_MARK, (_m, digits: string) => {
    found++;
    return digits;
  });
  return found === written ? out : undefined;
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

const BIG = '\u0000bigint:';

/**
 * JSON.parse that keeps integers beyond 2^53 exact (as bigint): an upstream's u64 values
 * (rentEpoch 18446744073709551615, lamports) must be relayed as they were sent.
 */
export function parseJsonExact(text: string): unknown {
  // Integer literals only: not digits of a fraction or an exponent (0.00030000000000000003). Strings
  // are matched as runs (not a character at a time): account files carry megabytes of base64.
  let big = false;
  const marked = text.replace(/"[^"\\]*(?:\\.[^"\\]*)*"|(?<![\d.eE+-])-?\d{16,}(?![.eE\d])/g, (m) => {
    if (m.startsWith('"') || Number.isSafeInteger(Number(m))) return m;
    big = true;
    // The marker goes in as a JSON escape (a raw control character is not valid inside a JSON string).
    return `"\\u0000bigint:${m}"`;
  });
  if (!big) return JSON.parse(text);
  return JSON.parse(marked, (_k, v) => (typeof v === 'string' && v.startsWith(BIG) ? BigInt(v.slice(BIG.length)) : v));
}
