// Where a worker thread's module is. Worker threads on Node 20 do not inherit TypeScript loader
// hooks (tsx), so when zkgate runs from its sources (tests, `npm run bench`) workers load the
// compiled copy of the same module from dist/, which `npm ci` / `npm run build` produce.
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SRC = fileURLToPath(new URL('../', import.meta.url));
const ROOT = resolve(SRC, '..');

/** `moduleUrl` is the worker module's own URL, e.g. new URL('./x.worker.js', import.meta.url). */
export function workerUrl(moduleUrl: URL): string {
  const path = fileURLToPath(moduleUrl);
  if (!import.meta.url.endsWith('.ts')) return moduleUrl.href;
  const compiled = resolve(ROOT, 'dist', relative(SRC, path)).replace(/\.ts$/, '.js');
  if (!existsSync(compiled)) throw new Error(`worker module ${compiled} is missing: run npm run build`);
  return pathToFileURL(compiled).href;
}

/**
 * The execArgv of Piscina's workers: the process's own, with require(esm) off. Piscina loads a
 * task module with require() first and import() after; on Node 20.19+ require() of an ES module
 * takes the require(esm) path, which once aborted a CI run (a V8 fatal error in
 * Module::IsGraphAsync, in a prover worker). With it off, require() fails at once and Piscina
 * imports the module the ES way.
 */
export const PISCINA_EXEC_ARGV: readonly string[] = [
  ...process.execArgv,
  ...(process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module')
    ? ['--no-experimental-require-module']
    : []),
];
