// Builds, side by side, into native/build/:
//   zkgate_native.node   the prover addon (g++ and Node's own headers);
//   zkgate-prove         the standalone prover (g++; no Node needed: what runs on GPU hosts);
//   libzkgate_cuda.so    the GPU pipeline (nvcc, when the machine has it), opened at run time by both.
// It never fails an install: what cannot be built is recorded with the reason in
// native/build/status.json (zkgate then starts with another backend and says so).
//   node native/build.mjs              build what changed
//   node native/build.mjs --force      build again
//   node native/build.mjs --sanitize   build the C++ self-test under AddressSanitizer + UBSan and run it
// The CUDA library is built where nvcc and an NVIDIA driver are found; ZKGATE_BUILD_CUDA=1 builds
// it without a driver (a compile check), ZKGATE_SKIP_CUDA=1 leaves it out; NVCC names the compiler
// (default: nvcc on PATH, then /usr/local/cuda/bin/nvcc, then /usr/local/cuda-13.0/bin/nvcc).
import { spawn, spawnSync } from 'node:child_process';
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
// Host/device code shared with the CUDA library (hd/) is part of the core too.
const hdSources = readdirSync(join(src, 'hd'))
  .sort()
  .map((f) => join('hd', f));
const cudaSources = readdirSync(join(src, 'cuda'))
  .sort()
  .map((f) => join('cuda', f));
const units = sources.filter((f) => f.endsWith('.cpp'));
const common = ['-std=c++17', '-pthread', '-fPIC', '-Wall', '-Wextra', '-Wno-unused-parameter'];

if (args.has('--sanitize')) {
  // The self-test links the prover core without Node, under ASan + UBSan.
  const headers = [join(here, 'src')];
  const exe = join(out, 'selftest-sanitized');
  mkdirSync(out, { recursive: true });
  const flags = [
    ...common,
    // -Og (the inline assembly needs some optimisation) and line tables, which are what sanitizer
    // reports need: a third of -O1 -g's compile time, the suite's costliest step.
    '-Og',
    '-g1',
    '-march=native',
    '-fsanitize=address,undefined',
    '-fno-sanitize-recover=all',
    '-fno-omit-frame-pointer',
  ];
  // One translation unit including the self-test and every core unit: their templates (fields,
  // curves, MSMs for G1 and G2) are instantiated and instrumented once instead of once a unit, a
  // third of the compile time in all (47 against 155 s of a core), the test suite's costliest step.
  const unity = join(out, 'selftest-sanitized.unity.cpp');
  const files = [
    join(here, 'test', 'selftest.cpp'),
    ...units.filter((u) => u !== 'addon.cpp').map((u) => join(src, u)),
  ];
  writeFileSync(unity, files.map((f) => `#include ${JSON.stringify(f)}\n`).join(''));
  const build = run(cxx, [...flags, ...headers.map((h) => `-I${h}`), unity, '-o', exe]);
  if (!build.ok) {
    console.error(build.output);
    process.exit(1);
  }
  const test = spawnSync(exe, process.argv.slice(3), { stdio: 'inherit' });
  process.exit(test.status ?? 1);
}

const headers = nodeHeaders();
const addonFlags = [...common, '-O3', '-march=native', '-shared', '-DNODE_GYP_MODULE_NAME=zkgate_native'];
const toolFlags = [...common, '-O3', '-march=native'];
// sm_90 machine code for the H100 hosts, plus compute_80 PTX that newer and other GPUs (sm_80 and
// up) compile when they load it.
const cudaFlags = [
  '-std=c++17',
  '-O3',
  '--extended-lambda',
  '-Xcompiler',
  '-fPIC,-fvisibility=hidden,-O1',
  '-shared',
  '-gencode=arch=compute_90,code=sm_90',
  '-gencode=arch=compute_80,code=compute_80',
  '-cudart',
  'static',
];

function digestOf(files, extra) {
  const hash = createHash('sha256');
  for (const f of files) hash.update(f).update(readFileSync(join(src, f)));
  hash.update(JSON.stringify(extra));
  return hash.digest('hex');
}

