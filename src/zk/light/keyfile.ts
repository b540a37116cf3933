// Light Protocol's proving-system files: big-endian u32 header fields, then gnark's Groth16 proving
// key and verifying key with compressed points, then the constraint system to the end of the file.
// Two generations: the 0.27 release's (`bin/proving-keys/*.key` of
// @lightprotocol/zk-compression-cli 0.27.0, gnark v0.8: `mainnet_inclusion_26_1.key`, …) and
// Light's current prover's (gnark v0.14: `v1_inclusion_26_1.key`, `v2_…`), which add a byte to
// the domain, store one Z point fewer, and end both keys with (empty) commitment lists. The name
// says which; the bytes must agree. No magic, version or section lengths: the file is walked
// section by section, and every count is checked against the others, so a truncated, corrupt or
// foreign file is refused naming the file and what is wrong. The format, with its sources, is
// docs/light-keys/keyfile-format.md. This reads the layout and the verifying key (its few points
// decompressed and checked on the curve); the proving key's points stay compressed where they
// lie, for the importer to decompress in bulk.
import { basename } from 'node:path';
import { bn254 } from '@noble/curves/bn254.js';
import { AppError } from '../../errors.js';
import { FR } from '../field.js';
import type { G1, G2 } from '../proof-format.js';

export class LightKeyFileError extends AppError {
  readonly kind = 'key_import_failed';
}

/** What the file name says it holds (Light's own selection goes by the name, not the contents). */
export interface LightCircuit {
  family: 'inclusion' | 'non-inclusion' | 'combined';
  /** Light's legacy (V1, height-26) circuits: their public inputs are the roots and leaves, not one hash. */
  legacy: boolean;
  /** [inclusion height, inclusion count, non-inclusion height, non-inclusion count], 0 where unused. */
  header: [number, number, number, number];
  /** The gnark release that wrote the file: its layout and constraint-system encoding. */
  gnark: '0.8' | '0.14';
}

/** gnark's verifying key, decompressed; ic: K, the constant wire's point first. */
export interface GnarkVerifyingKey {
  alpha1: G1;
  beta1: G1;
  beta2: G2;
  gamma2: G2;
  delta1: G1;
  delta2: G2;
  ic: G1[];
}

/** Where a section of the proving key lies: its first point and how many there are. */
export interface PointRun {
  offset: number;
  count: number;
}

export interface LightKeyFile {
  circuit: LightCircuit;
  domain: { cardinality: number; generator: bigint };
  pk: {
    alpha1: PointRun;
    beta1: PointRun;
    delta1: PointRun;
    a: PointRun;
    b1: PointRun;
    z: PointRun;
    k: PointRun;
    beta2: PointRun;
    delta2: PointRun;
    b2: PointRun;
    nbWires: number;
    nbInfinityA: number;
    nbInfinityB: number;
    /** Per wire, whether its A (B) point is infinity and left out of `a` (`b1`, `b2`). */
    infinityA: Uint8Array;
    infinityB: Uint8Array;
  };
  vk: GnarkVerifyingKey;
  /** The verifying key section as encoded (what Light's `export-vk` writes). */
  vkBytes: Uint8Array;
  /** Where the constraint system starts. */
  csOffset: number;
}

const FP = bn254.fields.Fp.ORDER;
const G1_BYTES = 32;
const G2_BYTES = 64;
/** The domain as gnark v0.8 writes it; v0.14 adds a byte (whether twiddles are precomputed). */
const DOMAIN_BYTES = 168;
/** 5: gnark's coset generator, stored in the domain. */
const COSET_GENERATOR = 5n;

