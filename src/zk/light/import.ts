// A Light proving-system file made into a zkgate key: the proving key's points decompressed (in
// the native core, on threads) into a zkey's sections — A and B with the points gnark leaves out
// (its infinity bitmaps) put back as infinity, K over the private wires as the zkey's C, gnark's Z
// points (stored bit-reversed) in natural order as H — plus two sections of zkgate's own: gnark's
// quotient convention (section 100) and the constraint system the native solver runs (101). Before
// the key is kept, a proof of made-up inputs must verify under the file's verifying key.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { FR, writeLE } from '../field.js';
import { lightInputCount, lightInputVector } from './inputs.js';
import {
  LightKeyFileError,
  parseLightKeyFile,
  type GnarkVerifyingKey,
  type LightCircuit,
  type LightKeyFile,
  type PointRun,
} from './keyfile.js';
import { parseGnarkR1cs, type GnarkR1cs } from './r1cs-cbor.js';
import { parseGnarkR1csV014 } from './r1cs-v014.js';
import { encodeR1csSection } from './r1cs-section.js';
import { sampleLightInputs } from './sample-inputs.js';
import { decodeProof, loadNativeAddon, le32, randomScalar, type NativeAddon } from '../native-addon.js';
import { loadPoseidon } from '../poseidon.js';
import { findShape, type Shape } from '../shapes.js';
import { verifyGroth16, type SnarkjsVerificationKey } from '../verify.js';
import { groth16HeaderSection, writeZkey, type ZkeySections } from '../zkey.js';
import type { ProofPoints } from '../proof-format.js';

/** The zkgate shape a Light file's circuit proves. */
export function shapeOfLightCircuit(c: LightCircuit): Shape | undefined {
  const [, nInclusion, , nNonInclusion] = c.header;
  return findShape(c.legacy ? 1 : 2, nInclusion, nNonInclusion);
}

export interface ImportedLightKey {
  shape: Shape;
  /** The Light file's name and its sha256: what the key was made from. */
  source: string;
  sourceSha256: string;
  vk: SnarkjsVerificationKey;
  nConstraints: number;
  nVars: number;
  domainSize: number;
  /** The test proof that admitted the key, and its public inputs. */
  testProof: { proof: ProofPoints; publicInputs: bigint[] };
}

const G1_BYTES = 32;
const G2_BYTES = 64;

/** A section's points from the file, decompressed into the zkey encoding. */
function points(addon: NativeAddon, bytes: Uint8Array, run: PointRun, group: 1 | 2, threads: number): Buffer {
  const size = group === 1 ? G1_BYTES : G2_BYTES;
  return Buffer.from(addon.decompressPoints(group, bytes.subarray(run.offset, run.offset + run.count * size), threads));
}

/** Per wire, its point, or infinity (zeros) where gnark left it out. */
function expand(packed: Buffer, infinity: Uint8Array, pointBytes: number): Buffer {
  const out = Buffer.alloc(infinity.length * pointBytes);
  let next = 0;
  for (let w = 0; w < infinity.length; w++) {
    if (infinity[w]) continue;
    packed.copy(out, w * pointBytes, next * pointBytes, (next + 1) * pointBytes);
    next++;
  }
  return out;
}

/**
 * gnark stores Z bit-reversed: back to natural order (the reversal is its own inverse). gnark
 * v0.14 leaves out the last point (bit-reversed index n−1 is n−1 itself): infinity there.
 */
function unBitReverse(stored: Buffer, count: number): Buffer {
  const z = stored.length === count * 64 ? stored : Buffer.concat([stored, Buffer.alloc(count * 64 - stored.length)]);
  const bits = Math.log2(count);
  const out = Buffer.alloc(z.length);
  for (let i = 0; i < count; i++) {
    let r = 0;
    for (let b = 0, x = i; b < bits; b++, x >>= 1) r = (r << 1) | (x & 1);
    z.copy(out, r * 64, i * 64, (i + 1) * 64);
  }
  return out;
}

