// Compiles circuit shapes with circom 2 (npm `circom2`, --O2) into the data dir, lazily and cached:
// the cache key hashes the source files the shape includes (ours and circomlib's), the main
// component and the compiler version, so editing a circuit or upgrading circom rebuilds the shapes
// that use it, and only those.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../errors.js';
import { processAlive, withFileLock } from '../util/file-lock.js';
import { NICE_BUILD, niceProcess } from '../util/thread-priority.js';
import { mainSource, type Shape } from './shapes.js';

const require = createRequire(import.meta.url);
export const CIRCUITS_DIR = fileURLToPath(new URL('../../circuits/', import.meta.url));
const CIRCOMLIB_DIR = dirname(require.resolve('circomlib/package.json'));
const CIRCOM_CLI = require.resolve('circom2/cli.js');
const CIRCOM_VERSION = (
  JSON.parse(readFileSync(require.resolve('circom2/package.json'), 'utf8')) as { version: string }
).version;

export class CompileError extends AppError {
  readonly kind = 'compile_failed';
}

export interface CompiledCircuit {
  shape: Shape;
  dir: string;
  r1cs: string;
  wasm: string;
  sourcesHash: string;
}

/** Our .circom files plus the circomlib files they include, as (path in build dir → content). */
function collectSources(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name), `${prefix}${e.name}/`);
      else if (e.name.endsWith('.circom')) files.set(prefix + e.name, readFileSync(join(dir, e.name), 'utf8'));
    }
  };
  walk(CIRCUITS_DIR, '');
  const pending = [...files.values()];
  while (pending.length > 0) {
    const text = pending.pop()!;
    for (const m of text.matchAll(/include\s+"([^"]+)"/g)) {
      const inc = m[1]!;
      if (!inc.startsWith('circomlib/')) continue;
      if (files.has(inc)) continue;
      const content = readFileSync(join(CIRCOMLIB_DIR, inc.slice('circomlib/'.length)), 'utf8');
      files.set(inc, content);
      // circomlib's own includes are relative to its circuits folder.
      const base = dirname(inc);
      pending.push(content.replace(/include\s+"([^"]+)"/g, (_, p: string) => `include "${posix.join(base, p)}"`));
    }
  }
  return files;
}

let sourcesCache: Map<string, string> | undefined;

function sources(): Map<string, string> {
  sourcesCache ??= collectSources();
  return sourcesCache;
}

/** Where an include in `from` points: beside the including file if there is one, else from the root. */
function resolveInclude(files: Map<string, string>, from: string, inc: string): string {
  const beside = posix.normalize(posix.join(posix.dirname(from), inc));
  return files.has(beside) || inc.startsWith('.') ? beside : posix.normalize(inc);
}

/** The include paths written in a file, each source's scanned once (some are megabytes of constants). */
function includesOf(from: string, text: string): string[] {
  const scan = () => [...text.matchAll(/include\s+"([^"]+)"/g)].map((m) => m[1]!);
  if (from === 'main.circom') return scan(); // differs per shape
  let found = includeLists.get(from);
  if (!found) includeLists.set(from, (found = scan()));
  return found;
}
const includeLists = new Map<string, string[]>();

/** The source files a main component includes, directly or not. */
export function includedFiles(main: string): string[] {
  const files = sources();
  const seen = new Set<string>();
  const visit = (from: string, text: string) => {
    for (const inc of includesOf(from, text)) {
      const path = resolveInclude(files, from, inc);
      if (seen.has(path)) continue;
      seen.add(path);
      const content = files.get(path);
      if (content === undefined) throw new CompileError(`${from} includes ${inc}, which is not a known source`);
      visit(path, content);
    }
  };
  visit('main.circom', main);
  return [...seen].sort();
}

/**
 * The cache key of a shape's build: the compiler version, its main component and the files it
 * includes, so that editing one circuit rebuilds only the shapes that use it.
 */
export function sourcesHash(shape: Shape): string {
  // The sources are fixed for the life of the process; start-up asks once per known shape.
  let h = hashes.get(shape.name);
  if (h === undefined) hashes.set(shape.name, (h = computeSourcesHash(shape)));
  return h;
}
const hashes = new Map<string, string>();