// File names → circuits (docs/light-keys/keyfile-format.md §1.1 for the 0.27 release's, §1.2 for
// the current release's): [pattern, family, legacy, header from the numbers in the name].
type NameRule = [RegExp, LightCircuit['family'], boolean, (n: number[]) => LightCircuit['header']];
const NAME_RULES: Record<LightCircuit['gnark'], NameRule[]> = {
  '0.8': [
    [/^mainnet_inclusion_26_(\d+)\.key$/, 'inclusion', true, ([n]) => [26, n!, 0, 0]],
    [/^inclusion_32_(\d+)\.key$/, 'inclusion', false, ([n]) => [32, n!, 0, 0]],
    [/^non-inclusion_26_(\d+)\.key$/, 'non-inclusion', true, ([n]) => [0, 0, 26, n!]],
    [/^non-inclusion_40_(\d+)\.key$/, 'non-inclusion', false, ([n]) => [0, 0, 40, n!]],
    [/^combined_26_(\d+)_(\d+)\.key$/, 'combined', true, ([i, j]) => [26, i!, 26, j!]],
    [/^combined_32_40_(\d+)_(\d+)\.key$/, 'combined', false, ([i, j]) => [32, i!, 40, j!]],
  ],
  '0.14': [
    [/^v1_inclusion_26_(\d+)\.key$/, 'inclusion', true, ([n]) => [26, n!, 0, 0]],
    [/^v2_inclusion_32_(\d+)\.key$/, 'inclusion', false, ([n]) => [32, n!, 0, 0]],
    [/^v1_non-inclusion_26_(\d+)\.key$/, 'non-inclusion', true, ([n]) => [0, 0, 26, n!]],
    [/^v2_non-inclusion_40_(\d+)\.key$/, 'non-inclusion', false, ([n]) => [0, 0, 40, n!]],
    [/^v1_combined_26_26_(\d+)_(\d+)\.key$/, 'combined', true, ([i, j]) => [26, i!, 26, j!]],
    [/^v2_combined_32_40_(\d+)_(\d+)\.key$/, 'combined', false, ([i, j]) => [32, i!, 40, j!]],
  ],
};

/** The circuit a file name stands for, in either release's naming. */
export function lightCircuitOfFile(path: string): LightCircuit | undefined {
  const name = basename(path).toLowerCase();
  for (const gnark of ['0.8', '0.14'] as const)
    for (const [pattern, family, legacy, header] of NAME_RULES[gnark]) {
      const m = pattern.exec(name);
      if (m) return { family, legacy, header: header(m.slice(1).map(Number)), gnark };
    }
  return undefined;
}

/** Light's batch circuits (the forester's: `batch_append_32_500.key`, …), which zkgate does not import. */
export const isLightBatchFileName = (path: string): boolean =>
  /^(batch_)?(append-with-proofs|append|update|address-append)_\d+_\d+\.key$/.test(basename(path).toLowerCase());

/** Why a batch file is refused: the one sentence both the importer and the parser give. */
export const LIGHT_BATCH_REFUSAL =
  "is one of Light's batch (forester) circuits; zkgate imports the validity-proof circuits (inclusion, non-inclusion, combined), and its forester proves batches with zkgate's own keys";

