// Proving keys in the data dir: a manifest (shape → files, sha256, setup kind, circuit sources
// hash) and the files it names. Dev keys are built on demand by the deterministic setup; real keys
// from a snarkjs phase-2 ceremony are imported and checked against the compiled circuit.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { copyFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../errors.js';
import { writeFileAtomic } from '../util/atomic-file.js';
import { processAlive, withFileLock } from '../util/file-lock.js';
import { DEFAULT_DEV_SEED } from './dev-seed.js';
import { compileShape, sourcesHash, type CompiledCircuit } from './compile.js';
import { bigIntToBytes32 } from './field.js';
import { parseR1cs } from './r1cs.js';
import { devSetup, type Progress } from './setup/dev-setup.js';
import { ALL_SHAPES, isBatchShape, shapeByName, type Shape } from './shapes.js';
import { LightKeyStore } from './light/store.js';
import { buildStructuredKey, structuredSourcesHash, structuredVerifyingKey } from './structured/build-key.js';
import { isStructuredShape } from './structured/registry.js';
import type { SnarkjsVerificationKey } from './verify.js';
import { vkG1, vkG2 } from './verify.js';
import { readZkeyHeader } from './zkey.js';

export class KeyError extends AppError {
  constructor(
    readonly kind: 'key_missing' | 'key_mismatch' | 'key_import_failed',
    message: string,
  ) {
    super(message);
  }
}

/** dev: zkgate's deterministic setup; imported: a snarkjs ceremony's zkey; light: Light's own key file. */
export type SetupKind = 'dev' | 'imported' | 'light';
/** Whose keys prove the validity shapes (--proving-keys): Light's where imported ("auto"), only Light's, or zkgate's. */
export type ProvingKeySource = 'auto' | 'light' | 'dev';

export interface KeyEntry {
  shape: string;
  setup: SetupKind;
  zkey: string;
  vk: string;
  sha256: string;
  sourcesHash: string;
  nPublic: number;
  nVars: number;
  domainSize: number;
  createdAt: string;
}

export type KeyStatus = 'ready' | 'missing' | 'stale';

export interface KeyListing {
  shape: string;
  status: KeyStatus;
  setup?: SetupKind;
  sha256?: string;
}

/** Everything a prover needs for one shape. */
export interface ProvingKey {
  shape: Shape;
  entry: KeyEntry;
  zkeyPath: string;
  wasmPath: string;
  vk: SnarkjsVerificationKey;
}

export { DEFAULT_DEV_SEED };

/** Streams the file, so large keys are hashed without reading them into memory at once. */
export function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (d) => h.update(d))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}

export class KeyStore {
  readonly dir: string;
  private readonly manifestPath: string;
  private readonly building = new Map<string, Promise<ProvingKey>>();

  readonly light: LightKeyStore;

  constructor(
    readonly dataDir: string,
    /** The dev setup's seed (public: dev keys are insecure). */
    readonly seed: string = DEFAULT_DEV_SEED,
    readonly source: ProvingKeySource = 'dev',
  ) {
    this.dir = join(dataDir, 'keys');
    this.manifestPath = join(this.dir, 'manifest.json');
    this.light = new LightKeyStore(dataDir);
  }

  /**
   * The Light key a shape proves with, if the source takes Light's keys and one is imported.
   * Light's batch circuits are not imported: the forester's shapes keep zkgate's keys.
   */
  private lightKey(shape: Shape): ProvingKey | undefined {
    if (this.source === 'dev' || isBatchShape(shape)) return undefined;
    const k = this.light.get(shape.name);
    if (!k) {
      if (this.source === 'light')
        throw new KeyError(
          'key_missing',
          `no Light key for ${shape.name}: --proving-keys light proves only with Light's keys; import its file with zkgate keys import-light (or --light-keys DIR)`,
        );
      return undefined;
    }
    const entry: KeyEntry = {
      shape: shape.name,
      setup: 'light',
      zkey: join('light', k.entry.zkey),
      vk: join('light', k.entry.vk),
      // What the key was made from: the Light file an operator can compare with theirs.
      sha256: k.entry.sourceSha256,
      sourcesHash: '',
      nPublic: k.vk.nPublic,
      nVars: k.entry.nVars,
      domainSize: k.entry.domainSize,
      createdAt: k.entry.importedAt,
    };
    return { shape, entry, zkeyPath: k.zkeyPath, wasmPath: '', vk: k.vk };
  }

  manifest(): Record<string, KeyEntry> {
    if (!existsSync(this.manifestPath)) return {};
    return JSON.parse(readFileSync(this.manifestPath, 'utf8')) as Record<string, KeyEntry>;
  }

