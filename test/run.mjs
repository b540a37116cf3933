// npm test's runner. It compiles the suite's TypeScript into .test-js/ (./compile.mjs: the tests
// then run as plain JavaScript against dist/, without a loader's cost in each process), then starts,
// side by side: the lint (type check and formatting), the build of the dev keys and tables the suite
// proves with (./prebuild-keys.ts, two lanes into one cache), and Node's test runner over every
// test/**/*.test.ts, three files at a time.
//
// The order of the files is ours (Node's command line would sort them): first the files that
// prove nothing from the suite's keys, which run while the keys build, then the others; each group
// longest first, so that no long file starts last. A file that needs the keys waits for the
// prebuild to finish before it starts (./keys-gate.mjs), so no key or table is built twice. Three
// files at a time: with two, a file waiting on a slot, a socket or a child process leaves a core
// idle (the suite used 82 % of two cores). Durations come from the last run on this machine (the
// slowest-files reporter writes them) or else from EXPECTED below; only the order depends on them.
//
// Output: the runner's usual report (spec on a terminal, TAP otherwise) on stdout and, on stderr
// at the end, the slowest files (./reporters/slowest-files.mjs). `npm test -- --test-name-pattern=X`
// runs the tests whose names match.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { run as runTests } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileTests } from './compile.mjs';
import { ensurePostgres } from './ensure-postgres.mjs';
import { ensureRedis } from './ensure-redis.mjs';
import { compiledOf } from './compiled-paths.mjs';
import { USES_SUITE_KEYS } from './keys-gate.mjs';
import slowestFiles, { DURATIONS_FILE } from './reporters/slowest-files.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const files = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : name.endsWith('.test.ts') ? [relative(root, p)] : [];
  });

/**
 * Seconds per file on a 2-core machine: a clean clone's `npm test` (2026-12-03, 0b06ab1), files of
 * 15 s or more; the others count as short. A file that proves with the suite's keys includes its
 * wait for them. Only the order depends on these: outdated, a long file may start last.
 */
const EXPECTED = {
  'test/forester/transfers.test.ts': 210,
  'test/forester/gateway.test.ts': 180,
  'test/native/proofs.test.ts': 175,
  'test/ingest/follow.test.ts': 155,
  'test/zk/key-build-process.test.ts': 135,
  'test/prover/service.test.ts': 100,
  'test/prover/first-start.test.ts': 90,
  'test/zk/light-prove.test.ts': 90,
  'test/ingest/follow-pg.test.ts': 70,
  'test/ingest/follow-light.test.ts': 55,
  'test/native/cuda-device-code.test.ts': 55,
  'test/forester/batch-circuits.test.ts': 50,
  'test/native/accelerated.test.ts': 45,
  'test/cli.test.ts': 40,
  'test/pg/kv.test.ts': 35,
  'test/zk/structured.test.ts': 35,
  'test/ingest/follow-crash.test.ts': 30,
  'test/zk/proofs.test.ts': 30,
  'test/prover/demo.test.ts': 30,
  'test/queue/fleet.test.ts': 30,
  'test/das/queries.test.ts': 30,
  'test/prover/light-keys.test.ts': 30,
  'test/native/tables.test.ts': 25,
  'test/ingest/follow-fork.test.ts': 25,
  'test/native/zkgate-prove.test.ts': 25,
  'test/keys-cli.test.ts': 20,
  'test/zk/light-v014.test.ts': 20,
  'test/forester/restart.test.ts': 20,
  'test/compression/key-import.test.ts': 20,
  'test/compression/ingest.test.ts': 20,
  'test/queue/job-queue.test.ts': 15,
  'test/pubsub/protocol.test.ts': 15,
  'test/native/scalar-path.test.ts': 15,
  'test/compression/photon-api.test.ts': 15,
  'test/das/get-asset.test.ts': 15,
  'test/prover/preload-budget.test.ts': 15,
  'test/native/preemption.test.ts': 15,
};
const measured = existsSync(DURATIONS_FILE) ? JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) : {};
const seconds = (f) => measured[f] ?? EXPECTED[f] ?? 1;

const usesKeys = (f) => USES_SUITE_KEYS.test(readFileSync(join(root, f), 'utf8'));
const ordered = files(join(root, 'test'))
  .map((f) => ({ f, keys: usesKeys(f), s: seconds(f) }))
  .sort((a, b) => Number(a.keys) - Number(b.keys) || b.s - a.s || a.f.localeCompare(b.f))
  .map(({ f }) => compiledOf(join(root, f)));
ensureRedis();
ensurePostgres();
await compileTests();

const child = (command, args) =>
  new Promise((resolve) => {
    const c = spawn(command, args, { cwd: root, stdio: 'inherit' });
    c.on('exit', (code) => resolve(code));
  });
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const lint = child(npm, ['run', '--silent', 'lint']);
const keys = Promise.all(
  ['forward', 'backward'].map((lane) =>
    child(process.execPath, [compiledOf(join(root, 'test/prebuild-keys.ts')), lane]),
  ),
);
// The gate the key-using files wait at: a file written once both lanes have ended (built or not:
// a file that then finds no key reports it), and the gate loaded into the test files' processes.
const ready = join(tmpdir(), `zkgate-test-keys-ready-${process.pid}`);
rmSync(ready, { force: true });
keys.then(() => writeFileSync(ready, ''));
process.on('exit', () => rmSync(ready, { force: true }));
process.env.ZKGATE_TEST_KEYS_READY = ready;
process.env.NODE_OPTIONS =
  `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(join(root, 'test/keys-gate.mjs')).href}`.trim();

const patterns = process.argv
  .slice(2)
  .flatMap((a, i, all) =>
    a.startsWith('--test-name-pattern=')
      ? [a.slice('--test-name-pattern='.length)]
      : a === '--test-name-pattern'
        ? [all[i + 1]]
        : [],
  );
// The slowest-files reporter keeps a full run's file times only (see DURATIONS_FILE).
if (patterns.length > 0) process.env.ZKGATE_RECORD_DURATIONS = '0';
const stream = runTests({
  files: ordered,
  concurrency: 3,
  ...(patterns.length > 0 ? { testNamePatterns: patterns } : {}),
});
let failed = false;
stream.on('test:fail', (data) => {
  if (!data.todo) failed = true;
});
const report = new PassThrough({ objectMode: true });
const slowest = new PassThrough({ objectMode: true });
stream.pipe(report);
stream.pipe(slowest);
// stdout is never ended by a pipe: the report is done when its reporter is. The slowest files are
// written after it, so that they do not land among the report's last lines.
const tapReport = report.compose(process.stdout.isTTY ? spec : tap);
tapReport.pipe(process.stdout);
const slowestLines = [];
const slowestReport = slowest.compose(slowestFiles);
slowestReport.on('data', (chunk) => slowestLines.push(chunk));
const reported = Promise.all([finished(tapReport), finished(slowestReport)]).then(() =>
  process.stderr.write(slowestLines.join('')),
);

const [lintCode, keyCodes] = await Promise.all([lint, keys]);
await reported;
const lintFailed = lintCode !== 0;
const keysFailed = keyCodes.some((code) => code !== 0);
if (lintFailed) console.error('npm test: the lint failed (above)');
if (keysFailed) console.error('npm test: building the suite’s dev keys failed (above)');
process.exitCode = failed || lintFailed || keysFailed ? 1 : 0;