/** Reads the layout and verifying key of a Light proving-system file's bytes; `file` names it in errors. */
export function parseLightKeyFile(file: string, bytes: Uint8Array): LightKeyFile {
  const fail = (what: string): never => {
    throw new LightKeyFileError(`${file}: ${what}`);
  };
  if (isLightBatchFileName(file)) fail(LIGHT_BATCH_REFUSAL);
  const circuit =
    lightCircuitOfFile(file) ??
    fail(
      'not a Light proving-system file name (the 0.27 release’s mainnet_inclusion_26_N, inclusion_32_N, non-inclusion_26|40_N, combined_…, or the current release’s v1_inclusion_26_N, v2_inclusion_32_N, v2_non-inclusion_40_N, v2_combined_32_40_N_M, …)',
    );
  const v014 = circuit.gnark === '0.14';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const need = (n: number, what: string) => {
    if (pos + n > bytes.length) fail(`truncated in ${what} (${bytes.length} bytes, ${pos + n} needed)`);
  };
  const u32 = (what: string) => {
    need(4, what);
    const v = view.getUint32(pos);
    pos += 4;
    return v;
  };
  const u64 = (what: string) => {
    need(8, what);
    const v = view.getBigUint64(pos);
    pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) fail(`${what} is ${v}, not a count`);
    return Number(v);
  };
  const scalar = (at: number) => BigInt('0x' + Buffer.from(bytes.subarray(at, at + 32)).toString('hex'));

  const header = [0, 1, 2, 3].map(() => u32('the header'));
  if (header.some((v, i) => v !== circuit.header[i]))
    fail(`its header says [${header.join(', ')}], its name [${circuit.header.join(', ')}]`);

  // The domain: cardinality, its inverse, the generator and its inverse, the coset generator and its inverse.
  need(DOMAIN_BYTES, 'the domain');
  const cardinality = u64('the domain size');
  const inv = scalar(pos);
  const generator = scalar(pos + 32);
  const cosetGenerator = scalar(pos + 96);
  pos += DOMAIN_BYTES - 8;
  if (cardinality === 0 || (cardinality & (cardinality - 1)) !== 0 || cardinality > 2 ** 28)
    fail(`domain size ${cardinality} is not a power of two up to 2^28`);
  if ((inv * BigInt(cardinality)) % FR !== 1n || cosetGenerator !== COSET_GENERATOR)
    fail('the domain is not gnark’s (its inverse or coset generator is wrong)');
  // v0.14's extra domain byte is 0 or 1; in a v0.8 file that byte is α's first, a compressed point's flag.
  need(1, 'the domain');
  const precomputeFlag = bytes[pos]! <= 1;
  if (v014 && !precomputeFlag)
    fail('its name is a current-release (gnark v0.14) name, but its contents are a 0.27-release (gnark v0.8) file');
  if (!v014 && precomputeFlag)
    fail('its contents are a current-release (gnark v0.14) file: name it as that release does (v1_…, v2_…)');
  if (v014) pos++;

  const run = (group: 1 | 2, count: number, what: string): PointRun => {
    const size = count * (group === 1 ? G1_BYTES : G2_BYTES);
    need(size, what);
    const r = { offset: pos, count };
    pos += size;
    return r;
  };
  const slice = (group: 1 | 2, what: string) => run(group, u32(`${what}'s count`), what);
  const alpha1 = run(1, 1, 'α');
  const beta1 = run(1, 1, 'β (G1)');
  const delta1 = run(1, 1, 'δ (G1)');
  const a = slice(1, 'A');
  const b1 = slice(1, 'B (G1)');
  const z = slice(1, 'Z');
  const k = slice(1, 'K');
  const beta2 = run(2, 1, 'β (G2)');
  const delta2 = run(2, 1, 'δ (G2)');
  const b2 = slice(2, 'B (G2)');
  const nbWires = u64('the wire count');
  const nbInfinityA = u64('the count of A points at infinity');
  const nbInfinityB = u64('the count of B points at infinity');
  need(2 * nbWires, 'the infinity bitmaps');
  const infinityA = bytes.subarray(pos, pos + nbWires);
  const infinityB = bytes.subarray(pos + nbWires, pos + 2 * nbWires);
  pos += 2 * nbWires;
  const ones = (m: Uint8Array) => m.reduce((n, x) => n + (x === 1 ? 1 : x === 0 ? 0 : NaN), 0);
  if (ones(infinityA) !== nbInfinityA || ones(infinityB) !== nbInfinityB)
    fail('the infinity bitmaps do not hold the counts before them');
  if (a.count !== nbWires - nbInfinityA) fail(`${a.count} A points for ${nbWires} wires, ${nbInfinityA} at infinity`);
  if (b1.count !== nbWires - nbInfinityB || b2.count !== b1.count)
    fail(`${b1.count} and ${b2.count} B points for ${nbWires} wires, ${nbInfinityB} at infinity`);
  // gnark v0.14 leaves out the last Z point (its scalar is 0 for every satisfied system).
  if (z.count !== cardinality - (v014 ? 1 : 0)) fail(`${z.count} Z points for a domain of ${cardinality}`);
  const noCommitments = (what: string) => {
    const n = u32(what);
    if (n !== 0) fail(`${what} lists ${n}: a circuit with commitments, which Light's circuits do not have`);
  };
  if (v014) noCommitments('the proving key’s commitment keys');

  // The verifying key: α, β (G1), β, γ (G2), δ (G1), δ (G2), then the public inputs' points.
  const vkStart = pos;
  const vAlpha = run(1, 1, 'the verifying key’s α');
  const vBeta1 = run(1, 1, 'the verifying key’s β (G1)');
  const vBeta2 = run(2, 1, 'the verifying key’s β (G2)');
  const vGamma2 = run(2, 1, 'the verifying key’s γ');
  const vDelta1 = run(1, 1, 'the verifying key’s δ (G1)');
  const vDelta2 = run(2, 1, 'the verifying key’s δ (G2)');
  const ic = slice(1, 'the verifying key’s K');
  if (ic.count < 2) fail(`the verifying key has ${ic.count} K points: at least the constant wire and one input`);
  if (k.count !== nbWires - ic.count)
    fail(`${k.count} private K points for ${nbWires} wires, ${ic.count} of them public (the constant included)`);
  if (v014) {
    noCommitments('the verifying key’s committed public inputs');
    noCommitments('the verifying key’s commitment keys');
  }
  const vkBytes = bytes.subarray(vkStart, pos);
  const same = (x: PointRun, y: PointRun, size: number) =>
    Buffer.compare(bytes.subarray(x.offset, x.offset + size), bytes.subarray(y.offset, y.offset + size)) === 0;
  if (!same(alpha1, vAlpha, G1_BYTES) || !same(delta2, vDelta2, G2_BYTES) || !same(beta2, vBeta2, G2_BYTES))
    fail('the proving and verifying keys are not of one setup (α, β or δ differ)');
  if (pos >= bytes.length) fail('no constraint system after the keys');

  const g1 = (r: PointRun, i = 0) => decompressG1(bytes.subarray(r.offset + i * G1_BYTES), fail);
  const g2 = (r: PointRun) => decompressG2(bytes.subarray(r.offset), fail);
  return {
    circuit,
    domain: { cardinality, generator },
    pk: {
      alpha1,
      beta1,
      delta1,
      a,
      b1,
      z,
      k,
      beta2,
      delta2,
      b2,
      nbWires,
      nbInfinityA,
      nbInfinityB,
      infinityA,
      infinityB,
    },
    vk: {
      alpha1: g1(vAlpha),
      beta1: g1(vBeta1),
      beta2: g2(vBeta2),
      gamma2: g2(vGamma2),
      delta1: g1(vDelta1),
      delta2: g2(vDelta2),
      ic: Array.from({ length: ic.count }, (_, i) => g1(ic, i)),
    },
    vkBytes,
    csOffset: pos,
  };
}