  /**
   * Adds the entry to the manifest. Read, change and write under the manifest's lock: processes
   * sharing the data dir record keys of other shapes at the same time, and neither may lose the
   * other's entry.
   */
  private async record(entry: KeyEntry): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    await withFileLock(join(this.dir, '.manifest.lock'), async () => {
      const m = this.manifest();
      m[entry.shape] = entry;
      await writeFileAtomic(this.manifestPath, JSON.stringify(m, null, 2) + '\n');
    });
  }

  /** One build or import of a shape at a time, across the processes sharing this data dir. */
  private exclusive<T>(shape: Shape, fn: () => Promise<T>): Promise<T> {
    return withFileLock(join(this.dir, `.${shape.name}.lock`), fn);
  }

  status(shape: Shape, entry: KeyEntry | undefined = this.manifest()[shape.name]): KeyStatus {
    if (this.lightKeyOrNone(shape)) return 'ready';
    if (!entry || !existsSync(join(this.dir, entry.zkey))) return 'missing';
    return entry.sourcesHash === expectedSourcesHash(shape) ? 'ready' : 'stale';
  }

  list(): KeyListing[] {
    const m = this.manifest();
    return ALL_SHAPES.map((shape) => {
      const light = this.lightKeyOrNone(shape);
      if (light) return { shape: shape.name, status: 'ready', setup: 'light', sha256: light.entry.sha256 };
      const entry = m[shape.name];
      const status = this.status(shape, entry);
      return status === 'missing'
        ? { shape: shape.name, status }
        : { shape: shape.name, status, setup: entry!.setup, sha256: entry!.sha256 };
    });
  }

  private async load(shape: Shape, entry: KeyEntry, circuit?: CompiledCircuit): Promise<ProvingKey> {
    // Structured circuits have no circom witness program: the prover builds their witness itself.
    const wasmPath = isStructuredShape(shape) ? '' : (circuit ?? (await compileShape(shape, this.dataDir))).wasm;
    const vk = JSON.parse(readFileSync(join(this.dir, entry.vk), 'utf8')) as SnarkjsVerificationKey;
    return { shape, entry, zkeyPath: join(this.dir, entry.zkey), wasmPath, vk };
  }

  /** Whether `ensure` uses the key on file as it is: ready, or imported for older sources (never rebuilt). */
  private usable(shape: Shape, entry: KeyEntry | undefined): entry is KeyEntry {
    const status = this.status(shape, entry);
    return status === 'ready' || (status === 'stale' && entry!.setup === 'imported');
  }

  /** Whether `ensure` would build the shape's dev key: no Light key, nothing usable on file. */
  willBuild(shape: Shape): boolean {
    try {
      if (this.lightKey(shape)) return false;
    } catch {
      return false; // refused (--proving-keys light without the key): nothing is built
    }
    return !this.usable(shape, this.manifest()[shape.name]);
  }

  /** Which validity shapes prove with Light's keys, in words (the banner and /health say it). */
  describeSources(): string {
    if (this.source === 'dev') return "zkgate's dev keys for every shape (--proving-keys dev)";
    const light = this.light.shapes().filter((s) => !isBatchShape(shapeByName(s)));
    const names = light.length > 4 ? `${light.slice(0, 4).join(', ')}, …` : light.join(', ');
    if (light.length === 0)
      return this.source === 'light'
        ? 'no Light keys imported: every validity shape refused (--proving-keys light; import with --light-keys)'
        : "zkgate's dev keys for every shape (no Light keys imported: --light-keys)";
    const lightPart = `Light's own keys for ${light.length} shapes (${names})`;
    return this.source === 'light'
      ? `${lightPart}; other validity shapes refused (--proving-keys light)`
      : `${lightPart}; zkgate's dev keys for the others`;
  }

  /** lightKey, without the refusal of a missing one (listings show what there is). */
  private lightKeyOrNone(shape: Shape): ProvingKey | undefined {
    try {
      return this.lightKey(shape);
    } catch {
      return undefined;
    }
  }

  /**
   * The shape's key: Light's where the source takes it and one is imported; else the dev key,
   * built first if there is none (or it is for older sources).
   */
  ensure(name: string, progress?: Progress): Promise<ProvingKey> {
    const shape = shapeByName(name);
    try {
      const light = this.lightKey(shape);
      if (light) return Promise.resolve(light);
    } catch (e) {
      return Promise.reject(e as Error);
    }
    const entry = this.manifest()[shape.name];
    if (this.usable(shape, entry)) return this.load(shape, entry);
    return this.build(name, progress, { unlessUsable: true });
  }

  /**
   * Verification keys of every shape whose key `ensure` would use as it is (no compiling, no
   * building), and of the structured shapes, whose dev verifying key is known before their proving
   * key is built (identified by the key's hash, not the zkey's, so building it changes nothing).
   */
  usableVerificationKeys(): { shape: string; sha256: string; vk: SnarkjsVerificationKey }[] {
    const m = this.manifest();
    return ALL_SHAPES.flatMap((shape) => {
      const light = this.lightKeyOrNone(shape);
      if (light) return [{ shape: shape.name, sha256: light.entry.sha256, vk: light.vk }];
      if (isStructuredShape(shape)) {
        const vk = structuredVerifyingKey(this.dir, shape.name, this.seed);
        return [{ shape: shape.name, sha256: createHash('sha256').update(JSON.stringify(vk)).digest('hex'), vk }];
      }
      const entry = m[shape.name];
      if (!this.usable(shape, entry)) return [];
      const vk = JSON.parse(readFileSync(join(this.dir, entry.vk), 'utf8')) as SnarkjsVerificationKey;
      return [{ shape: shape.name, sha256: entry.sha256, vk }];
    });
  }

  /** (Re)builds the dev key of a shape: compile if needed, deterministic setup, vk export. */
  build(name: string, progress?: Progress, opts: { unlessUsable?: boolean } = {}): Promise<ProvingKey> {
    const shape = shapeByName(name);
    let p = this.building.get(shape.name);
    if (!p) {
      p = this.exclusive(shape, async () => {
        try {
          // Another process (a gateway, `zkgate keys build`, another test file) may have built it
          // while this one waited for the lock.
          const entry = this.manifest()[shape.name];
          if (opts.unlessUsable && this.usable(shape, entry)) return await this.load(shape, entry);
          removeAbandonedTemps(this.dir, `${shape.name}.zkey`);
          if (isStructuredShape(shape)) return await this.buildStructured(shape, progress);
          progress?.('compile', 0, 1);
          const circuit = await compileShape(shape, this.dataDir);
          mkdirSync(this.dir, { recursive: true });
          const zkey = `${shape.name}.zkey`;
          // Inline: a server builds in a process of its own (setup/key-build-process.ts).
          const info = await devSetup(circuit.r1cs, join(this.dir, zkey), {
            seed: this.seed,
            label: shape.name,
            progress,
          });
          const built = await this.finish(shape, zkey, 'dev', circuit.sourcesHash, info);
          return await this.load(shape, built, circuit);
        } finally {
          this.building.delete(shape.name);
        }
      });
      this.building.set(shape.name, p);
    }
    return p;
  }

  private async buildStructured(shape: Shape, progress?: Progress): Promise<ProvingKey> {
    mkdirSync(this.dir, { recursive: true });
    const zkey = `${shape.name}.zkey`;
    const info = await buildStructuredKey(
      { shape: shape.name, zkeyPath: join(this.dir, zkey), seed: this.seed, label: shape.name },
      progress,
    );
    const vk = structuredVerifyingKey(this.dir, shape.name, this.seed);
    const entry = await this.finish(shape, zkey, 'dev', structuredSourcesHash(shape.name), info, vk);
    return this.load(shape, entry);
  }

  private async finish(
    shape: Shape,
    zkey: string,
    setup: SetupKind,
    hash: string,
    info: { nPublic: number; nVars: number; domainSize: number },
    knownVk?: SnarkjsVerificationKey,
  ): Promise<KeyEntry> {
    // snarkjs loaded only where a key is built (a third of a gateway's start-up otherwise).
    const vkJson = knownVk ?? (await (await import('snarkjs')).zKey.exportVerificationKey(join(this.dir, zkey)));
    const vk = `${shape.name}.vk.json`;
    await writeFileAtomic(join(this.dir, vk), JSON.stringify(vkJson, null, 1) + '\n');
    const entry: KeyEntry = {
      shape: shape.name,
      setup,
      zkey,
      vk,
      sha256: await sha256File(join(this.dir, zkey)),
      sourcesHash: hash,
      nPublic: info.nPublic,
      nVars: info.nVars,
      domainSize: info.domainSize,
      createdAt: new Date().toISOString(),
    };
    await this.record(entry);
    return entry;
  }

  /**
   * Imports a .zkey from a snarkjs phase-2 ceremony for `name`, after checking it was made for
   * this circuit (same wires, public inputs, domain and coefficient count as our compilation).
   */
  async import(name: string, file: string): Promise<KeyEntry> {
    const shape = shapeByName(name);
    if (isStructuredShape(shape))
      throw new KeyError(
        'key_import_failed',
        `${name} is built by zkgate's structured circuit builder, not compiled by circom: only its dev key can be used`,
      );
    const circuit = await compileShape(shape, this.dataDir);
    let header;
    try {
      header = await readZkeyHeader(file);
    } catch (e) {
      throw new KeyError('key_import_failed', `cannot import ${file}: ${(e as Error).message}`);
    }
    const { header: r1cs, constraints } = parseR1cs(readFileSync(circuit.r1cs));
    const nPublic = r1cs.nPubOut + r1cs.nPubIn;
    const domainSize = 2 ** (Math.floor(Math.log2(r1cs.nConstraints + nPublic)) + 1);
    const expectedCoefs = countAbTerms(constraints, r1cs.nConstraints, r1cs.n8) + nPublic + 1;
    const mismatch: string[] = [];
    if (header.nVars !== r1cs.nWires) mismatch.push(`wires ${header.nVars} ≠ ${r1cs.nWires}`);
    if (header.nPublic !== nPublic) mismatch.push(`public inputs ${header.nPublic} ≠ ${nPublic}`);
    if (header.domainSize !== domainSize) mismatch.push(`domain ${header.domainSize} ≠ ${domainSize}`);
    if (header.nCoefs !== expectedCoefs) mismatch.push(`coefficients ${header.nCoefs} ≠ ${expectedCoefs}`);
    if (mismatch.length > 0) {
      throw new KeyError(
        'key_mismatch',
        `${file} was not made for ${shape.name} as zkgate compiles it: ${mismatch.join(', ')}`,
      );
    }
    mkdirSync(this.dir, { recursive: true });
    const zkey = `${shape.name}.zkey`;
    return this.exclusive(shape, async () => {
      const tmp = join(this.dir, `${zkey}.import-${process.pid}`);
      await copyFile(file, tmp);
      await rename(tmp, join(this.dir, zkey)).catch(async (e) => {
        await rm(tmp, { force: true });
        throw e;
      });
      return this.finish(shape, zkey, 'imported', circuit.sourcesHash, header);
    });
  }

  async verificationKey(name: string): Promise<SnarkjsVerificationKey> {
    return (await this.ensure(name)).vk;
  }
}

