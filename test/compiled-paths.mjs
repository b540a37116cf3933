// Where test/compile.mjs puts a test file's compiled form, and back: .test-js/ mirrors test/.
// Plain JavaScript with no dependencies: the key gate loads it into every process of the run.
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const tests = join(root, 'test');
export const COMPILED_DIR = join(root, '.test-js');

/** The TypeScript source of a compiled test file (what reports and the key gate go by). */
export const sourceOf = (file) =>
  file.startsWith(COMPILED_DIR + '/') ? join(tests, relative(COMPILED_DIR, file)).replace(/\.js$/, '.ts') : file;

/** The compiled form of a TypeScript file under test/. */
export const compiledOf = (file) => join(COMPILED_DIR, relative(tests, file)).replace(/\.ts$/, '.js');
