// Where benchmarks find the checkout and keep what outlives a run, and the API key their gateways use.
import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Keys built for benchmarks persist here between runs (like the test suite's cache). */
export const BENCH_CACHE = join(ROOT, 'node_modules/.cache/zkgate-bench');
export const BENCH_KEY = 'bench-key-0123456789';
/**
 * A bench gateway's key, no rate limit, warnings only, and no proving keys loaded or built in the
 * background: for scenarios that measure something else than proving.
 */
export const QUIET_GATEWAY_ARGS: readonly string[] = [
  ...['--api-keys', BENCH_KEY, '--rate-limit', '0', '--log-level', 'warn'],
  ...['--preload-circuits', '', '--build-at-start', 'none'],
];

/** The gRPC token the benchmarks' gateways require (--grpc-token). */
export const BENCH_GRPC_TOKEN = 'bench-grpc-token-0123456789';

/** Points a data dir's keys and circuits at the benchmarks' cache (built once); a link already there stays. */
export function linkBenchKeys(dir: string): void {
  for (const sub of ['keys', 'circuits']) {
    mkdirSync(join(BENCH_CACHE, sub), { recursive: true });
    if (!existsSync(join(dir, sub))) symlinkSync(join(BENCH_CACHE, sub), join(dir, sub), 'dir');
  }
}

/** A new data dir whose keys and circuits are the benchmarks' cache. */
export function benchDataDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `zkgate-bench-${label}-`));
  linkBenchKeys(dir);
  return dir;
}
