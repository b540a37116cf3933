// Builds a structured circuit's dev key on a worker thread (setup.worker.ts, one build at a time) and caches the
// verifying key, which Light's program gets patched with long before the proving key exists.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../../util/atomic-file.js';
import type { DevSetupResult, Progress } from '../setup/dev-setup.js';
import { setupOnThread } from '../setup/dev-setup-thread.js';
import type { SnarkjsVerificationKey } from '../verify.js';
import { STRUCTURED_CIRCUITS_VERSION, structuredCircuit } from './registry.js';
import { structuredVerificationKey } from './setup.js';
import type { StructuredSetupTask } from './setup.worker.js';

/** Heap for the per-wire QAP values of a 10 M-wire circuit (about 3 GB at their largest). */
const SETUP_HEAP_MB = 8192;

/** What keys a structured shape's build: the circuits' version and the shape. */
export const structuredSourcesHash = (shape: string): string =>
  createHash('sha256').update(`structured@${STRUCTURED_CIRCUITS_VERSION}\0${shape}`).digest('hex');

export function buildStructuredKey(task: StructuredSetupTask, progress?: Progress): Promise<DevSetupResult> {
  return setupOnThread(new URL('./setup.worker.js', import.meta.url), task, task.shape, progress, {
    maxOldGenerationSizeMb: SETUP_HEAP_MB,
  });
}

/**
 * The verifying key of a structured shape's dev key for `seed`, computed from the circuit's size
 * (under a second) and cached in `dir`.
 */
export function structuredVerifyingKey(dir: string, shape: string, seed: string): SnarkjsVerificationKey {
  const id = createHash('sha256')
    .update(`${structuredSourcesHash(shape)}\0${seed}`)
    .digest('hex')
    .slice(0, 16);
  const file = join(dir, `${shape}.${id}.vk.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as SnarkjsVerificationKey;
  const circuit = structuredCircuit(shape);
  if (!circuit) throw new Error(`${shape} is not a structured circuit`);
  const vk = structuredVerificationKey(circuit, { seed, label: shape });
  mkdirSync(dir, { recursive: true });
  writeFileAtomicSync(file, JSON.stringify(vk, null, 1) + '\n');
  return vk;
}
