// Compiles the suite's TypeScript (test/**/*.ts) into .test-js/ for test/run.mjs, so that the test
// files and the processes they start run as plain JavaScript: through tsx's loader hooks, every
// module a process imports costs more, about 2 CPU-seconds a process for a gateway's module graph
// (three test files measured 1.6–3.2 CPU-s less each), over some 80 test files and the CLI
// processes they start.
//
// .test-js/ sits beside test/ at the same depth, so every path a test builds from import.meta.url
// (node_modules/.cache, native/, README.md, src/ read as text) names the same file either way.
// Imports of src/ become imports of dist/, the same sources compiled by `tsc -p src` (which npm
// test runs first, and whose worker modules the tests load already). esbuild only strips types:
// the type check is the lint's (`tsc -p .`). A test file also runs as it is, with
// `node --import tsx --test test/x.test.ts`; test/helpers/paths.ts tells the two apart.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import { COMPILED_DIR, compiledOf } from './compiled-paths.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
// The options that shape the emitted code, as tsx gives them to esbuild (class fields, target).
const tsconfigRaw = { compilerOptions: JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')).compilerOptions };
const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : name.endsWith('.ts') ? [p] : [];
  });

// `from "../../src/x.js"`, `import("../src/x.js")`, `import "../src/x.js"`: relative ones only.
const SRC_IMPORT = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)(["'])((?:\.\.\/)+)src\//g;

export async function compileTests() {
  rmSync(COMPILED_DIR, { recursive: true, force: true });
  await Promise.all(
    walk(join(root, 'test')).map(async (file) => {
      const { code } = await transform(readFileSync(file, 'utf8'), {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        sourcefile: file,
        tsconfigRaw,
      });
      const out = compiledOf(file);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, code.replace(SRC_IMPORT, '$1$2$3dist/'));
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await compileTests();
