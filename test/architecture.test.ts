// The areas of src/ in their layers, as docs/architecture.md draws them: an import goes to the
// same area or to a lower layer, never up and never sideways into another area of the same layer,
// so data flows one way (serving areas read what ingesting areas wrote) and no area depends on
// one that depends on it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Lowest first. An entry is a folder of src/ or a top-level file without its extension. */
export const LAYERS: readonly (readonly string[])[] = [
  ['errors', 'version', 'types'],
  ['util', 'wire'],
  ['zk'],
  ['config'],
  ['state', 'obs', 'pg'],
  ['ledger', 'grpc'],
  ['compression', 'das', 'sim'],
  ['prover', 'ingest'],
  ['forester', 'queue'],
  ['rpc'],
  ['pubsub'],
  // The composition root and the CLI's commands, then the CLI itself.
  ['sample-witnesses'],
  ['keys-export'],
  ['gateway', 'demo-command', 'forester-command', 'keys-command'],
  ['main'],
];

function areaOf(file: string): string {
  const first = relative(SRC, file).split(sep)[0]!;
  // An import names the compiled file (errors.js); the source is errors.ts.
  return first.replace(/\.(js|ts)$/, '');
}

function layerOf(area: string): number {
  const i = LAYERS.findIndex((l) => l.includes(area));
  assert.notEqual(
    i,
    -1,
    `src/${area} is in no layer of test/architecture.test.ts: place it (and in docs/architecture.md)`,
  );
  return i;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : /\.ts$/.test(name) ? [p] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

test('every import in src/ goes to its own area or a lower layer', () => {
  const wrong: string[] = [];
  const files = sources(SRC);
  assert.ok(files.length > 100, `found ${files.length} sources`);
  for (const file of files) {
    const from = areaOf(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const to = areaOf(resolve(dirname(file), m[1] ?? m[2]!));
      if (to === from) continue;
      if (layerOf(to) >= layerOf(from)) wrong.push(`${relative(SRC, file)} imports ${m[1] ?? m[2]} (${from} → ${to})`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('the rule sees what it checks: an upward import is named', () => {
  // The same matcher on a line like the ones moved to src/wire/: rpc is above ledger.
  const line = "import { parseJsonExact } from '../rpc/json.js';";
  const m = [...line.matchAll(IMPORT)][0]!;
  const to = areaOf(resolve(join(SRC, 'ledger'), m[1]!));
  assert.equal(to, 'rpc');
  assert.ok(layerOf(to) > layerOf('ledger'));
});
