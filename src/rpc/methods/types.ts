import { fail, type Check } from '../validate.js';

export interface CallContext {
  requestId: string;
  keyId: string;
  /** Whether the caller may call admin methods (src/rpc/admin.ts). */
  admin: boolean;
}

/** One JSON-RPC method: its params are validated at the edge, then `call` gets the typed value. */
export interface MethodDef<P = unknown, R = unknown> {
  name: string;
  params: Check<P>;
  /** Params may hold strings up to the body limit (account data), not the edge's string limit. */
  largeStrings?: boolean;
  /** Changes the chain for every caller (cheatcodes, airdrops): admin callers only (src/rpc/admin.ts). */
  admin?: boolean;
  call(params: P, ctx: CallContext): Promise<R> | R;
}

export const defineMethod = <P, R>(def: MethodDef<P, R>): MethodDef => def as unknown as MethodDef;

/** Params for methods that take none: absent, null or an empty array. */
export const noParams: Check<undefined> = (v, path) =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) ? undefined : fail(path, 'no params', v);
