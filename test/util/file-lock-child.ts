// A process that holds the lock given on its command line for a while, logging when it enters
// and leaves (test/util/file-lock.test.ts runs several at once).
import { appendFileSync } from 'node:fs';
import { withFileLock } from '../../src/util/file-lock.js';

const [lock, log, name, holdMs] = process.argv.slice(2) as [string, string, string, string];
await withFileLock(lock, async () => {
  appendFileSync(log, `${name} in\n`);
  await new Promise((r) => setTimeout(r, Number(holdMs)));
  appendFileSync(log, `${name} out\n`);
});
