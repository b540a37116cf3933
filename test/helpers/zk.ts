// One key cache for the whole suite (node_modules/.cache, kept between runs so only the first
// run compiles and sets up).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const KEY_CACHE = fileURLToPath(new URL('../../node_modules/.cache/zkgate-test/', import.meta.url));
mkdirSync(KEY_CACHE, { recursive: true });
