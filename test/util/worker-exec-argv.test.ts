// Piscina's workers run with require(esm) off (PISCINA_EXEC_ARGV): Piscina tries require() before
// import(), and require(esm) once aborted a CI run inside V8. Here: the flag is passed where Node
// knows it, and in a worker started with it, require() of an ES module fails at once (so Piscina
// goes on to import() it) while import() loads it. The pools proving with it: the prover tests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { PISCINA_EXEC_ARGV } from '../../src/util/worker-url.js';

const esm = fileURLToPath(new URL('../../dist/util/secret-file.js', import.meta.url));

function inWorker(code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, execArgv: [...PISCINA_EXEC_ARGV], workerData: esm });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

test('workers get require(esm) off; there require() of an ES module fails and import() loads it', async () => {
  if (!process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module')) {
    assert.deepEqual(PISCINA_EXEC_ARGV, process.execArgv, 'an older Node: nothing added');
    return;
  }
  assert.deepEqual(PISCINA_EXEC_ARGV, [...process.execArgv, '--no-experimental-require-module']);
  const required = await inWorker(
    `const { parentPort, workerData } = require('node:worker_threads');
     try { require(workerData); parentPort.postMessage('loaded'); } catch (e) { parentPort.postMessage(e.code); }`,
  );
  assert.equal(required, 'ERR_REQUIRE_ESM');
  const imported = await inWorker(
    `const { parentPort, workerData } = require('node:worker_threads');
     import(require('node:url').pathToFileURL(workerData).href).then((m) => parentPort.postMessage(typeof m.loadOrCreateSecret));`,
  );
  assert.equal(imported, 'function');
});
