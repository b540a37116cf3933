// Builds the native prover addon (native/build/zkgate_native.node) with the machine's g++ and
// Node's own headers. It never fails an install: without a toolchain it records why in
// native/build/status.json, and zkgate starts with the snarkjs backend and says so.
//   node native/build.mjs              build if sources or flags changed
//   node native/build.mjs --force      build again
//   node native/build.mjs --sanitize   build the C++ self-test under AddressSanitizer + UBSan and run it
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, 'src');
// ZKGATE_NATIVE_BUILD_DIR builds elsewhere (the tests of the no-compiler path use it).
const out = process.env.ZKGATE_NATIVE_BUILD_DIR || join(here, 'build');
const statusFile = join(out, 'status.json');
const args = new Set(process.argv.slice(2));
const cxx = process.env.CXX || 'g++';

function nodeHeaders() {
  const candidates = [
    process.env.npm_config_nodedir && join(process.env.npm_config_nodedir, 'include', 'node'),
    join(dirname(dirname(process.execPath)), 'include', 'node'),
  ].filter(Boolean);
  return candidates.find((d) => existsSync(join(d, 'node_api.h')));
}

function record(status) {
  mkdirSync(out, { recursive: true });
  writeFileSync(statusFile, JSON.stringify(status, null, 2) + '\n');
}

function run(cmd, argv) {
  const r = spawnSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error) return { ok: false, output: String(r.error.message) };
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

const sources = readdirSync(src)
  .filter((f) => /\.(cpp|hpp)$/.test(f))
  .sort();
const units = sources.filter((f) => f.endsWith('.cpp'));
const common = ['-std=c++17', '-pthread', '-fPIC', '-Wall', '-Wextra', '-Wno-unused-parameter'];

if (args.has('--sanitize')) {
  // The self-test links the prover core without Node, under ASan + UBSan.
  const headers = [join(here, 'src')];
  const exe = join(out, 'selftest-sanitized');
  mkdirSync(out, { recursive: true });
  const flags = [
    ...common,
    '-O1',
    '-g',
    '-march=native',
    '-fsanitize=address,undefined',
    '-fno-sanitize-recover=all',
    '-fno-omit-frame-pointer',
  ];
  const build = run(cxx, [
    ...flags,
    ...headers.map((h) => `-I${h}`),
    join(here, 'test', 'selftest.cpp'),
    ...units.filter((u) => u !== 'addon.cpp').map((u) => join(src, u)),
    '-o',
    exe,
  ]);
  if (!build.ok) {
    console.error(build.output);
    process.exit(1);
  }
  const test = spawnSync(exe, process.argv.slice(3), { stdio: 'inherit' });
  process.exit(test.status ?? 1);
}

const headers = nodeHeaders();
const flags = [...common, '-O3', '-march=native', '-shared', '-DNODE_GYP_MODULE_NAME=zkgate_native'];
const hash = createHash('sha256');
for (const f of sources) hash.update(f).update(readFileSync(join(src, f)));
hash.update(JSON.stringify({ cxx, flags, node: process.versions.node }));
const digest = hash.digest('hex');
const target = join(out, 'zkgate_native.node');

let previous;
try {
  previous = JSON.parse(readFileSync(statusFile, 'utf8'));
} catch {
  previous = undefined;
}
if (!args.has('--force') && previous?.ok && previous.digest === digest && existsSync(target)) process.exit(0);

if (!headers) {
  record({
    ok: false,
    reason: "Node's headers (node_api.h) were not found next to the node binary or in npm's nodedir",
  });
  console.warn('zkgate: native prover not built: Node headers not found; the snarkjs backend will be used');
  process.exit(0);
}
const version = run(cxx, ['--version']);
if (!version.ok) {
  record({ ok: false, reason: `no C++ compiler (${cxx}): ${version.output.trim().split('\n')[0]}` });
  console.warn(`zkgate: native prover not built: ${cxx} not found; the snarkjs backend will be used`);
  process.exit(0);
}
const started = Date.now();
mkdirSync(out, { recursive: true });
const tmp = join(out, `zkgate_native.${process.pid}.tmp.node`);
const build = run(cxx, [...flags, `-I${headers}`, `-I${src}`, ...units.map((u) => join(src, u)), '-o', tmp]);
if (!build.ok) {
  record({ ok: false, reason: `the compiler failed: ${build.output.trim().split('\n').slice(0, 5).join(' | ')}` });
  console.warn(`zkgate: native prover not built (compiler error); the snarkjs backend will be used\n${build.output}`);
  process.exit(0);
}
// A shared object links with undefined symbols (Node provides N-API's at load time): load it once
// here so a broken build is reported now rather than when zkgate starts.
const check = run(process.execPath, ['-e', `require(${JSON.stringify(tmp)})`]);
if (!check.ok) {
  record({ ok: false, reason: `the built addon does not load: ${check.output.trim().split('\n')[0]}` });
  console.warn(`zkgate: native prover built but does not load; the snarkjs backend will be used\n${check.output}`);
  process.exit(0);
}
renameSync(tmp, target);
record({
  ok: true,
  digest,
  compiler: version.output.split('\n')[0],
  flags: flags.join(' '),
  seconds: (Date.now() - started) / 1000,
});
console.log(`zkgate: native prover built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
