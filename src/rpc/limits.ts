// Request-level limits checked at the edge, before any method sees its params: nesting depth
// (validators and error messages recurse; 10,000 levels overflowed the stack) and string length
// (a 5 KB id reached LMDB, whose keys hold 511 bytes). One iterative walk, no recursion.
import { InvalidParamsError } from './errors.js';

export interface ParamLimits {
  /** Deepest nesting of arrays and objects inside `params` (params itself is level 1). */
  maxDepth: number;
  /** Longest string anywhere inside `params`, in UTF-16 code units. */
  maxStringLength: number;
}

interface Frame {
  value: unknown;
  depth: number;
  key: string | number;
  parent: Frame | undefined;
}

function pathOf(f: Frame): string {
  const keys: (string | number)[] = [];
  for (let at: Frame | undefined = f; at; at = at.parent) keys.push(at.key);
  keys.reverse();
  let out = String(keys[0]);
  for (const k of keys.slice(1))
    out +=
      typeof k === 'number'
        ? `[${k}]`
        : /^[A-Za-z_$][\w$]*$/.test(k)
          ? `.${k}`
          : `[${JSON.stringify(k.length > 32 ? k.slice(0, 32) + '…' : k)}]`;
  return out;
}

/** Throws InvalidParamsError naming the first value (by path) that breaks a limit. */
export function checkParamLimits(params: unknown, root: string, limits: ParamLimits): void {
  const stack: Frame[] = [{ value: params, depth: 1, key: root, parent: undefined }];
  while (stack.length > 0) {
    const f = stack.pop()!;
    const v = f.value;
    if (typeof v === 'string') {
      if (v.length > limits.maxStringLength)
        throw new InvalidParamsError(
          `Invalid params: \`${pathOf(f)}\`: string of ${v.length} characters exceeds the limit of ${limits.maxStringLength}`,
        );
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (f.depth > limits.maxDepth) {
      // Named by the param that holds it (params[0]), not a path thousands of levels long.
      let top = f;
      while (top.parent && top.depth > 2) top = top.parent;
      throw new InvalidParamsError(
        `Invalid params: \`${pathOf(top)}\`: nested deeper than the limit of ${limits.maxDepth} levels`,
      );
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: f.depth + 1, key: i, parent: f });
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        if (k.length > limits.maxStringLength)
          throw new InvalidParamsError(
            `Invalid params: \`${pathOf(f)}\`: a key of ${k.length} characters exceeds the limit of ${limits.maxStringLength}`,
          );
        stack.push({ value: (v as Record<string, unknown>)[k], depth: f.depth + 1, key: k, parent: f });
      }
    }
  }
}
