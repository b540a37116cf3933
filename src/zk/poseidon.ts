// circom-compatible Poseidon over BN254 (circomlib constants, x^5, 8 full rounds). Two
// implementations: circomlibjs' WebAssembly build (always there; ≈ 90 µs per 2-input hash on these
// machines) and the native addon's (C++ Montgomery arithmetic, several times faster), used when the
// addon is built and agrees with the WebAssembly one on a spread of inputs at load; ZKGATE_POSEIDON=wasm
// forces WebAssembly. Ingest and tree updates hash a lot (26 levels per V1 leaf), hence the choice.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildPoseidon, type Poseidon as WasmPoseidon } from 'circomlibjs';
import { FR } from './field.js';
import { loadNativeAddon, type NativeAddon } from './native-addon.js';

export type Hasher = (inputs: readonly bigint[]) => bigint;

interface Impl {
  name: 'native' | 'wasm';
  one: Hasher;
  /** Hashes of many groups of the same arity (a Merkle level in one call for the native one). */
  many: (groups: readonly (readonly bigint[])[]) => bigint[];
}

let loading: Promise<Hasher> | undefined;
let impl: Impl | undefined;

function checkInputs(inputs: readonly bigint[]): void {
  if (inputs.length < 1 || inputs.length > 16)
    throw new RangeError(`Poseidon takes 1 to 16 inputs, got ${inputs.length}`);
  for (const x of inputs) if (x < 0n || x >= FR) throw new RangeError(`Poseidon input is not a field element: ${x}`);
}

function wasmImpl(p: WasmPoseidon): Impl {
  const one: Hasher = (inputs) => {
    checkInputs(inputs);
    return p.F.toObject(p(inputs as bigint[]));
  };
  return { name: 'wasm', one, many: (groups) => groups.map(one) };
}

/** 32-byte little-endian field elements in and out of a Buffer. */
function writeLe(buf: Buffer, offset: number, v: bigint): void {
  buf.write(v.toString(16).padStart(64, '0'), offset, 32, 'hex');
  buf.subarray(offset, offset + 32).reverse();
}
function readLe(buf: Uint8Array, offset: number): bigint {
  return BigInt(
    '0x' +
      Buffer.from(buf.subarray(offset, offset + 32))
        .reverse()
        .toString('hex'),
  );
}

/** circomlib's partial rounds per width t = 2..17 (from its Poseidon implementations). */
const PARTIAL_ROUNDS = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68];

function nativeImpl(addon: NativeAddon): Impl {
  const dir = dirname(createRequire(import.meta.url).resolve('circomlibjs'));
  const { C, S, M, P } = JSON.parse(readFileSync(join(dir, '..', 'src', 'poseidon_constants_opt.json'), 'utf8')) as {
    C: string[][];
    S: string[][];
    M: string[][][];
    P: string[][][];
  };
  const bytes = (hex: string[]) => {
    const b = Buffer.alloc(32 * hex.length);
    hex.forEach((h, i) => writeLe(b, 32 * i, BigInt(h)));
    return b;
  };
  for (let t = 2; t <= 17; t++)
    addon.poseidonSetup(
      t,
      8,
      PARTIAL_ROUNDS[t - 2]!,
      bytes(C[t - 2]!),
      bytes(S[t - 2]!),
      bytes(M[t - 2]!.flat()),
      bytes(P[t - 2]!.flat()),
    );
  const many = (groups: readonly (readonly bigint[])[]) => {
    if (groups.length === 0) return [];
    const arity = groups[0]!.length;
    const buf = Buffer.alloc(32 * arity * groups.length);
    groups.forEach((g, i) => {
      if (g.length !== arity) throw new RangeError('Poseidon groups of one call must have the same arity');
      checkInputs(g);
      g.forEach((x, j) => writeLe(buf, 32 * (i * arity + j), x));
    });
    const out = addon.poseidon(buf, arity);
    return groups.map((_, i) => readLe(out, 32 * i));
  };
  return { name: 'native', one: (inputs) => many([inputs])[0]!, many };
}

/** Why the native Poseidon is not used (undefined when it is). */
export let nativePoseidonUnavailable: string | undefined;

function chooseImpl(wasm: Impl): Impl {
  if (process.env.ZKGATE_POSEIDON === 'wasm') {
    nativePoseidonUnavailable = 'ZKGATE_POSEIDON=wasm';
    return wasm;
  }
  const status = loadNativeAddon();
  if (!status.ok || typeof status.addon.poseidon !== 'function') {
    nativePoseidonUnavailable = status.ok ? 'the native addon predates Poseidon' : status.reason;
    return wasm;
  }
  try {
    const native = nativeImpl(status.addon);
    // Agreement on every width, with inputs across the field, before trusting it.
    for (let n = 1; n <= 16; n++) {
      const inputs = Array.from({ length: n }, (_, i) => (FR - 1n - BigInt(i) * 0x1234567n * BigInt(n)) % FR);
      if (native.one(inputs) !== wasm.one(inputs)) {
        nativePoseidonUnavailable = `the native Poseidon disagrees with circomlibjs for ${n} inputs`;
        return wasm;
      }
    }
    return native;
  } catch (e) {
    nativePoseidonUnavailable = `the native Poseidon failed to load: ${(e as Error).message}`;
    return wasm;
  }
}

/** Loads the Poseidon implementation once per thread; later calls return the same hasher. */
export function loadPoseidon(): Promise<Hasher> {
  loading ??= buildPoseidon().then((p: WasmPoseidon) => {
    impl = chooseImpl(wasmImpl(p));
    return impl.one;
  });
  return loading;
}

/** Which implementation hashes: 'native' or 'wasm'. */
export const poseidonImpl = (): 'native' | 'wasm' | undefined => impl?.name;

/** The loaded hasher; throws if loadPoseidon() has not resolved yet in this thread. */
export function poseidon(inputs: readonly bigint[]): bigint {
  if (!impl) throw new Error('Poseidon is not loaded: await loadPoseidon() first');
  return impl.one(inputs);
}

/** Hashes of many input groups of one arity, in one native call when native (e.g. a tree level). */
export function poseidonMany(groups: readonly (readonly bigint[])[]): bigint[] {
  if (!impl) throw new Error('Poseidon is not loaded: await loadPoseidon() first');
  return impl.many(groups);
}