/**
 * Deletes what builds of `file` killed midway left (writeAtomic's `.file.<pid>.<ms>.tmp`, up to
 * several GB for the production-size keys), when that process is gone.
 */
export function removeAbandonedTemps(dir: string, file: string): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const m = new RegExp(`^\\.${file.replace(/\./g, '\\.')}\\.(\\d+)\\.\\d+\\.tmp$`).exec(name);
    if (!m) continue;
    if (!processAlive(Number(m[1]))) rmSync(join(dir, name), { force: true });
  }
}

/** The build a key on file must have come from to be used as it is. */
const expectedSourcesHash = (shape: Shape): string =>
  isStructuredShape(shape) ? structuredSourcesHash(shape.name) : sourcesHash(shape);

function countAbTerms(constraints: Buffer, nConstraints: number, n8: number): number {
  let pos = 0;
  let count = 0;
  for (let c = 0; c < nConstraints; c++) {
    for (let m = 0; m < 3; m++) {
      const n = constraints.readUInt32LE(pos);
      if (m < 2) count += n;
      pos += 4 + n * (4 + n8);
    }
  }
  return count;
}

/** A verification key in the byte layout Solana's groth16 verifiers take (groth16-solana's Groth16Verifyingkey). */
export interface SolanaVerifyingKeyBytes {
  nPublic: number;
  /** G1: x ‖ y, 64 bytes big-endian. */
  alpha: Uint8Array;
  /** G2: x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0, 128 bytes big-endian (the alt_bn128 syscalls' order). */
  beta: Uint8Array;
  gamma: Uint8Array;
  delta: Uint8Array;
  ic: Uint8Array[];
}