const dec = (v: bigint) => v.toString();

/** A gnark verifying key in snarkjs's JSON form (zkgate's verifiers and Solana's verifier bytes read it). */
export function lightVerificationKey(vk: GnarkVerifyingKey): SnarkjsVerificationKey {
  const g1 = (p: { x: bigint; y: bigint }) => [dec(p.x), dec(p.y), p.x === 0n && p.y === 0n ? '0' : '1'];
  const g2 = (p: { x: { c0: bigint; c1: bigint }; y: { c0: bigint; c1: bigint } }) => [
    [dec(p.x.c0), dec(p.x.c1)],
    [dec(p.y.c0), dec(p.y.c1)],
    ['1', '0'],
  ];
  return {
    protocol: 'groth16',
    curve: 'bn128',
    nPublic: vk.ic.length - 1,
    vk_alpha_1: g1(vk.alpha1),
    vk_beta_2: g2(vk.beta2),
    vk_gamma_2: g2(vk.gamma2),
    vk_delta_2: g2(vk.delta2),
    IC: vk.ic.map(g1),
    // Light's files carry β and δ in G1 too; snarkjs's JSON has no place for them.
  } as SnarkjsVerificationKey;
}

/** The zkey's sections for a parsed file and its constraint system. */
function zkeySections(
  addon: NativeAddon,
  bytes: Uint8Array,
  file: LightKeyFile,
  cs: GnarkR1cs,
  sourceSha256: Buffer,
  threads: number,
): ZkeySections {
  const { pk } = file;
  const one = (run: PointRun, group: 1 | 2) => points(addon, bytes, run, group, threads);
  const gammaAt = G1_BYTES * 2 + G2_BYTES;
  const groth = groth16HeaderSection(
    { nVars: pk.nbWires, nPublic: file.vk.ic.length - 1, domainSize: file.domain.cardinality },
    {
      alpha1: one(pk.alpha1, 1),
      beta1: one(pk.beta1, 1),
      beta2: one(pk.beta2, 2),
      // γ is in the verifying key only.
      gamma2: Buffer.from(addon.decompressPoints(2, file.vkBytes.subarray(gammaAt, gammaAt + G2_BYTES), 1)),
      delta1: one(pk.delta1, 1),
      delta2: one(pk.delta2, 2),
    },
  );
  // The verifying key's K: after its six points and the count.
  const icStart = G1_BYTES * 3 + G2_BYTES * 3 + 4;
  const icEnd = icStart + file.vk.ic.length * G1_BYTES;
  const ic = Buffer.from(addon.decompressPoints(1, file.vkBytes.subarray(icStart, icEnd), threads));
  const coset = Buffer.alloc(36);
  coset.writeUInt32LE(1, 0);
  // Section 100's coset generator, in the zkey's Montgomery form (5·2^256 mod r).
  writeLE(coset, 4, (5n << 256n) % FR);
  return {
    1: [Buffer.from([1, 0, 0, 0])],
    2: [groth],
    3: [ic],
    4: [Buffer.alloc(4)],
    5: [expand(one(pk.a, 1), pk.infinityA, 64)],
    6: [expand(one(pk.b1, 1), pk.infinityB, 64)],
    7: [expand(one(pk.b2, 2), pk.infinityB, 128)],
    8: [one(pk.k, 1)],
    9: [unBitReverse(one(pk.z, 1), file.domain.cardinality)],
    10: [Buffer.concat([sourceSha256, Buffer.alloc(4)])],
    100: [coset],
    101: [encodeR1csSection(cs)],
  };
}

/**
 * Reads a Light proving-system file, writes its zkgate key to `zkeyPath`, and proves made-up
 * inputs with it: the key is good only when that proof verifies under the file's verifying key.
 * Throws LightKeyFileError naming the file and what is wrong.
 */