/**
 * A verifying key as gnark writes it alone (Light's `export-vk`): α, β, β₂, γ₂, δ, δ₂, then K;
 * gnark v0.14 adds two empty commitment lists (8 zero bytes).
 */
export function parseGnarkVerifyingKey(file: string, bytes: Uint8Array): GnarkVerifyingKey {
  const fail = (what: string): never => {
    throw new LightKeyFileError(`${file}: ${what}`);
  };
  const fixed = G1_BYTES * 3 + G2_BYTES * 3;
  if (bytes.length < fixed + 4) fail('truncated verifying key');
  const count = new DataView(bytes.buffer, bytes.byteOffset).getUint32(fixed);
  const end = fixed + 4 + count * G1_BYTES;
  const v014Tail = bytes.length === end + 8 && bytes.subarray(end).every((b) => b === 0);
  if (bytes.length !== end && !v014Tail) fail(`a verifying key of ${count} K points is not ${bytes.length} bytes`);
  const g1 = (at: number) => decompressG1(bytes.subarray(at), fail);
  const g2 = (at: number) => decompressG2(bytes.subarray(at), fail);
  return {
    alpha1: g1(0),
    beta1: g1(G1_BYTES),
    beta2: g2(G1_BYTES * 2),
    gamma2: g2(G1_BYTES * 2 + G2_BYTES),
    delta1: g1(G1_BYTES * 2 + G2_BYTES * 2),
    delta2: g2(G1_BYTES * 3 + G2_BYTES * 2),
    ic: Array.from({ length: count }, (_, i) => g1(fixed + 4 + i * G1_BYTES)),
  };
}

