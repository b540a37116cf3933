// The native prover addon (native/, built by `native/build.mjs` during install): loading it, the
// reason when it cannot be loaded, and the self-check that decides whether `--prover-backend auto`
// may use it. Values cross the boundary as little-endian 32-byte canonical integers.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bn254 } from '@noble/curves/bn254.js';
import { FP, FR, mod, modPow } from './field.js';
import type { ProofPoints } from './proof-format.js';
import { rootOfUnity } from './setup/dev-setup.js';

/** An opaque handle to a parsed key living in native memory. */
export type NativeKey = { readonly __nativeKey: unique symbol };
/** How a proof is blinded (native/src/groth16.hpp's Blinding); served proofs are rerandomized. */
export type Blinding = 'snarkjs' | 'rerandomized';
/** A client's proof, or background work that steps aside for clients' (the forester's batch proofs). */
export type ProofPriority = 'client' | 'background';

export interface NativeAddon {
  /**
   * Parses a zkey, then builds the fixed-base tables that fit in `tableBudgetBytes` (on a thread
   * of their own when `background`: the key proves without them until they are ready).
   */
  loadKey(
    zkey: Uint8Array,
    tableBudgetBytes: number,
    threads: number,
    background: boolean,
    /** Registers the key for the process's other threads under this name ('' for none). */
    cacheKey: string,
    /** The tables' file: mapped when it holds this key's tables, else written once they are built. */
    tablesPath?: string,
  ): NativeKey;
  /** A key another thread of this process loaded under `cacheKey`, or null. */
  findKey(cacheKey: string): NativeKey | null;
  /**
   * The process-wide budget of named keys (loaded with a cacheKey) and their tables: loading one
   * evicts the least recently used others beyond it. A value of an evicted key throws "key evicted"
   * when used. 0: no limit.
   */
  setMemoryBudget(bytes: number): void;
  memoryInfo(): { budget: number; used: number; keys: number; evictions: number };
  /** The CPU arithmetic of tables built from now on (ZKGATE_NATIVE_SIMD=0 forces "scalar"). */
  arithmetic(): 'ifma-x8' | 'scalar';
  keyInfo(key: NativeKey): {
    nVars: number;
    nPublic: number;
    domainSize: number;
    bytes: number;
    /** Bytes the key's tables take (or will take once built). */
    tableBytes: number;
    tablesReady: boolean;
    /** The tables' file at load: mapped ("loaded"), missing, rejected ("invalid": rebuilt), or none given. */
    tableFile: 'loaded' | 'absent' | 'invalid' | 'none';
    /** Built tables were written to their file. */
    tablesSaved: boolean;
  };
  /** Waits for a background table build; true when the tables are ready. */
  waitTables(key: NativeKey): boolean;
  /** What the key's tables would take under `tableBudgetBytes`. */
  plannedTableBytes(key: NativeKey, tableBudgetBytes: number): number;
  /**
   * Reserves in the process's budget the tables that fit `tableBudgetBytes` for a named key loaded
   * without them, only where the budget has room beside the keys in it: it never evicts. Quick: a
   * caller claims in its order of importance, then fills (in parallel). "held": the key has its
   * tables already (or claimed); "none": none fit that budget; "no-room": the budget is full.
   */
  claimTables(key: NativeKey, tableBudgetBytes: number): 'claimed' | 'held' | 'none' | 'no-room';
  /**
   * The claimed tables (the same budget as the claim), mapped from `tablesPath` or built, before it
   * returns; once only (a key being filled is waited for). True when the key's tables are ready.
   */
  fillTables(key: NativeKey, tableBudgetBytes: number, threads: number, tablesPath: string): boolean;
  /**
   * a ‖ b ‖ c affine coordinates (8 × 32 bytes); r and s are the blinding scalars: snarkjs' (the
   * default: byte-equal to snarkjs given the same r and s), or, for "rerandomized", u ≠ 0 and v of
   * an unblinded proof rerandomized (no B₁ MSM; native/src/groth16.hpp). A "background" proof
   * pauses while any "client" proof (the default) of the process runs (native/src/preempt.hpp).
   */
  prove(
    key: NativeKey,
    witness: Uint8Array,
    r: Uint8Array,
    s: Uint8Array,
    threads: number,
    blinding?: Blinding,
    priority?: ProofPriority,
  ): Uint8Array;
  /** scalars[i] · the generator of G1 (1) or G2 (2), in the zkey encoding (a dev setup's points). */
  fixedBaseMul(group: 1 | 2, scalars: Uint8Array, threads: number): Uint8Array;
  /** Frees fixedBaseMul's tables (192 MB). */
  fixedBaseRelease(): void;
  /**
   * One run of the dev setup's constraint pass (native/src/qap_setup.hpp): adds constraints
   * first .. first + nConstraints − 1 (R1CS section bytes, their Lagrange values at tau) into u, v,
   * w (nVars canonical 32-byte values each, in place); with `coefficients`, returns their A and B
   * entries of the zkey's coefficient section (44 bytes each, `count` of them).
   */
  qapAccumulate(
    constraints: Uint8Array,
    nConstraints: number,
    firstConstraint: number,
    lagrange: Uint8Array,
    u: Uint8Array,
    v: Uint8Array,
    w: Uint8Array,
    coefficients: boolean,
  ): { coefs: Uint8Array; count: number };
  /**
   * loadKey for a key on disk, parsed from the mapped file (every key: no copy into a buffer first).
   * `mustFit` (a named key): null, rather than evicting others, when it does not fit the budget.
   */
  loadKeyFile(
    path: string,
    tableBudgetBytes: number,
    threads: number,
    background: boolean,
    cacheKey: string,
    tablesPath?: string,
  ): NativeKey;
  loadKeyFile(
    path: string,
    tableBudgetBytes: number,
    threads: number,
    background: boolean,
    cacheKey: string,
    tablesPath: string,
    mustFit: true,
  ): NativeKey | null;
  /**
   * prove for keys without a coefficient section: A·w and B·w per constraint row come with the
   * witness (32-byte little-endian scalars each, at most the domain size; 8-byte aligned buffers).
   */
  proveEvals(
    key: NativeKey,
    witness: Uint8Array,
    a: Uint8Array,
    b: Uint8Array,
    r: Uint8Array,
    s: Uint8Array,
    threads: number,
    blinding?: Blinding,
    priority?: ProofPriority,
  ): Uint8Array;
  /**
   * Background proofs' pauses for client proofs (count and total ms), slices they ran after waiting
   * their longest, and client proofs in the prover now.
   */
  preemptStats(): { pauses: number; pausedMs: number; slices: number; clients: number };
  /** field 0 Fq, 1 Fr, 2 Fq2; op 0 add, 1 sub, 2 mul, 3 square, 4 inverse, 5 negate. */
  fieldOp(field: number, op: number, a: Uint8Array, b: Uint8Array): Uint8Array;
  /** group 1 | 2; op 0 add, 1 mixed add, 2 double, 3 scalar multiplication (q = scalar). */
  curveOp(group: number, op: number, p: Uint8Array, q: Uint8Array): Uint8Array;
  msm(group: number, bases: Uint8Array, scalars: Uint8Array, threads: number, fixedBaseTable: boolean): Uint8Array;
  ntt(values: Uint8Array, inverse: boolean, threads: number): Uint8Array;
  rootOfUnity(k: number): Uint8Array;
  /** circomlib's optimized-form Poseidon parameters of width t (C, S, M, P), 32-byte LE values. */
  poseidonSetup(
    t: number,
    fullRounds: number,
    partialRounds: number,
    c: Uint8Array,
    s: Uint8Array,
    m: Uint8Array,
    p: Uint8Array,
  ): void;
  /** Hashes of consecutive groups of `arity` 32-byte inputs (LE, or BE if asked): groups × 32 bytes, alike. */
  poseidon(inputs: Uint8Array, arity: number, bigEndian?: boolean): Uint8Array;
  /** The GPU path's field arithmetic as compiled for the host (ops as fieldOp's, no inverse). */
  hdFieldOp(field: number, op: number, a: Uint8Array, b: Uint8Array): Uint8Array;
  /** The GPU path's point formulas: op 0 add, 1 mixed add, 2 double, 4 mixed add of −q. */
  hdCurveOp(group: number, op: number, p: Uint8Array, q: Uint8Array): Uint8Array;
  /** CUDA devices through native/build/libzkgate_cuda.so, or why there are none. */
  cudaStatus(): CudaStatus;
  /**
   * The process-wide proving engine every worker shares (the first call creates it; the same
   * options again are a no-op). Returns its description; throws why the backend cannot run.
   */
  engineConfigure(
    backend: AcceleratorName | 'cpu',
    devices: number[],
    deviceBudgetBytes: number,
    batchMax: number,
    batchWaitUs: number,
    threads: number,
  ): string;
  /** A proof through the engine's batcher (blocks the calling thread while its batch runs). */
  engineProve(key: NativeKey, witness: Uint8Array, r: Uint8Array, s: Uint8Array, blinding?: Blinding): Uint8Array;
  engineStats(): EngineStats | null;
  /** '' when a synthetic key's proofs on the accelerator equal the CPU's with the same r and s. */
  accelSelfCheck(backend: AcceleratorName, device: number, threads: number): string;
  /**
   * Points in gnark's compressed encoding (group 1: 32 bytes each, 2: 64) decompressed into the
   * zkey encoding (affine, Montgomery; infinity as zeros); throws "point i: …" for a bad one.
   */
  decompressPoints(group: 1 | 2, points: Uint8Array, threads: number): Uint8Array;
  /**
   * For keys with a constraint system (imported from Light's files): the full witness and A·w, B·w
   * per row from the circuit's inputs (public without the constant wire, then secret; 32-byte LE
   * each). An input the circuit does not accept throws "constraint #N is not satisfied".
   */
  solve(key: NativeKey, inputs: Uint8Array): { witness: Uint8Array; a: Uint8Array; b: Uint8Array };
  /** proveInputs through the process's engine (engineConfigure first): on its accelerator's Compute. */
  engineProveInputs(
    key: NativeKey,
    inputs: Uint8Array,
    r: Uint8Array,
    s: Uint8Array,
    threads: number,
    blinding?: Blinding,
  ): Uint8Array;
  /** solve, then prove (as prove's arguments after the witness): a ‖ b ‖ c. */
  proveInputs(
    key: NativeKey,
    inputs: Uint8Array,
    r: Uint8Array,
    s: Uint8Array,
    threads: number,
    blinding?: Blinding,
    priority?: ProofPriority,
  ): Uint8Array;
}

