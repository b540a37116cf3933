// A gRPC client of a benchmark's gateway, started with --grpc-token BENCH_GRPC_TOKEN.
import { credentials } from '@grpc/grpc-js';
import { ProverClient } from '../../src/prover/index.js';
import { BENCH_GRPC_TOKEN } from './paths.js';

export const BENCH_TOKEN_ARGS = ['--grpc-token', BENCH_GRPC_TOKEN];

export function benchProverClient(address: string, timeoutMs?: number): ProverClient {
  return new ProverClient(address, timeoutMs, {
    credentials: credentials.createInsecure(),
    options: {},
    token: BENCH_GRPC_TOKEN,
  });
}
