// Where the running suite's files are: test/run.mjs runs the tests compiled (.test-js/, importing
// dist/; see test/compile.mjs), `node --import tsx --test test/x.test.ts` runs them as TypeScript
// (importing src/). A test that starts a script of the repository starts the form it runs itself.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (test/ and .test-js/ are both directly under it). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Whether this process runs the compiled suite. */
export const COMPILED = !import.meta.url.endsWith('.ts');

/** The node arguments that load what `scriptPath` below needs: tsx for TypeScript, else none. */
export const LOADER: readonly string[] = COMPILED ? [] : ['--import', 'tsx'];

/** A test script beside the caller's module (`name` without extension), in the form this run has. */
export const sibling = (moduleUrl: string, name: string): string =>
  fileURLToPath(new URL(`./${name}.${COMPILED ? 'js' : 'ts'}`, moduleUrl));

/** A module of src/ (`path` without extension): its dist/ build when compiled, else the source. */
export const sourceModule = (path: string): string =>
  COMPILED ? join(ROOT, 'dist', `${path}.js`) : join(ROOT, 'src', `${path}.ts`);