export function solanaVerifyingKeyBytes(vk: SnarkjsVerificationKey): SolanaVerifyingKeyBytes {
  const join = (parts: bigint[]) => {
    const out = new Uint8Array(32 * parts.length);
    parts.forEach((v, i) => out.set(bigIntToBytes32(v), 32 * i));
    return out;
  };
  const g1 = (v: string[]) => {
    const p = vkG1(v);
    return join([p.x, p.y]);
  };
  const g2 = (v: string[][]) => {
    const p = vkG2(v);
    return join([p.x.c1, p.x.c0, p.y.c1, p.y.c0]);
  };
  return {
    nPublic: vk.nPublic,
    alpha: g1(vk.vk_alpha_1),
    beta: g2(vk.vk_beta_2),
    gamma: g2(vk.vk_gamma_2),
    delta: g2(vk.vk_delta_2),
    ic: vk.IC.map(g1),
  };
}

/** The same as groth16-solana's Rust struct would print it: JSON arrays of byte values. */
export function solanaVerifyingKey(vk: SnarkjsVerificationKey): Record<string, unknown> {
  const k = solanaVerifyingKeyBytes(vk);
  return {
    nr_pubinputs: k.nPublic,
    vk_alpha_g1: [...k.alpha],
    vk_beta_g2: [...k.beta],
    vk_gamme_g2: [...k.gamma],
    vk_delta_g2: [...k.delta],
    vk_ic: k.ic.map((p) => [...p]),
  };
}
