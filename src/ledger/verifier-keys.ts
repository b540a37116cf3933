// Light's programs verify Groth16 proofs against verifying keys compiled into their program files
// (compression-e2e.md §2). For the ledger to accept zkgate's proofs, each key record of a shape
// zkgate proves is overwritten with zkgate's key for that shape, record by record: alpha, beta
// and gamma are shared by most of Light's keys and single IC points repeat, so a search-and-replace
// of points would corrupt other keys. A record (472 bytes in .data.rel.ro: IC pointer, IC count,
// nr_pubinputs, alpha, beta, gamma, delta) is found from the ELF's relocations, identified by the
// SHA-256 of Light's delta, and its IC block (in .rodata) is found through its relocated pointer.
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import type { SolanaVerifyingKeyBytes } from '../zk/keys.js';
import { ALL_SHAPES, type Shape } from '../zk/shapes.js';
import { parseElf, relocatedAddress, ElfError } from './elf.js';
import { LIGHT_IDS, LIGHT_SYSTEM_PROGRAM_ID } from './light-ids.js';
import { decodeBase58 } from '../zk/base58.js';
import { LIGHT_VK_RECORDS, type LightProgramFile, type LightVkRecord } from './light-vk-records.js';

export class VerifierKeyError extends AppError {
  readonly kind = 'verifier_key';
}

const RECORD_SIZE = 472;
const HEADER = 24; // IC pointer, IC count, nr_pubinputs (u64 each)
const ALPHA = HEADER;
const BETA = ALPHA + 64;
const GAMMA = BETA + 128;
const DELTA = GAMMA + 128;
const G1_SIZE = 64;

export interface VkRecordLocation {
  shape: string;
  /** File offset of the 472-byte record. */
  recordOffset: number;
  /** File offset of the record's IC block. */
  icOffset: number;
  icPoints: number;
  nrPubinputs: number;
}

/** The public inputs of a shape (compression-e2e.md §2): V2 one hash; V1 a root and a value per entry. */
export const publicInputCount = (s: Shape): number => (s.version === 2 ? 1 : 2 * (s.nInclusion + s.nNonInclusion));

/** The records of `program` for the shapes zkgate proves (Light's 26_{3,4,8} non-inclusion ones cannot verify). */
export function expectedRecords(program: LightProgramFile): LightVkRecord[] {
  const ours = new Set(ALL_SHAPES.map((s) => s.name));
  return LIGHT_VK_RECORDS.filter((r) => r.program === program && ours.has(r.shape));
}

/**
 * Finds the records of `records` in a program file. Every record must be found exactly once with
 * the IC count and nr_pubinputs the table gives, else the file is not one zkgate can patch.
 */
export function locateVkRecords(
  bytes: Uint8Array,
  file: string,
  records: readonly LightVkRecord[],
): Map<string, VkRecordLocation> {
  let elf;
  try {
    elf = parseElf(bytes);
  } catch (e) {
    if (e instanceof ElfError) throw new VerifierKeyError(`${file}: ${e.message}`);
    throw e;
  }
  const relro = elf.section('.data.rel.ro');
  const rodata = elf.section('.rodata');
  const byDelta = new Map(records.map((r) => [r.deltaSha256, r]));
  const found = new Map<string, VkRecordLocation[]>();
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const vaddr of elf.relocationOffsets()) {
    const at = elf.fileOffset(vaddr);
    if (at === undefined || at < relro.offset || at + RECORD_SIZE > relro.offset + relro.size) continue;
    const digest = createHash('sha256')
      .update(buf.subarray(at + DELTA, at + DELTA + 128))
      .digest('hex');
    const rec = byDelta.get(digest);
    if (!rec) continue;
    const icPoints = Number(buf.readBigUInt64LE(at + 8));
    const nrPubinputs = Number(buf.readBigUInt64LE(at + 16));
    const icOffset = elf.fileOffset(relocatedAddress(bytes, at));
    if (icPoints !== rec.icPoints || nrPubinputs !== rec.nrPubinputs)
      throw new VerifierKeyError(
        `${file}: the ${rec.shape} key record has ${icPoints} IC points and nr_pubinputs ${nrPubinputs}, expected ${rec.icPoints} and ${rec.nrPubinputs}`,
      );
    if (
      icOffset === undefined ||
      icOffset < rodata.offset ||
      icOffset + G1_SIZE * icPoints > rodata.offset + rodata.size
    )
      throw new VerifierKeyError(`${file}: the IC block of the ${rec.shape} key record is not inside .rodata`);
    const list = found.get(rec.shape) ?? [];
    list.push({ shape: rec.shape, recordOffset: at, icOffset, icPoints, nrPubinputs });
    found.set(rec.shape, list);
  }
  const ambiguous = [...found].filter(([, l]) => l.length > 1).map(([s]) => s);
  if (ambiguous.length > 0)
    throw new VerifierKeyError(`${file}: verifying-key records found more than once: ${ambiguous.join(', ')}`);
  const missing = records.filter((r) => !found.has(r.shape)).map((r) => r.shape);
  if (missing.length > 0)
    throw new VerifierKeyError(
      `${file}: ${missing.length} verifying-key record(s) not found (${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}); is this the program file of @lightprotocol/zk-compression-cli 0.28.3?`,
    );
  return new Map([...found].map(([s, l]) => [s, l[0]!]));
}

