// A node:test reporter that prints, once the run ends, the test files that took longest: each
// file's wall time from the moment the runner gave it a slot until its last result, so what a
// file costs the suite (its process start, hooks and tests) and where CI's minutes go. It also
// keeps every file's time in DURATIONS_FILE, from which test/run.mjs orders the next run's files.
// ZKGATE_SLOWEST_FILES sets how many are listed (default 10).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceOf } from '../compiled-paths.mjs';

// Plain JavaScript: the runner loads reporters before the --import loaders that would read TypeScript.

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Seconds per test file (paths from the repository root) of the last full run on this machine. */
export const DURATIONS_FILE = fileURLToPath(
  new URL('../../node_modules/.cache/zkgate-test/file-seconds.json', import.meta.url),
);

/** @param {AsyncIterable<{type: string, data?: {file?: string, name?: string, nesting?: number}}>} source */
export default async function* slowestFiles(source) {
  const started = new Map();
  const took = new Map();
  const runStarted = performance.now();
  for await (const event of source) {
    // Named by their TypeScript sources, whether the run compiled them (test/compile.mjs) or not.
    const file = event.data?.file && sourceOf(event.data.file);
    // The runner reports each file as a test named by its path: dequeued when it gets a slot.
    if (!file || event.data?.name !== event.data.file || event.data.nesting !== 0) continue;
    if (event.type === 'test:dequeue') started.set(file, performance.now());
    else if (event.type === 'test:complete') took.set(file, performance.now() - (started.get(file) ?? runStarted));
  }
  const count = Number(process.env.ZKGATE_SLOWEST_FILES ?? 10);
  const rows = [...took].sort((a, b) => b[1] - a[1]).slice(0, count);
  const total = [...took.values()].reduce((a, b) => a + b, 0);
  yield `\nslowest test files (${took.size} files, ${(total / 1000).toFixed(0)} s of file time in all):\n`;
  for (const [file, ms] of rows) yield `${(ms / 1000).toFixed(1).padStart(9)} s  ${relative(root, file)}\n`;
  // A partial run (a name pattern, a few files) would mislead the next full run's order.
  if (took.size >= 20 && process.env.ZKGATE_RECORD_DURATIONS !== '0') {
    mkdirSync(dirname(DURATIONS_FILE), { recursive: true });
    const seconds = Object.fromEntries(
      [...took].map(([file, ms]) => [relative(root, file), Math.round(ms / 100) / 10]),
    );
    writeFileSync(DURATIONS_FILE, `${JSON.stringify(seconds, null, 1)}\n`);
  }
}
