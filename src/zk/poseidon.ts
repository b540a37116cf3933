// circom-compatible Poseidon over BN254 (circomlib constants, x^5, 8 full rounds). Two
// implementations: circomlibjs' WebAssembly build (always there; ≈ 90 µs per 2-input hash on these
// machines) and the native addon's (C++ Montgomery arithmetic, several times faster; batches of
// eight in the lanes of AVX-512 IFMA where the CPU has it, about five times faster again), used when
// the addon is built and gives circomlibjs' known answers for every width at load, alone and in
// batches (KNOWN_ANSWERS; a test derives them again from circomlibjs); ZKGATE_POSEIDON=wasm forces
// WebAssembly, ZKGATE_NATIVE_SIMD=0 the scalar native path. Ingest and tree updates hash a lot (26
// levels per V1 leaf), hence the choice. circomlibjs is loaded only when the WebAssembly build is
// used: building it (its curve, with primality tests) took ~0.7 s of every start.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Poseidon as WasmPoseidon } from 'circomlibjs';
import { bytesToBigInt, FR } from './field.js';
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

/**
 * 32-byte big-endian field elements in and out of a Buffer, through hex: a string and a bigint
 * each, where limb arithmetic made a dozen bigints (ingest hashes enough for that garbage to count).
 */
function writeBe(buf: Buffer, offset: number, v: bigint): void {
  buf.write(v.toString(16).padStart(64, '0'), offset, 32, 'hex');
}
const readBe = (buf: Uint8Array, offset: number): bigint => bytesToBigInt(buf.subarray(offset, offset + 32));

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
  // The constants go in little-endian, as the addon's other field elements do. They are written
  // from their hex digits (24,000 of them at every start: through a bigint each cost 30 ms).
  const bytes = (hex: string[]) => {
    const b = Buffer.alloc(32 * hex.length);
    hex.forEach((h, i) => {
      const digits = h.startsWith('0x') ? h.slice(2) : BigInt(h).toString(16);
      if (digits.length > 64 || b.write(digits.padStart(64, '0'), 32 * i, 32, 'hex') !== 32)
        throw new Error(`a Poseidon constant is not a 32-byte hex number: ${h}`);
      b.subarray(32 * i, 32 * i + 32).reverse();
    });
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
      g.forEach((x, j) => writeBe(buf, 32 * (i * arity + j), x));
    });
    const out = addon.poseidon(buf, arity, true);
    return groups.map((_, i) => readBe(out, 32 * i));
  };
  return { name: 'native', one: (inputs) => many([inputs])[0]!, many };
}

/** Why the native Poseidon is not used (undefined when it is). */
export let nativePoseidonUnavailable: string | undefined;

/** The inputs of the load-time check for `n` inputs: spread across the field, up to r − 1. */
export function knownAnswerInputs(n: number): bigint[] {
  return Array.from({ length: n }, (_, i) => (FR - 1n - BigInt(i) * 0x1234567n * BigInt(n)) % FR);
}

/** circomlibjs' Poseidon of knownAnswerInputs(n), for n = 1..16. */
export const KNOWN_ANSWERS: readonly bigint[] = [
  0x0771743e7ade0f56f51d16544f60059ba3029ba556d63697612900fe5f020b16n,
  0x1e0734448f54bf60a510881e9d189d528c13e1a8280bdf018f70b25bd579aa49n,
  0x02e52bf0ca7b5e852ca47f5c3bcfa4f76f5fc14bf3e1560a5283d64dabd3dce9n,
  0x228d900545c3800ea26f488e742d3702215560acc9157c9190386b698f22a086n,
  0x0fa9050090d1c74a952d8f5ef12fd0f4c3b26642cbf39871865a743ab48cb895n,
  0x1f70dbc61717dea57136b29f57621d0b292a8814977c59b3e56c03796132b779n,
  0x268368d225bdd0f082dc84f09510cc98c6b1906d799d399611e09fd57800f682n,
  0x16ad0646965a0f99da9b9276038921d6575fed51e9d4a912e22cd83d2c9c766fn,
  0x23cecee00093fc81bd9f527847404a60c31bec8d01841ff3b3de59638ba47310n,
  0x2788123e541f1ec29fd65352e27429f4f2d1db0790be18d4a6ae3974aeebcdecn,
  0x177c085a81d000d3521af9bd029f498f6ec5d2dc167236812b215d3d90d095a6n,
  0x2021ce628cb964dc16978edb2bf6712740be055a10d5bb1c74b5c7bfe2f4e1d9n,
  0x1403130546fa1d700470b0fc8ef49a6d07f98ceb3fb9a56aa4268c8f7e69912an,
  0x0694ad5cfe825c05c61695a874d6ffefd4931b03fc8aba9469c21db2b181ec1bn,
  0x304104daaff002d83c146cf635018ce7231ef4e2a2121a66c44a791a04329869n,
  0x2af95bf02a842edd337a5ec6eac898f82d52f4eb326af92447bb7bf964223e8en,
];

/** The native implementation when it is built and gives the known answers; else why not. */
function nativeChoice(): Impl | string {
  if (process.env.ZKGATE_POSEIDON === 'wasm') return 'ZKGATE_POSEIDON=wasm';
  const status = loadNativeAddon();
  if (!status.ok) return status.reason;
  if (typeof status.addon.poseidon !== 'function') return 'the native addon predates Poseidon';
  try {
    const native = nativeImpl(status.addon);
    for (let n = 1; n <= 16; n++) {
      if (native.one(knownAnswerInputs(n)) !== KNOWN_ANSWERS[n - 1])
        return `the native Poseidon disagrees with circomlibjs for ${n} inputs`;
      // Nine groups: eight in the lanes of the IFMA path where the addon has it, one alone.
      if (native.many(Array.from({ length: 9 }, () => knownAnswerInputs(n))).some((h) => h !== KNOWN_ANSWERS[n - 1]))
        return `the native Poseidon's batches disagree with circomlibjs for ${n} inputs`;
    }
    return native;
  } catch (e) {
    return `the native Poseidon failed to load: ${(e as Error).message}`;
  }
}

async function wasmPoseidon(): Promise<Impl> {
  const { buildPoseidon } = await import('circomlibjs');
  return wasmImpl((await buildPoseidon()) as WasmPoseidon);
}

/** Loads the Poseidon implementation once per thread; later calls return the same hasher. */
export function loadPoseidon(): Promise<Hasher> {
  loading ??= (async () => {
    const native = nativeChoice();
    if (typeof native === 'string') nativePoseidonUnavailable = native;
    impl = typeof native === 'string' ? await wasmPoseidon() : native;
    return impl.one;
  })();
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
