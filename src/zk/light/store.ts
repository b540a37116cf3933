// Light's keys in the data dir (keys/light/): each imported file's zkgate key and verifying key,
// and a manifest of what each shape's key was made from (the Light file's name and sha256), so an
// import of the same file again is a no-op and a changed file is imported afresh.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-file.js';
import { withFileLock } from '../../util/file-lock.js';
import { shapeByName, type Shape } from '../shapes.js';
import type { SnarkjsVerificationKey } from '../verify.js';
import { importLightKey, shapeOfLightCircuit, type ImportedLightKey } from './import.js';
import { isLightBatchFileName, LIGHT_BATCH_REFUSAL, LightKeyFileError, lightCircuitOfFile } from './keyfile.js';

export interface LightKeyEntry {
  shape: string;
  /** The Light file it was made from, and that file's sha256. */
  source: string;
  sourceSha256: string;
  zkey: string;
  vk: string;
  nConstraints: number;
  nVars: number;
  domainSize: number;
  importedAt: string;
}

export interface LightKey {
  shape: Shape;
  entry: LightKeyEntry;
  zkeyPath: string;
  vk: SnarkjsVerificationKey;
}

/** One file's import: done now, already there (same file), or not a file zkgate serves. */
export type LightImportResult =
  | { file: string; status: 'imported'; entry: LightKeyEntry; imported: ImportedLightKey }
  | { file: string; status: 'unchanged'; entry: LightKeyEntry }
  | { file: string; status: 'skipped'; reason: string };

/** The files a list of files and directories names: a directory's `*.key` files, sorted. */
export function lightKeyFiles(paths: readonly string[]): string[] {
  return paths.flatMap((p) => {
    if (!existsSync(p)) throw new LightKeyFileError(`${p}: no such file or directory`);
    if (!statSync(p).isDirectory()) return [p];
    return readdirSync(p)
      .filter((f) => f.endsWith('.key'))
      .sort()
      .map((f) => join(p, f));
  });
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export class LightKeyStore {
  readonly dir: string;
  private readonly manifestPath: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'keys', 'light');
    this.manifestPath = join(this.dir, 'manifest.json');
  }

  manifest(): Record<string, LightKeyEntry> {
    if (!existsSync(this.manifestPath)) return {};
    return JSON.parse(readFileSync(this.manifestPath, 'utf8')) as Record<string, LightKeyEntry>;
  }

  /** The imported key of a shape, if there is one whose files are all there. */
  get(shapeName: string): LightKey | undefined {
    const entry = this.manifest()[shapeName];
    if (!entry) return undefined;
    const zkeyPath = join(this.dir, entry.zkey);
    const vkPath = join(this.dir, entry.vk);
    if (!existsSync(zkeyPath) || !existsSync(vkPath)) return undefined;
    const vk = JSON.parse(readFileSync(vkPath, 'utf8')) as SnarkjsVerificationKey;
    return { shape: shapeByName(shapeName), entry, zkeyPath, vk };
  }

  /** Shapes with an imported key. */
  shapes(): string[] {
    return Object.keys(this.manifest()).filter((s) => this.get(s) !== undefined);
  }

  /**
   * Imports one Light file (its name says which circuit it is): converted, test-proved, then
   * recorded; the same file imported before is left as it is. Files of circuits zkgate does not
   * serve from Light's keys (the batch circuits) are skipped with the reason.
   */
  async import(file: string, opts: { threads?: number } = {}): Promise<LightImportResult> {
    const name = basename(file);
    const circuit = lightCircuitOfFile(name);
    const shape = circuit && shapeOfLightCircuit(circuit);
    if (!shape)
      return {
        file,
        status: 'skipped',
        reason: circuit
          ? 'zkgate has no shape for this circuit'
          : isLightBatchFileName(name)
            ? LIGHT_BATCH_REFUSAL
            : 'not one of the inclusion, non-inclusion or combined proving-system files',
      };
    mkdirSync(this.dir, { recursive: true });
    return withFileLock(join(this.dir, `.${shape.name}.lock`), async () => {
      const bytes = await readFile(file);
      const digest = sha256(bytes);
      const known = this.manifest()[shape.name];
      // The same bytes under the same name: the name decides how they are read (which release).
      if (known && known.sourceSha256 === digest && known.source === name && this.get(shape.name))
        return { file, status: 'unchanged', entry: known };
      const zkey = `${shape.name}.zkey`;
      const vk = `${shape.name}.vk.json`;
      const imported = await importLightKey(file, join(this.dir, zkey), {
        threads: opts.threads,
        name,
        bytes,
        sha256: digest,
      });
      await writeFileAtomic(join(this.dir, vk), JSON.stringify(imported.vk, null, 1) + '\n');
      const entry: LightKeyEntry = {
        shape: shape.name,
        source: name,
        sourceSha256: imported.sourceSha256,
        zkey,
        vk,
        nConstraints: imported.nConstraints,
        nVars: imported.nVars,
        domainSize: imported.domainSize,
        importedAt: new Date().toISOString(),
      };
      await withFileLock(join(this.dir, '.manifest.lock'), async () => {
        const m = this.manifest();
        m[shape.name] = entry;
        await writeFileAtomic(this.manifestPath, JSON.stringify(m, null, 2) + '\n');
      });
      return { file, status: 'imported', entry, imported };
    });
  }
}
