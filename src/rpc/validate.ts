// Declarative validators for JSON-RPC params: each returns the typed value or throws
// InvalidParamsError with the path of the offending field (e.g. `params.hashes[2]`).
import { InvalidParamsError } from './errors.js';

/** The largest u64: lamports, token amounts, the supply. */
export const U64_MAX = 2n ** 64n - 1n;

export type Check<T> = (value: unknown, path: string) => T;
export type Infer<C> = C extends Check<infer T> ? T : never;

export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `string ${JSON.stringify(value.length > 48 ? value.slice(0, 45) + '...' : value)}`;
    case 'number':
    case 'boolean':
      return `${typeof value} ${String(value)}`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/**
 * A value as an error message quotes it: its JSON, cut to 128 characters (the edge bounds depth
 * and string length, so this never recurses far or copies much).
 */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 128 ? text.slice(0, 125) + '...' : text;
}

export function fail(path: string, expected: string, value: unknown): never {
  throw new InvalidParamsError(`Invalid params: \`${path}\`: expected ${expected}, got ${describe(value)}`);
}

export const string: Check<string> = (v, path) => (typeof v === 'string' ? v : fail(path, 'a string', v));
export const boolean: Check<boolean> = (v, path) => (typeof v === 'boolean' ? v : fail(path, 'a boolean', v));

export function array<T>(item: Check<T>, what = 'an array'): Check<T[]> {
  return (v, path) => {
    if (!Array.isArray(v)) return fail(path, what, v);
    return v.map((x, i) => item(x, `${path}[${i}]`));
  };
}

export function nullable<T>(check: Check<T>): Check<T | null> {
  return (v, path) => (v === null ? null : check(v, path));
}

export function oneOf<const T extends string>(values: readonly T[]): Check<T> {
  return (v, path) =>
    typeof v === 'string' && (values as readonly string[]).includes(v)
      ? (v as T)
      : fail(path, `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`, v);
}

interface Field<T, R extends boolean> {
  check: Check<T>;
  required: R;
}

export const required = <T>(check: Check<T>): Field<T, true> => ({ check, required: true });
export const optional = <T>(check: Check<T>): Field<T, false> => ({ check, required: false });

type Shape = Record<string, Field<unknown, boolean>>;
type Simplify<T> = { [K in keyof T]: T[K] };
type FromShape<S extends Shape> = Simplify<
  { [K in keyof S as S[K]['required'] extends true ? K : never]: S[K] extends Field<infer T, boolean> ? T : never } & {
    [K in keyof S as S[K]['required'] extends true ? never : K]?: S[K] extends Field<infer T, boolean> ? T : never;
  }
>;

/**
 * An object with known fields. `unknown: 'deny'` rejects other keys (serde's deny_unknown_fields,
 * as Photon and DAS do); `'ignore'` drops them (as Jito's config does).
 */
export function object<S extends Shape>(shape: S, unknown: 'deny' | 'ignore'): Check<FromShape<S>> {
  const known = Object.keys(shape);
  return (v, path) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return fail(path, 'an object', v);
    const src = v as Record<string, unknown>;
    if (unknown === 'deny') {
      for (const key of Object.keys(src)) {
        if (!Object.hasOwn(shape, key)) {
          throw new InvalidParamsError(
            `Invalid params: unknown field \`${path}.${key}\`, expected one of ${known.map((k) => `\`${k}\``).join(', ')}`,
          );
        }
      }
    }
    const out: Record<string, unknown> = {};
    for (const key of known) {
      const field = shape[key]!;
      const value = src[key];
      if (value === undefined) {
        if (field.required) throw new InvalidParamsError(`Invalid params: missing field \`${path}.${key}\``);
        continue;
      }
      out[key] = field.check(value, `${path}.${key}`);
    }
    return out as FromShape<S>;
  };
}