/** cuda: a GPU; emulate: the GPU pipeline's every step on host threads (tests). */
export type AcceleratorName = 'cuda' | 'emulate';

export interface CudaDevice {
  index: number;
  name: string;
  sms: number;
  computeCapability: string;
  totalBytes: number;
  freeBytes: number;
  l2Bytes: number;
}

export interface CudaStatus {
  ok: boolean;
  reason: string;
  library: string;
  devices: CudaDevice[];
}

export interface EngineStats {
  backend: string;
  description: string;
  proofs: number;
  batches: number;
  largestBatch: number;
  failed: number;
  residentBytes: number;
}

export type NativeStatus = { ok: true; addon: NativeAddon } | { ok: false; reason: string };

export const addonPath = fileURLToPath(new URL('../../native/build/zkgate_native.node', import.meta.url));
const statusPath = fileURLToPath(new URL('../../native/build/status.json', import.meta.url));

let cached: NativeStatus | undefined;

/** The addon, or why there is none (as the install recorded it). */
export function loadNativeAddon(): NativeStatus {
  if (cached) return cached;
  if (!existsSync(addonPath)) {
    let reason = 'the native prover is not built (npm run build builds it)';
    try {
      const status = JSON.parse(readFileSync(statusPath, 'utf8')) as { ok: boolean; reason?: string };
      if (!status.ok && status.reason) reason = `the native prover was not built: ${status.reason}`;
    } catch {
      // no status: never attempted
    }
    return (cached = { ok: false, reason });
  }
  try {
    const addon = createRequire(import.meta.url)(addonPath) as NativeAddon;
    return (cached = { ok: true, addon });
  } catch (e) {
    return (cached = { ok: false, reason: `the native prover failed to load: ${(e as Error).message}` });
  }
}