/** A copy of `pristine` with each given shape's record carrying the given key. */
export function patchVkRecords(
  pristine: Uint8Array,
  locations: ReadonlyMap<string, VkRecordLocation>,
  keys: ReadonlyMap<string, SolanaVerifyingKeyBytes>,
): Uint8Array {
  const out = new Uint8Array(pristine);
  for (const [shape, key] of keys) {
    const loc = locations.get(shape);
    if (!loc) throw new VerifierKeyError(`no verifying-key record for ${shape}`);
    if (key.ic.length !== loc.icPoints || key.nPublic !== loc.nrPubinputs)
      throw new VerifierKeyError(
        `zkgate's key for ${shape} has ${key.ic.length} IC points and ${key.nPublic} public inputs; the program's record has ${loc.icPoints} and ${loc.nrPubinputs}`,
      );
    out.set(key.alpha, loc.recordOffset + ALPHA);
    out.set(key.beta, loc.recordOffset + BETA);
    out.set(key.gamma, loc.recordOffset + GAMMA);
    out.set(key.delta, loc.recordOffset + DELTA);
    key.ic.forEach((p, i) => out.set(p, loc.icOffset + G1_SIZE * i));
  }
  return out;
}

export interface InstalledKey {
  shape: string;
  /** Identifies the key (the zkey's SHA-256): installing the same id again is a no-op. */
  keyId: string;
  vk: SolanaVerifyingKeyBytes;
}

/**
 * One Light program as the ledger runs it: the pristine file with zkgate's keys patched into the
 * records of the shapes whose keys are known so far. Installing a key redeploys the program into
 * the VM (about 7 ms for the system program), so a proof made with the key verifies on the ledger
 * from then on; the patched file is also written out for users who run their own validator.
 */
export class PatchedProgram implements VerifierProgram {
  private readonly keys = new Map<string, InstalledKey>();
  private readonly locations: Map<string, VkRecordLocation>;

  constructor(
    readonly programId: Uint8Array,
    readonly file: string,
    private readonly pristine: Uint8Array,
    records: readonly LightVkRecord[],
    private readonly deploy: (programId: Uint8Array, bytes: Uint8Array) => void,
    private readonly writeOut?: (bytes: Uint8Array) => void,
  ) {
    this.locations = locateVkRecords(pristine, file, records);
  }

  /** Shapes this program has records for. */
  get shapes(): string[] {
    return [...this.locations.keys()];
  }

  keyId(shape: string): string | undefined {
    return this.keys.get(shape)?.keyId;
  }

  installedCount(): number {
    return this.keys.size;
  }

  /** The program as it is deployed now (pristine plus the installed keys). */
  bytes(): Uint8Array {
    return patchVkRecords(this.pristine, this.locations, new Map([...this.keys].map(([s, k]) => [s, k.vk])));
  }

  /** Light's file as shipped, without zkgate's keys (what other clusters run). */
  pristineBytes(): Uint8Array {
    return new Uint8Array(this.pristine);
  }

  /** Installs keys (shapes without a record are ignored); redeploys once when any changed. */
  install(keys: readonly InstalledKey[]): boolean {
    const changed = keys.filter((k) => this.locations.has(k.shape) && this.keys.get(k.shape)?.keyId !== k.keyId);
    if (changed.length === 0) return false;
    const next = new Map(this.keys);
    for (const k of changed) next.set(k.shape, k);
    const bytes = patchVkRecords(this.pristine, this.locations, new Map([...next].map(([s, k]) => [s, k.vk])));
    this.deploy(this.programId, bytes);
    for (const k of changed) this.keys.set(k.shape, k);
    this.writeOut?.(bytes);
    return true;
  }
}

