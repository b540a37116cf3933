// A node:test reporter that prints, once the run ends, the test files that took longest: each
// file's wall time from the moment the runner gave it a slot until its last result, so what a
// file costs the suite (its process start, hooks and tests) and where CI's minutes go.
// ZKGATE_SLOWEST_FILES sets how many are listed (default 10).
import { relative } from 'node:path';

// Plain JavaScript: the runner loads reporters before the --import loaders that would read TypeScript.

/** @param {AsyncIterable<{type: string, data?: {file?: string, name?: string, nesting?: number}}>} source */
export default async function* slowestFiles(source) {
  const started = new Map();
  const took = new Map();
  const runStarted = performance.now();
  for await (const event of source) {
    const file = event.data?.file;
    // The runner reports each file as a test named by its path: dequeued when it gets a slot.
    if (!file || event.data?.name !== file || event.data.nesting !== 0) continue;
    if (event.type === 'test:dequeue') started.set(file, performance.now());
    else if (event.type === 'test:complete') took.set(file, performance.now() - (started.get(file) ?? runStarted));
  }
  const count = Number(process.env.ZKGATE_SLOWEST_FILES ?? 10);
  const rows = [...took].sort((a, b) => b[1] - a[1]).slice(0, count);
  const total = [...took.values()].reduce((a, b) => a + b, 0);
  yield `\nslowest test files (${took.size} files, ${(total / 1000).toFixed(0)} s of file time in all):\n`;
  for (const [file, ms] of rows) yield `${(ms / 1000).toFixed(1).padStart(9)} s  ${relative(process.cwd(), file)}\n`;
}
