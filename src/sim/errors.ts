import { AppError } from '../errors.js';

/** A request-level rejection of simulateBundle: JSON-RPC -32602 with Jito's message, verbatim. */
export class BundleRejectedError extends AppError {
  readonly kind = 'bundle_rejected';
}