/** Runs a compiler without blocking the others (the builds overlap on a 2-core machine). */
function runAsync(cmd, argv) {
  return new Promise((resolveRun) => {
    let output = '';
    let child;
    try {
      child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      resolveRun({ ok: false, output: String(e.message) });
      return;
    }
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (e) => resolveRun({ ok: false, output: String(e.message) }));
    child.on('close', (code) => resolveRun({ ok: code === 0, output }));
  });
}

let previous;
try {
  previous = JSON.parse(readFileSync(statusFile, 'utf8'));
} catch {
  previous = undefined;
}
const force = args.has('--force');
const firstLines = (text, n) => text.trim().split('\n').slice(0, n).join(' | ');
const cxxVersion = run(cxx, ['--version']);
const coreSources = [...sources, ...hdSources];

/**
 * A target's sources as one translation unit (a generated file of #includes): the core's templates
 * (fields, curves, MSMs for G1 and G2, NTTs) are instantiated and optimised once per target rather
 * than once per unit. Each target is one compiler process, and the two build side by side: 51 s
 * and 53 s of a core against 179 s for the units one by one; proofs measured alike (see
 * benchmarks/RESULTS.md).
 */
function unitySource(name, files) {
  mkdirSync(out, { recursive: true });
  const path = join(out, `${name}.unity.cpp`);
  writeFileSync(path, files.map((f) => `#include ${JSON.stringify(f)}\n`).join(''));
  return path;
}

async function buildAddon() {
  const target = join(out, 'zkgate_native.node');
  const digest = digestOf(coreSources, { cxx, addonFlags, node: process.versions.node, unity: true });
  const prev = previous?.addon ?? (previous?.digest ? previous : undefined);
  if (!force && prev?.ok && prev.digest === digest && existsSync(target)) return prev;
  if (!headers)
    return {
      ok: false,
      reason: "Node's headers (node_api.h) were not found next to the node binary or in npm's nodedir",
    };
  if (!cxxVersion.ok) return { ok: false, reason: `no C++ compiler (${cxx}): ${firstLines(cxxVersion.output, 1)}` };
  const started = Date.now();
  const tmp = join(out, `zkgate_native.${process.pid}.tmp.node`);
  const unity = unitySource(
    'zkgate_native',
    units.map((u) => join(src, u)),
  );
  const build = await runAsync(cxx, [...addonFlags, `-I${headers}`, `-I${src}`, unity, '-o', tmp]);
  if (!build.ok)
    return { ok: false, reason: `the compiler failed: ${firstLines(build.output, 5)}`, output: build.output };
  // A shared object links with undefined symbols (Node provides N-API's at load time): load it once
  // here so a broken build is reported now rather than when zkgate starts.
  const check = run(process.execPath, ['-e', `require(${JSON.stringify(tmp)})`]);
  if (!check.ok) return { ok: false, reason: `the built addon does not load: ${firstLines(check.output, 1)}` };
  renameSync(tmp, target);
  return {
    ok: true,
    digest,
    compiler: firstLines(cxxVersion.output, 1),
    flags: addonFlags.join(' '),
    seconds: (Date.now() - started) / 1000,
  };
}

async function buildTool() {
  const target = join(out, 'zkgate-prove');
  const toolSource = join(here, 'tools', 'zkgate-prove.cpp');
  if (!existsSync(toolSource)) return { ok: false, reason: 'native/tools/zkgate-prove.cpp is missing' };
  const hash = createHash('sha256')
    .update(readFileSync(toolSource))
    .update(digestOf(coreSources, { cxx, toolFlags, unity: true }));
  const digest = hash.digest('hex');
  if (!force && previous?.prove?.ok && previous.prove.digest === digest && existsSync(target)) return previous.prove;
  if (!cxxVersion.ok) return { ok: false, reason: `no C++ compiler (${cxx})` };
  const started = Date.now();
  const tmp = join(out, `zkgate-prove.${process.pid}.tmp`);
  const unity = unitySource('zkgate-prove', [
    ...units.filter((u) => u !== 'addon.cpp').map((u) => join(src, u)),
    toolSource,
  ]);
  const build = await runAsync(cxx, [...toolFlags, `-I${src}`, unity, '-o', tmp]);
  if (!build.ok)
    return { ok: false, reason: `the compiler failed: ${firstLines(build.output, 5)}`, output: build.output };
  renameSync(tmp, target);
  return { ok: true, digest, seconds: (Date.now() - started) / 1000 };
}