/** What the gateway needs of a Light program that verifies proofs: patched, or as Light shipped it. */
export interface VerifierProgram {
  readonly shapes: string[];
  keyId(shape: string): string | undefined;
  installedCount(): number;
  bytes(): Uint8Array;
  pristineBytes(): Uint8Array;
  install(keys: readonly InstalledKey[]): boolean;
}

/**
 * Light's system program run as Light shipped it (--light-system-program): nothing is patched or
 * redeployed. A key "installs" only where the program already holds it (its δ and every IC point
 * found in the file, in the program's big-endian layout): proofs of Light's own keys for that
 * release verify there, any other key's proofs are refused by the program (6043), so those keys
 * are left out and `keyId` says which shapes verify.
 */
export class ShippedProgram implements VerifierProgram {
  private readonly keys = new Map<string, InstalledKey>();

  constructor(
    readonly programId: Uint8Array,
    readonly file: string,
    private readonly shipped: Uint8Array,
    readonly shapes: string[],
  ) {}

  /** Whether the program holds this verifying key (its δ, then each IC point). */
  holds(vk: SolanaVerifyingKeyBytes): boolean {
    const bytes = Buffer.from(this.shipped.buffer, this.shipped.byteOffset, this.shipped.byteLength);
    return bytes.indexOf(Buffer.from(vk.delta)) >= 0 && vk.ic.every((p) => bytes.indexOf(Buffer.from(p)) >= 0);
  }

  keyId(shape: string): string | undefined {
    return this.keys.get(shape)?.keyId;
  }

  installedCount(): number {
    return this.keys.size;
  }

  bytes(): Uint8Array {
    return new Uint8Array(this.shipped);
  }

  pristineBytes(): Uint8Array {
    return new Uint8Array(this.shipped);
  }

  /** Records the keys the program holds; never redeploys (returns false). */
  install(keys: readonly InstalledKey[]): boolean {
    for (const k of keys) {
      if (!this.shapes.includes(k.shape) || this.keys.get(k.shape)?.keyId === k.keyId) continue;
      if (this.holds(k.vk)) this.keys.set(k.shape, k);
      else this.keys.delete(k.shape);
    }
    return false;
  }
}

export const LIGHT_SYSTEM_PROGRAM_FILE = 'light_system_program_pinocchio.so';
export const ACCOUNT_COMPRESSION_PROGRAM_FILE = 'account_compression.so';

/**
 * A Light program as the ledger loads it (the last program fixture with its id, so a `--program`
 * override is the one patched), ready to take zkgate's keys.
 */
function lightProgram(
  id: Uint8Array,
  file: LightProgramFile,
  programs: readonly { id: Uint8Array; bytes: Uint8Array; file: string }[],
  deploy: (programId: Uint8Array, bytes: Uint8Array) => void,
  writeOut?: (bytes: Uint8Array) => void,
): PatchedProgram {
  const p = programs.filter((x) => Buffer.from(x.id).equals(id)).pop();
  if (!p) throw new VerifierKeyError(`${file} is not among the ledger's programs`);
  return new PatchedProgram(id, p.file, p.bytes, expectedRecords(file), deploy, writeOut);
}

/** Light's system program: the validity-proof keys. */
export const lightSystemProgram = (
  programs: readonly { id: Uint8Array; bytes: Uint8Array; file: string }[],
  deploy: (programId: Uint8Array, bytes: Uint8Array) => void,
  writeOut?: (bytes: Uint8Array) => void,
): PatchedProgram => lightProgram(LIGHT_SYSTEM_PROGRAM_ID, LIGHT_SYSTEM_PROGRAM_FILE, programs, deploy, writeOut);

/** Light's account-compression program: the batch keys a forester's proofs verify with. */
export const accountCompressionProgram = (
  programs: readonly { id: Uint8Array; bytes: Uint8Array; file: string }[],
  deploy: (programId: Uint8Array, bytes: Uint8Array) => void,
  writeOut?: (bytes: Uint8Array) => void,
): PatchedProgram =>
  lightProgram(
    decodeBase58(LIGHT_IDS.accountCompression),
    ACCOUNT_COMPRESSION_PROGRAM_FILE,
    programs,
    deploy,
    writeOut,
  );
