// A shape's test key copied into a temp dir (so its tables file is the test's own), with sample
// witnesses: what the persisted-tables tests start from.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { sampleWitnesses, type SampleWitness } from '../../src/sample-witnesses.js';
import { tempDir } from '../helpers/gateway.js';
import { keys } from '../prover/helpers.js';

export interface KeyCopy {
  key: Awaited<ReturnType<typeof keys.ensure>>;
  samples: SampleWitness[];
  dir: string;
  zkeyPath: string;
}

export async function keyCopy(shape: string, witnesses: number): Promise<KeyCopy> {
  const key = await keys.ensure(shape);
  const samples = await sampleWitnesses(shape, key.wasmPath, witnesses);
  const dir = tempDir();
  const zkeyPath = join(dir, `${shape}.zkey`);
  copyFileSync(key.zkeyPath, zkeyPath);
  return { key, samples, dir, zkeyPath };
}