// gnark-crypto's point flags: the top two bits of the first byte.
const FLAG_MASK = 0xc0;
const COMPRESSED_SMALLEST = 0x80;
const COMPRESSED_LARGEST = 0xc0;
const COMPRESSED_INFINITY = 0x40;

const bigBE = (b: Uint8Array) => BigInt('0x' + Buffer.from(b).toString('hex'));
const largest = (y: bigint) => y > (FP - 1n) / 2n;

/** A compressed G1 point (x big-endian, the flag choosing y), checked on the curve (G1 has cofactor 1). */
function decompressG1(b: Uint8Array, fail: (what: string) => never): G1 {
  const flag = b[0]! & FLAG_MASK;
  if (flag === COMPRESSED_INFINITY) return { x: 0n, y: 0n };
  if (flag !== COMPRESSED_SMALLEST && flag !== COMPRESSED_LARGEST) fail('a G1 point is not compressed');
  const x = bigBE(Uint8Array.of(b[0]! & ~FLAG_MASK, ...b.subarray(1, 32)));
  if (x >= FP) fail('a G1 point’s x is not below p');
  const Fp = bn254.fields.Fp;
  let y: bigint;
  try {
    y = Fp.sqrt(Fp.add(Fp.pow(x, 3n), 3n));
  } catch {
    return fail('a G1 point is not on the curve');
  }
  if (largest(y) !== (flag === COMPRESSED_LARGEST)) y = Fp.neg(y);
  return { x, y };
}

/** A compressed G2 point (x.c1 then x.c0, big-endian), checked on the curve and in the subgroup. */
function decompressG2(b: Uint8Array, fail: (what: string) => never): G2 {
  const flag = b[0]! & FLAG_MASK;
  if (flag === COMPRESSED_INFINITY) return { x: { c0: 0n, c1: 0n }, y: { c0: 0n, c1: 0n } };
  if (flag !== COMPRESSED_SMALLEST && flag !== COMPRESSED_LARGEST) fail('a G2 point is not compressed');
  const c1 = bigBE(Uint8Array.of(b[0]! & ~FLAG_MASK, ...b.subarray(1, 32)));
  const c0 = bigBE(b.subarray(32, 64));
  if (c0 >= FP || c1 >= FP) fail('a G2 point’s x is not below p');
  const Fp2 = bn254.fields.Fp2;
  const x = { c0, c1 };
  // y² = x³ + 3/(9 + u): the twist's constant.
  const b2 = Fp2.div(Fp2.fromBigTuple([3n, 0n]), Fp2.fromBigTuple([9n, 1n]));
  let y: { c0: bigint; c1: bigint };
  try {
    y = Fp2.sqrt(Fp2.add(Fp2.pow(x, 3n), b2));
  } catch {
    return fail('a G2 point is not on the curve');
  }
  const isLargest = y.c1 === 0n ? largest(y.c0) : largest(y.c1);
  if (isLargest !== (flag === COMPRESSED_LARGEST)) y = Fp2.neg(y);
  try {
    bn254.G2.Point.fromAffine({ x, y }).assertValidity();
  } catch {
    fail('a G2 point is not in the prime-order subgroup');
  }
  return { x, y };
}
