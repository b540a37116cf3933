// npm test's runner: the lint and the suite's dev keys first (./prebuild-keys.ts), then every
// test/**/*.test.ts through Node's test runner (two files at a time), with
// the runner's usual report (spec on a terminal, TAP otherwise, as `node --test` picks) on stdout
// and, on stderr at the end, the slowest files (./reporters/slowest-files.mjs). Arguments are
// passed on (`npm test -- --test-name-pattern=…`).
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const files = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : name.endsWith('.test.ts') ? [relative(root, p)] : [];
  });

// First, side by side: the lint (type check and formatting) and the suite's dev keys, two builds at
// a time (./prebuild-keys.ts).
const run = (command, args) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('exit', (code) => resolve(code));
  });
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const [lint, ...built] = await Promise.all([
  run(npm, ['run', '--silent', 'lint']),
  run(process.execPath, ['--import', 'tsx', 'test/prebuild-keys.ts', 'forward']),
  run(process.execPath, ['--import', 'tsx', 'test/prebuild-keys.ts', 'backward']),
]);
if (lint !== 0) {
  console.error('npm test: the lint failed (above)');
  process.exit(1);
}
if (built.some((code) => code !== 0)) {
  console.error('npm test: building the suite’s dev keys failed (above)');
  process.exit(1);
}

const reporter = process.stdout.isTTY ? 'spec' : 'tap';
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    `--test-reporter=${reporter}`,
    '--test-reporter-destination=stdout',
    '--test-reporter=./test/reporters/slowest-files.mjs',
    '--test-reporter-destination=stderr',
    ...process.argv.slice(2),
    ...files(join(root, 'test')).sort(),
  ],
  { cwd: root, stdio: 'inherit' },
);
process.exit(r.status ?? 1);
