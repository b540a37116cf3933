// Params of the Photon methods, checked as Photon's serde types check them (its request structs,
// field order, `deny_unknown_fields`, `#[serde(default)]`, and its base58 types' messages), so a
// bad request gets Photon's -32602 text. Photon appends serde's "at line L column C"; zkgate names
// the field instead ("at `params.owner`"), which says the same to a person and is stable.
import { decodeBase58 } from '../../../zk/base58.js';
import { InvalidParamsError } from '../../errors.js';

export type Parse<T> = (v: unknown, path: string) => T;

const err = (msg: string, path: string): never => {
  throw new InvalidParamsError(`${msg} at \`${path}\``);
};

/** serde's description of an unexpected JSON value. */
function unexpected(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'sequence';
  switch (typeof v) {
    case 'boolean':
      return `boolean \`${v}\``;
    case 'number':
      return Number.isInteger(v) ? `integer \`${v}\`` : `floating point \`${v}\``;
    case 'bigint':
      return `integer \`${v}\``;
    case 'string':
      // serde quotes the whole string; past 128 characters zkgate cuts it.
      return `string ${JSON.stringify(v.length > 128 ? v.slice(0, 125) + '...' : v)}`;
    default:
      return 'map';
  }
}

const typeError = (v: unknown, expected: string, path: string) =>
  err(`invalid type: ${unexpected(v)}, expected ${expected}`, path);

const B58 = /^[1-9A-HJ-NP-Za-km-z]*$/;

function base58Bytes(
  v: unknown,
  path: string,
  bad: (s: string) => string,
  wrongSize: string,
  size: number,
  maxLen: number,
) {
  if (typeof v !== 'string') return typeError(v, 'a base58 encoded string', path);
  if (v.length > maxLen) return err(wrongSize, path);
  if (!B58.test(v)) return err(bad(v), path);
  const b = decodeBase58(v);
  if (b.length !== size) return err(wrongSize, path);
  return b;
}

/** Photon's Hash: 32 bytes of base58. */
export const hash: Parse<Uint8Array> = (v, path) =>
  base58Bytes(v, path, () => 'Invalid hash input', 'String is the wrong size', 32, 44);

/** Photon's SerializablePubkey. */
export const pubkey: Parse<Uint8Array> = (v, path) =>
  base58Bytes(v, path, () => 'Invalid Base58 string', 'String is the wrong size', 32, 44);

/** Photon's SerializableSignature (64 bytes). */
export const signature: Parse<Uint8Array> = (v, path) =>
  base58Bytes(
    v,
    path,
    () => 'failed to decode string to signature',
    'string decoded to wrong size for signature',
    64,
    88,
  );

/** Photon's Base58String (any length: token cursors, memcmp bytes), with bs58's messages. */
export const base58String: Parse<Uint8Array> = (v, path) => {
  if (typeof v !== 'string') return typeError(v, 'a base58 encoded string', path);
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c.charCodeAt(0) > 127) return err(`provided string contained non-ascii character starting at byte ${i}`, path);
    if (!B58.test(c)) return err(`provided string contained invalid character '${c}' at byte ${i}`, path);
  }
  return decodeBase58(v);
};

export const string: Parse<string> = (v, path) => (typeof v === 'string' ? v : typeError(v, 'a string', path));

/** An unsigned integer of `bits` bits (JSON numbers only, as serde reads them). */
export function unsigned(bits: 16 | 32 | 64): Parse<number> {
  const max = bits === 64 ? Number.MAX_SAFE_INTEGER : 2 ** bits - 1;
  return (v, path) => {
    if (typeof v !== 'number') return typeError(v, `u${bits}`, path);
    if (!Number.isInteger(v)) return typeError(v, `u${bits}`, path);
    if (v < 0 || v > max) return err(`invalid value: integer \`${v}\`, expected u${bits}`, path);
    return v;
  };
}

/** Photon's Limit: a u64 of at most 1000. */
export const limit: Parse<number> = (v, path) => {
  const n = unsigned(64)(v, path);
  if (n > 1000) return err(`invalid value: integer \`${n}\`, expected a value less than or equal to 1000`, path);
  return n;
};

export function seq<T>(item: Parse<T>): Parse<T[]> {
  return (v, path) => (Array.isArray(v) ? v.map((x, i) => item(x, `${path}[${i}]`)) : typeError(v, 'a sequence', path));
}

/** Option<T>: null reads as absent. */
export const opt =
  <T>(p: Parse<T>): Parse<T | undefined> =>
  (v, path) =>
    v === null || v === undefined ? undefined : p(v, path);

interface FieldSpec<T, R extends boolean = boolean> {
  parse: Parse<T>;
  /** Required (a non-Option field). */
  required?: R;
  /** `#[serde(default)]`: may be left off the end of a positional array. */
  default?: boolean;
  /** A defaulted non-Option field: absent means its default, but null is a type error. */
  notNull?: boolean;
}

export const field = <T, const R extends boolean = false>(
  parse: Parse<T>,
  o: { required?: R; default?: boolean; notNull?: boolean } = {},
): FieldSpec<T, R> => ({ parse, ...o });

type Fields = Record<string, FieldSpec<unknown>>;
type Out<F extends Fields> = {
  [K in keyof F]: F[K] extends FieldSpec<infer T, infer R> ? (R extends true ? T : T | undefined) : never;
};

/**
 * A serde struct: an object with its camelCase keys, or an array of its fields in order. Unknown
 * keys fail when `deny`; a field without `default` must be present in array form (it may be null).
 */
export function struct<F extends Fields>(name: string, fields: F, deny: boolean): Parse<Out<F>> {
  const names = Object.keys(fields);
  const expectedList =
    names.length === 1
      ? `\`${names[0]}\``
      : names.length === 2
        ? `\`${names[0]}\` or \`${names[1]}\``
        : `one of ${names.map((n) => `\`${n}\``).join(', ')}`;
  const minLength = names.reduce((m, n, i) => (fields[n]!.default ? m : i + 1), 0);
  return (v, path) => {
    const out: Record<string, unknown> = {};
    let src: Record<string, unknown>;
    if (Array.isArray(v)) {
      if (v.length > names.length) return err('trailing characters', path);
      if (v.length < minLength)
        return err(
          `invalid length ${v.length}, expected struct ${name} with ${names.length} element${names.length === 1 ? '' : 's'}`,
          path,
        );
      src = Object.fromEntries(v.map((x, i) => [names[i]!, x]));
    } else if (v !== null && typeof v === 'object') {
      src = v as Record<string, unknown>;
      if (deny)
        for (const k of Object.keys(src))
          if (!Object.hasOwn(fields, k)) return err(`unknown field \`${k}\`, expected ${expectedList}`, path);
    } else return typeError(v, `struct ${name}`, path);
    for (const n of names) {
      const f = fields[n]!;
      const x = src[n];
      if (x === undefined || (x === null && !f.required && !f.notNull)) {
        if (f.required && x === undefined) return err(`missing field \`${n}\``, path);
        out[n] = undefined;
        continue;
      }
      out[n] = f.parse(x, `${path}.${n}`);
    }
    return out as Out<F>;
  };
}