export function le32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

export function fromLe32(b: Uint8Array, offset = 0): bigint {
  let v = 0n;
  for (let i = 31; i >= 0; i--) v = (v << 8n) | BigInt(b[offset + i]!);
  return v;
}

const concat = (parts: Uint8Array[]) => Buffer.concat(parts);

/** A uniformly random nonzero scalar below r (rejection sampling), little-endian: blinding. */
export function randomScalar(): Uint8Array {
  for (;;) {
    const b = randomBytes(32);
    b[31]! &= 0x3f;
    const v = fromLe32(b);
    if (v !== 0n && v < FR) return le32(v);
  }
}

/** The addon's proof (a ‖ b ‖ c, 8 × 32-byte LE coordinates) as points. */
export function decodeProof(out: Uint8Array): ProofPoints {
  const f = (i: number) => fromLe32(out, i * 32);
  return {
    a: { x: f(0), y: f(1) },
    b: { x: { c0: f(2), c1: f(3) }, y: { c0: f(4), c1: f(5) } },
    c: { x: f(6), y: f(7) },
  };
}

/**
 * Checks the addon against independent arithmetic (bigint, @noble/curves) and against the domain
 * convention of zkgate's key setup; returns why it failed, or undefined when it passed.
 */
export function nativeSelfCheck(addon: NativeAddon): string | undefined {
  try {
    const a = 0x1234567890abcdef1234567890abcdefn * 0xfedcba9876543210n;
    const b = FR - 12345n;
    if (fromLe32(addon.fieldOp(1, 2, le32(a), le32(b))) !== mod(a * b, FR)) return 'Fr multiplication disagrees';
    if (fromLe32(addon.fieldOp(0, 4, le32(b % FP), le32(0n))) !== modPow(b % FP, FP - 2n, FP))
      return 'Fq inversion disagrees';
    const G = bn254.G1.Point.BASE;
    const k = 0xdeadbeefcafebaben;
    const g = concat([le32(G.x), le32(G.y)]);
    const kg = addon.curveOp(1, 3, g, le32(k));
    const want = G.multiply(k).toAffine();
    if (fromLe32(kg, 0) !== want.x || fromLe32(kg, 32) !== want.y) return 'G1 scalar multiplication disagrees';
    const bases = [G, G.multiply(3n), G.multiply(7n)].map((p) => p.toAffine());
    const scalars = [FR - 1n, 1n, 0x1234n];
    const m = addon.msm(1, concat(bases.flatMap((p) => [le32(p.x), le32(p.y)])), concat(scalars.map(le32)), 2, true);
    const mw = G.multiply(mod(-1n + 3n + 7n * 0x1234n, FR)).toAffine();
    if (fromLe32(m, 0) !== mw.x || fromLe32(m, 32) !== mw.y) return 'G1 MSM disagrees';
    for (const log of [1, 13, 28])
      if (fromLe32(addon.rootOfUnity(log)) !== rootOfUnity(log))
        return `root of unity 2^${log} differs from the key setup's`;
    const values = concat([1n, 2n, 3n, 4n, 5n, 6n, 7n, FR - 1n].map(le32));
    const back = addon.ntt(addon.ntt(values, false, 1), true, 2);
    if (!Buffer.from(back).equals(values)) return 'NTT round trip disagrees';
    return undefined;
  } catch (e) {
    return `self-check threw: ${(e as Error).message}`;
  }
}

/**
 * Why the cuda backend cannot prove on these devices (all visible ones when empty), or undefined:
 * the library must load, the devices exist, and each pass the differential self-check.
 */
export function cudaUnavailable(addon: NativeAddon, devices: readonly number[]): string | undefined {
  const status = addon.cudaStatus();
  if (!status.ok) return status.reason;
  const chosen = devices.length > 0 ? devices : status.devices.map((d) => d.index);
  for (const d of chosen) {
    if (!status.devices.some((x) => x.index === d))
      return `CUDA device ${d} does not exist (${status.devices.length} visible)`;
    const reason = addon.accelSelfCheck('cuda', d, 1);
    if (reason) return `CUDA device ${d} failed its self-check: ${reason}`;
  }
  return undefined;
}