function computeSourcesHash(shape: Shape): string {
  const main = mainSource(shape);
  const files = includedFiles(main);
  // Shapes of a family include the same files (megabytes, with circomlib's constants): their
  // hash state after the files is computed once and copied.
  const id = files.join('\0');
  let prefix = filesHashes.get(id);
  if (!prefix) {
    prefix = createHash('sha256').update(`circom2@${CIRCOM_VERSION}\0`);
    for (const path of files) prefix.update(path).update('\0').update(sources().get(path)!).update('\0');
    filesHashes.set(id, prefix);
  }
  return prefix.copy().update(main).digest('hex');
}
const filesHashes = new Map<string, Hash>();

export function compiledPaths(shape: Shape, dataDir: string): CompiledCircuit {
  const hash = sourcesHash(shape);
  const dir = join(dataDir, 'circuits', shape.name, hash.slice(0, 16));
  return { shape, dir, r1cs: join(dir, 'main.r1cs'), wasm: join(dir, 'main_js', 'main.wasm'), sourcesHash: hash };
}

/**
 * Compiler processes still running. A gateway that stops (or exits) while a key builds in the
 * background kills them: left alone they would outlive it and compete for the CPU of the next start.
 */
const compilers = new Set<ChildProcess>();
const stopped = new WeakSet<ChildProcess>();
let exitHookInstalled = false;

/** Kills every compiler this process started that is still running. */
export function stopCompilers(): void {
  for (const c of compilers) {
    stopped.add(c);
    c.kill('SIGKILL');
  }
  compilers.clear();
}

function runCircom(cwd: string): Promise<void> {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', stopCompilers);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CIRCOM_CLI, 'main.circom', '--r1cs', '--wasm', '--O2', '-l', '.', '-o', '.'],
      {
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    compilers.add(child);
    niceProcess(child.pid, NICE_BUILD);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      compilers.delete(child);
      if (stopped.has(child)) return reject(new CompileError('circom was stopped: the prover is shutting down'));
      // circom colours its output; keep the log readable.
      const text = out.replace(/\x1b\[[0-9;]*m/g, '').trim();
      if (code === 0 && existsSync(join(cwd, 'main.r1cs'))) resolve();
      else reject(new CompileError(`circom failed (exit ${code}): ${text.slice(-2000)}`));
    });
  });
}

/** The private folders of compiles of `dir` whose process was killed midway. */
function removeAbandonedCompiles(dir: string): void {
  const parent = dirname(dir);
  const prefix = `${dir.slice(parent.length + 1)}.tmp-`;
  if (!existsSync(parent)) return;
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!processAlive(pid)) rmSync(join(parent, name), { recursive: true, force: true });
  }
}

const inFlight = new Map<string, Promise<CompiledCircuit>>();

/** The compiled circuit of `shape`, compiling it first if the cache has no build of these sources. */
export function compileShape(shape: Shape, dataDir: string): Promise<CompiledCircuit> {
  const target = compiledPaths(shape, dataDir);
  if (existsSync(target.r1cs) && existsSync(target.wasm)) return Promise.resolve(target);
  let p = inFlight.get(target.dir);
  if (!p) {
    // One compile per build of these sources across the processes sharing the data dir: a second
    // waits for the first and finds its result.
    p = withFileLock(`${target.dir}.lock`, async () => {
      // Build in a private folder, then rename: a crash never leaves a half-written cache entry.
      const tmp = `${target.dir}.tmp-${process.pid}-${Date.now()}`;
      try {
        if (existsSync(target.r1cs) && existsSync(target.wasm)) return target;
        removeAbandonedCompiles(target.dir);
        mkdirSync(tmp, { recursive: true });
        for (const [path, content] of sources()) {
          mkdirSync(dirname(join(tmp, path)), { recursive: true });
          writeFileSync(join(tmp, path), content);
        }
        writeFileSync(join(tmp, 'main.circom'), mainSource(shape));
        await runCircom(tmp);
        for (const entry of readdirSync(tmp)) {
          if (entry !== 'main.r1cs' && entry !== 'main_js') rmSync(join(tmp, entry), { recursive: true, force: true });
        }
        if (!existsSync(target.dir)) renameSync(tmp, target.dir);
        return target;
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    });
    inFlight.set(target.dir, p);
    p.then(
      () => inFlight.delete(target.dir),
      () => inFlight.delete(target.dir),
    );
  }
  return p;
}
