// Typed errors of the adapter, and THE table mapping every area's error kinds to JSON-RPC codes.
// Codes follow JSON-RPC 2.0 and Solana/Helius conventions: -32700..-32600 protocol, -32000 peer
// "server error" (Photon, DAS), -32001 unauthorized and -32029 rate limited (Helius), -32010.. zkgate.
import { AppError } from '../errors.js';

export class ParseError extends AppError {
  readonly kind = 'parse_error';
}
export class InvalidRequestError extends AppError {
  readonly kind = 'invalid_request';
}
export class MethodNotFoundError extends AppError {
  readonly kind = 'method_not_found';
  constructor(readonly method: string) {
    super('Method not found');
  }
}
export class InvalidParamsError extends AppError {
  readonly kind = 'invalid_params';
}
export class BatchTooLargeError extends AppError {
  readonly kind = 'batch_too_large';
}
export class UnauthorizedError extends AppError {
  readonly kind = 'unauthorized';
}
export class RateLimitedError extends AppError {
  readonly kind = 'rate_limited';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
export class BodyTooLargeError extends AppError {
  readonly kind = 'body_too_large';
}
export class UnsupportedMediaTypeError extends AppError {
  readonly kind = 'unsupported_media_type';
}
export class MethodNotAllowedError extends AppError {
  readonly kind = 'method_not_allowed';
}
export class RouteNotFoundError extends AppError {
  readonly kind = 'route_not_found';
}
/** The client closed its connection before the request was read: nobody is left to answer. */
export class ClientClosedError extends AppError {
  readonly kind = 'client_closed';
}
/** Solana's sendTransaction refusals, which carry the simulation result as `data`. */
export class TransactionRefusedError extends AppError {
  constructor(
    readonly kind: 'preflight_failure' | 'signature_verification_failure',
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** An admin method called by a caller that is not one (src/rpc/admin.ts). */
export class AdminOnlyError extends AppError {
  readonly kind = 'admin_only';
}
/** A websocket subscription beyond the connection's or the key's limit (Agave answers -32603 here). */
export class SubscriptionLimitError extends AppError {
  readonly kind = 'subscription_limit';
}
/** Agave's BlockNotAvailable (-32004): a slot with no block at the asked commitment. */
export class BlockNotAvailableError extends AppError {
  readonly kind = 'block_not_available';
  constructor(slot: bigint | number) {
    super(`Block not available for slot ${slot}`);
  }
}
/** Agave's NoSnapshot (-32008): getHighestSnapshotSlot on a node that keeps none. */
export class NoSnapshotError extends AppError {
  readonly kind = 'no_snapshot';
  constructor() {
    super('No snapshot');
  }
}
/** Agave's UnsupportedTransactionVersion (-32015): a v0 transaction for a client that did not say it reads them. */
export class UnsupportedTransactionVersionError extends AppError {
  readonly kind = 'unsupported_transaction_version';
  constructor(version: number) {
    super(
      `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
    );
  }
}
export class BackendNotConfiguredError extends AppError {
  readonly kind = 'backend_not_configured';
  constructor(method: string, backend: string) {
    super(`${method} is not available: the ${backend} backend is not configured on this gateway`);
  }
}

interface Mapping {
  /** JSON-RPC error code. */
  code: number;
  /** HTTP status for transport-level errors; JSON-RPC-level errors answer 200 as Solana nodes do. */
  http: number;
}

/** Every error kind of every area, and what it becomes on the wire. */
export const ERROR_CODES = {
  parse_error: { code: -32700, http: 200 },
  invalid_request: { code: -32600, http: 200 },
  batch_too_large: { code: -32600, http: 200 },
  method_not_found: { code: -32601, http: 200 },
  invalid_params: { code: -32602, http: 200 },
  internal: { code: -32603, http: 200 },
  unauthorized: { code: -32001, http: 401 },
  // A cheatcode or airdrop by a key that is not an admin's (--admin-keys), or off loopback without them.
  admin_only: { code: -32017, http: 200 },
  rate_limited: { code: -32029, http: 429 },
  body_too_large: { code: -32600, http: 413 },
  unsupported_media_type: { code: -32600, http: 415 },
  method_not_allowed: { code: -32600, http: 405 },
  route_not_found: { code: -32600, http: 404 },
  // Never sent (the client is gone); 499 is what the log and metrics record, as nginx does.
  client_closed: { code: -32600, http: 499 },
  backend_not_configured: { code: -32010, http: 200 },
  // src/prover: Photon answers its own errors with -32000 and a prefixed message
  // ("Validation Error: …", "Record Not Found: …", "Invalid Public Key: …"); zkgate keeps code and
  // prefix, and names the offending value.
  validation: { code: -32000, http: 200 },
  record_not_found: { code: -32000, http: 200 },
  invalid_pubkey: { code: -32000, http: 200 },
  invalid_argument: { code: -32602, http: 200 },
  proof_failed: { code: -32000, http: 200 },
  prover_internal: { code: -32000, http: 200 },
  // --proving-keys light without Light's key for the shape a request needs (Light: "no proving system").
  key_missing: { code: -32000, http: 200 },
  // A followed cluster's tree whose history starts before the index: its proofs would be wrong.
  tree_incomplete: { code: -32000, http: 200 },
  // --index-db: Postgres does not answer (down, cut off, or past --index-db-timeout-ms): fails fast.
  index_db_unavailable: { code: -32019, http: 200 },
  // Capacity and availability of the prover, where Photon only says "Internal server error".
  prover_busy: { code: -32011, http: 200 },
  prover_timeout: { code: -32012, http: 200 },
  circuit_warming_up: { code: -32013, http: 200 },
  // A shape with no key whose build a request may not start (--build-on-demand).
  key_not_built: { code: -32018, http: 200 },
  prover_unavailable: { code: -32014, http: 200 },
  // src/sim, src/ledger: Jito's request-level rejections and Solana's sendTransaction failures.
  bundle_rejected: { code: -32602, http: 200 },
  tx_decode: { code: -32602, http: 200 },
  preflight_failure: { code: -32002, http: 200 },
  signature_verification_failure: { code: -32003, http: 200 },
  upstream_failed: { code: -32015, http: 200 },
  // Agave's custom error for a slot without a block (getBlock, getBlockTime).
  block_not_available: { code: -32004, http: 200 },
  no_snapshot: { code: -32008, http: 200 },
  unsupported_transaction_version: { code: -32015, http: 200 },
  // src/pubsub: a subscription refused for the connection's or the key's limit.
  subscription_limit: { code: -32016, http: 200 },
  // src/das: the DAS reference's errors (-32000 with its messages).
  asset_not_found: { code: -32000, http: 200 },
  asset_invalid_id: { code: -32000, http: 200 },
  asset_no_supply: { code: -32000, http: 200 },
  // Pagination and batch-size errors (the reference's "Pagination Error. …" texts).
  asset_query: { code: -32000, http: 200 },
  // An upstream's own error keeps the upstream's code (the error carries it); -32000 if none.
  upstream_relayed: { code: -32000, http: 200 },
} as const satisfies Record<string, Mapping>;

export type ErrorKind = keyof typeof ERROR_CODES;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface MappedError {
  kind: ErrorKind;
  http: number;
  error: RpcErrorObject;
  /** Set for failures nobody anticipated: logged with their stack, answered without it. */
  unexpected?: unknown;
}

const INTERNAL: MappedError['error'] = { code: ERROR_CODES.internal.code, message: 'Internal error' };

export function mapError(err: unknown): MappedError {
  if (err instanceof AppError && Object.hasOwn(ERROR_CODES, err.kind)) {
    const kind = err.kind as ErrorKind;
    const m = ERROR_CODES[kind];
    const { data, code } = err as { data?: unknown; code?: unknown };
    // A relayed upstream error keeps the upstream's code.
    const wire = kind === 'upstream_relayed' && typeof code === 'number' ? code : m.code;
    return {
      kind,
      http: m.http,
      error: { code: wire, message: err.message, ...(data !== undefined ? { data } : {}) },
    };
  }
  return { kind: 'internal', http: 200, error: { ...INTERNAL }, unexpected: err };
}