function findNvcc() {
  // NVCC, when set, is the only candidate (so a build can be told there is none).
  const candidates = process.env.NVCC
    ? [process.env.NVCC]
    : ['nvcc', '/usr/local/cuda/bin/nvcc', '/usr/local/cuda-13.0/bin/nvcc'];
  for (const c of candidates) {
    const v = run(c, ['--version']);
    if (v.ok) return { nvcc: c, version: v.output.trim().split('\n').pop() };
  }
  return undefined;
}

function nvidiaDriverPresent() {
  return ['/proc/driver/nvidia/version', '/dev/nvidiactl'].some((p) => existsSync(p));
}

async function buildCuda() {
  if (process.env.ZKGATE_SKIP_CUDA === '1') return { ok: false, reason: 'skipped (ZKGATE_SKIP_CUDA=1)' };
  const found = findNvcc();
  if (!found)
    return {
      ok: false,
      reason: 'nvcc was not found (set NVCC, or install the CUDA toolkit); the GPU backend is unavailable',
    };
  // The library is of use only where a GPU can run it, and compiling it costs minutes of both
  // cores of a small machine: without an NVIDIA driver it is left out unless asked for.
  if (process.env.ZKGATE_BUILD_CUDA !== '1' && !nvidiaDriverPresent())
    return {
      ok: false,
      noGpu: true,
      reason: 'no NVIDIA driver on this machine, so no GPU to run it (ZKGATE_BUILD_CUDA=1 builds it anyway)',
    };
  const target = join(out, 'libzkgate_cuda.so');
  const digest = digestOf([...hdSources, ...cudaSources], { cudaFlags, version: found.version });
  if (!force && previous?.cuda?.ok && previous.cuda.digest === digest && existsSync(target)) return previous.cuda;
  const started = Date.now();
  const tmp = join(out, `libzkgate_cuda.${process.pid}.tmp.so`);
  const build = await runAsync(found.nvcc, [...cudaFlags, join(src, 'cuda', 'zkgate_cuda.cu'), '-o', tmp]);
  if (!build.ok) return { ok: false, reason: `nvcc failed: ${firstLines(build.output, 5)}`, output: build.output };
  renameSync(tmp, target);
  return {
    ok: true,
    digest,
    compiler: found.version,
    flags: cudaFlags.join(' '),
    seconds: (Date.now() - started) / 1000,
  };
}

mkdirSync(out, { recursive: true });
const started = Date.now();
const [addon, prove, cuda] = await Promise.all([buildAddon(), buildTool(), buildCuda()]);
const strip = ({ output, ...rest }) => rest;
// `ok`/`reason` at the top level describe the addon, as before (zkgate reads them).
record({ ...strip(addon), addon: strip(addon), prove: strip(prove), cuda: strip(cuda) });
for (const [name, r] of [
  ['native prover addon', addon],
  ['zkgate-prove', prove],
  ['CUDA library', cuda],
]) {
  // A machine without a GPU has no use for the CUDA library: nothing to warn about.
  if (r.ok || r.noGpu) continue;
  console.warn(`zkgate: ${name} not built: ${r.reason}`);
  if (r.output) console.warn(r.output.split('\n').slice(0, 30).join('\n'));
}
if (!addon.ok) console.warn('zkgate: the snarkjs backend will be used');
const rebuilt = [addon, prove, cuda].some(
  (r) => r.ok && r.seconds !== undefined && r !== previous?.addon && r !== previous?.prove && r !== previous?.cuda,
);
if (rebuilt) console.log(`zkgate: native build finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