export async function importLightKey(
  filePath: string,
  zkeyPath: string,
  /** bytes (and their sha256, hex): the file's contents when the caller has read them already. */
  opts: { threads?: number; name?: string; bytes?: Buffer; sha256?: string } = {},
): Promise<ImportedLightKey> {
  const name = opts.name ?? filePath;
  const threads = Math.max(1, opts.threads ?? 1);
  const status = loadNativeAddon();
  if (!status.ok)
    throw new LightKeyFileError(`${name}: importing Light's keys needs the native prover: ${status.reason}`);
  const addon = status.addon;
  const bytes = opts.bytes ?? (await readFile(filePath));
  const fail = (what: string): never => {
    throw new LightKeyFileError(`${name}: ${what}`);
  };
  const file = parseLightKeyFile(name, bytes);
  const shape = shapeOfLightCircuit(file.circuit) ?? fail('is for a circuit shape zkgate does not serve');
  const csBytes = bytes.subarray(file.csOffset);
  const cs = file.circuit.gnark === '0.14' ? parseGnarkR1csV014(name, csBytes) : parseGnarkR1cs(name, csBytes);
  // The proving key, verifying key and constraint system must be of one circuit.
  if (cs.nWires !== file.pk.nbWires)
    fail(`the constraint system has ${cs.nWires} wires, the proving key ${file.pk.nbWires}`);
  if (cs.nPublic !== file.vk.ic.length)
    fail(`the constraint system has ${cs.nPublic} public wires, the verifying key ${file.vk.ic.length} K points`);
  if (cs.nConstraints > file.domain.cardinality)
    fail(`${cs.nConstraints} constraints do not fit the key's domain of ${file.domain.cardinality}`);
  const expected = lightInputCount(shape);
  if (cs.nPublic - 1 + cs.nSecret !== expected)
    fail(`the circuit takes ${cs.nPublic - 1 + cs.nSecret} inputs, ${shape.name} has ${expected}`);
  const sourceSha256 =
    opts.bytes && opts.sha256 ? Buffer.from(opts.sha256, 'hex') : createHash('sha256').update(bytes).digest();
  let sections: ZkeySections;
  try {
    sections = zkeySections(addon, bytes, file, cs, sourceSha256, threads);
  } catch (e) {
    return fail(`a proving-key point is not one: ${(e as Error).message}`);
  }
  await writeZkey(zkeyPath, sections);
  const vk = lightVerificationKey(file.vk);
  const proved = await testProof(addon, zkeyPath, shape, vk, name);
  return {
    shape,
    source: name,
    sourceSha256: sourceSha256.toString('hex'),
    vk,
    nConstraints: cs.nConstraints,
    nVars: cs.nWires,
    domainSize: file.domain.cardinality,
    testProof: proved,
  };
}

/** Proves made-up inputs with the new key and verifies the proof; throws when it does not verify. */
async function testProof(
  addon: NativeAddon,
  zkeyPath: string,
  shape: Shape,
  vk: SnarkjsVerificationKey,
  name: string,
): Promise<{ proof: ProofPoints; publicInputs: bigint[] }> {
  await loadPoseidon();
  const vector = lightInputVector(shape, sampleLightInputs(shape));
  const key = addon.loadKeyFile(zkeyPath, 0, 1, false, '');
  let proof: ProofPoints;
  try {
    proof = decodeProof(addon.proveInputs(key, Buffer.concat(vector.map(le32)), randomScalar(), randomScalar(), 2));
  } catch (e) {
    throw new LightKeyFileError(`${name}: its test proof failed: ${(e as Error).message}`);
  }
  const publicInputs = vector.slice(0, vk.nPublic);
  if (!verifyGroth16(vk, publicInputs, proof))
    throw new LightKeyFileError(
      `${name}: a test proof made with its proving key does not verify under its verifying key (keys of different setups, or a corrupt file)`,
    );
  return { proof, publicInputs };
}
