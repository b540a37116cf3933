// Where benchmarks find the checkout and keep what outlives a run, and the API key their gateways use.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Keys built for benchmarks persist here between runs (like the test suite's cache). */
export const BENCH_CACHE = join(ROOT, 'node_modules/.cache/zkgate-bench');
export const BENCH_KEY = 'bench-key-0123456789';
/** The gRPC token the benchmarks' gateways require (--grpc-token). */
export const BENCH_GRPC_TOKEN = 'bench-grpc-token-0123456789';
