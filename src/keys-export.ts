// `zkgate keys export`: a folder another prover (or snarkjs) can prove from without zkgate: for
// each shape its zkey, its verification key, sample witnesses with their public signals, and one
// manifest naming them all with the zkey's sha256.
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sampleWitnesses } from './sample-witnesses.js';
import type { Progress } from './zk/setup/dev-setup.js';
import { KeyError, sha256File, type KeyStore } from './zk/keys.js';
import { isStructuredShape } from './zk/structured/registry.js';

export interface ExportedShape {
  shape: string;
  zkey: string;
  vk: string;
  /** Of the exported zkey (the copy, so a reader can check what it got). */
  sha256: string;
  nPublic: number;
  witnesses: string[];
  public: string[];
}

export interface ExportManifest {
  shapes: ExportedShape[];
  createdBy: 'zkgate keys export';
}

/** Writes the export of `shapes` into `outDir` (created if needed); keys missing are built first. */
export async function exportKeys(
  keys: KeyStore,
  shapes: readonly string[],
  outDir: string,
  opts: { witnesses: number; progress?: (shape: string, index: number, total: number) => Progress },
): Promise<ExportManifest> {
  await mkdir(outDir, { recursive: true });
  const manifest: ExportManifest = { shapes: [], createdBy: 'zkgate keys export' };
  const structured = shapes.filter((s) => isStructuredShape(s));
  if (structured.length > 0)
    throw new KeyError(
      'key_mismatch',
      `${structured.join(', ')}: structured circuits have no circom witness program to export (their keys prove only with zkgate's native prover)`,
    );
  for (const [i, name] of shapes.entries()) {
    const key = await keys.ensure(name, opts.progress?.(name, i + 1, shapes.length));
    const zkey = `${name}.zkey`;
    const vk = `${name}.vk.json`;
    await copyFile(key.zkeyPath, join(outDir, zkey));
    // As `keys export-vk` prints it, which is also how snarkjs writes verification_key.json.
    await writeFile(join(outDir, vk), JSON.stringify(key.vk, null, 1) + '\n');
    // The vk's nPublic, not the shape's: public.json must match the key the proofs are checked with.
    const samples = await sampleWitnesses(name, key.wasmPath, opts.witnesses, { nPublic: key.vk.nPublic });
    const entry: ExportedShape = {
      shape: name,
      zkey,
      vk,
      sha256: await sha256File(join(outDir, zkey)),
      nPublic: key.vk.nPublic,
      witnesses: [],
      public: [],
    };
    for (const [n, s] of samples.entries()) {
      entry.witnesses.push(`${name}.${n}.wtns`);
      entry.public.push(`${name}.${n}.public.json`);
      await writeFile(join(outDir, entry.witnesses[n]!), s.wtns);
      // snarkjs' public.json: decimal strings, one-space indent.
      await writeFile(join(outDir, entry.public[n]!), JSON.stringify(s.publicSignals.map(String), null, 1));
    }
    manifest.shapes.push(entry);
  }
  // Written last: a folder with a manifest holds a complete export.
  await writeFile(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}
