// Errors of the prover service. Messages follow Photon's wording and prefixes where Photon has one
// (clients match on them), and name the offending value where Photon is vague.
import { AppError } from '../errors.js';

export type ProverErrorKind =
  /** Photon ValidationError: "Validation Error: …" */
  | 'validation'
  /** Photon RecordNotFound: "Record Not Found: …" */
  | 'record_not_found'
  /** Photon InvalidPubkey: "Invalid Public Key: field '…'" */
  | 'invalid_pubkey'
  /** Malformed explicit inputs (Prove): wrong heights, path lengths, public input hash. */
  | 'invalid_argument'
  /** The queue is full: retry later. */
  | 'prover_busy'
  /** The request's deadline passed while queued or proving. */
  | 'prover_timeout'
  /** The deadline passed while the shape's proving key was still being built. */
  | 'circuit_warming_up'
  /** The shape has no key, and building one on a request is off for it (--build-on-demand). */
  | 'key_not_built'
  /** The prover could not be reached (gRPC transport). */
  | 'prover_unavailable'
  /** The inputs do not satisfy the circuit. */
  | 'proof_failed'
  /** The backend failed for another reason. */
  | 'prover_internal';

export class ProverError extends AppError {
  constructor(
    readonly kind: ProverErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const validationError = (msg: string) => new ProverError('validation', `Validation Error: ${msg}`);
export const recordNotFound = (msg: string) => new ProverError('record_not_found', `Record Not Found: ${msg}`);
export const invalidPubkey = (field: string, why: string) =>
  new ProverError('invalid_pubkey', `Invalid Public Key: field '${field}' (${why})`);
