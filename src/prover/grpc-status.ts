// THE table from error kinds (prover, state, keys) to gRPC status codes. The kind itself travels in
// the `zkgate-error-kind` trailer so a zkgate client gets back the exact typed error; other gRPC
// clients get a conventional status code and the message.
import * as grpc from '@grpc/grpc-js';
import { AppError } from '../errors.js';

const S = grpc.status;

export const GRPC_STATUS: Record<string, grpc.status> = {
  validation: S.INVALID_ARGUMENT,
  record_not_found: S.NOT_FOUND,
  invalid_pubkey: S.INVALID_ARGUMENT,
  invalid_argument: S.INVALID_ARGUMENT,
  prover_busy: S.RESOURCE_EXHAUSTED,
  prover_timeout: S.DEADLINE_EXCEEDED,
  circuit_warming_up: S.UNAVAILABLE,
  key_not_built: S.FAILED_PRECONDITION,
  prover_unavailable: S.UNAVAILABLE,
  proof_failed: S.FAILED_PRECONDITION,
  prover_internal: S.INTERNAL,
  // src/state
  tree_not_found: S.NOT_FOUND,
  tree_exists: S.ALREADY_EXISTS,
  tree_full: S.FAILED_PRECONDITION,
  invalid_tree: S.INVALID_ARGUMENT,
  leaf_not_found: S.NOT_FOUND,
  address_exists: S.ALREADY_EXISTS,
  address_out_of_range: S.INVALID_ARGUMENT,
  tree_read_only: S.FAILED_PRECONDITION,
  // src/zk
  witness_shape: S.INVALID_ARGUMENT,
  unknown_shape: S.INVALID_ARGUMENT,
  key_missing: S.FAILED_PRECONDITION,
  key_mismatch: S.FAILED_PRECONDITION,
};

export const KIND_TRAILER = 'zkgate-error-kind';

/** A gRPC error for `err`: typed errors keep their kind and message; anything else is internal. */
export function toGrpcError(err: unknown): Partial<grpc.StatusObject> & { unexpected?: boolean } {
  if (err instanceof AppError && Object.hasOwn(GRPC_STATUS, err.kind)) {
    const metadata = new grpc.Metadata();
    metadata.set(KIND_TRAILER, err.kind);
    return { code: GRPC_STATUS[err.kind], details: err.message, metadata };
  }
  const metadata = new grpc.Metadata();
  metadata.set(KIND_TRAILER, 'prover_internal');
  return { code: S.INTERNAL, details: 'Internal server error', metadata, unexpected: true };
}
