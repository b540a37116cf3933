// Loaded into every test file's process by test/run.mjs (through NODE_OPTIONS): a file that proves
// from the suite's key cache waits here, before its first import, until the run's key prebuild has
// finished, so that it never builds a key or its tables beside the prebuild (twice the work on a
// machine with two cores). Files that need no key, and any process that is not a test file (the
// gateways and tools the tests start), go on at once; so does everything when no prebuild runs.
import { existsSync, readFileSync } from 'node:fs';
import { sourceOf } from './compiled-paths.mjs';

// Plain JavaScript: it runs before any loader is registered (and in processes that have none).

/** What makes a test file wait for the prebuild (also how test/run.mjs orders the files). */
export const USES_SUITE_KEYS =
  /warmKeys|keys\.ensure|KEY_CACHE|TEST_SHAPES|helpers\/zk|prover\/helpers|compression\/helpers|startCli|forester/;

const marker = process.env.ZKGATE_TEST_KEYS_READY;
// A test file compiled by test/compile.mjs is judged by its TypeScript source, as run.mjs orders it.
const file = process.argv[1] && sourceOf(process.argv[1]);
if (marker && file?.endsWith('.test.ts') && USES_SUITE_KEYS.test(readFileSync(file, 'utf8'))) {
  while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 250));
}
