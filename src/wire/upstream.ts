// JSON-RPC calls to an upstream Solana / Jito RPC (forwarding, fork mode): bounded by a timeout,
// failures turned into typed errors that name the upstream by its origin only (its URL may carry
// the operator's own key in the query string).
import { AppError } from '../errors.js';
import { parseJsonExact } from './json.js';

/** Why an upstream call failed, for a caller that retries (a cluster follower): never the caller's input. */
export type UpstreamFailure = 'timeout' | 'unreachable' | 'rate_limited' | 'http' | 'malformed';

export class UpstreamError extends AppError {
  readonly kind = 'upstream_failed';
  constructor(
    message: string,
    readonly failure: UpstreamFailure = 'unreachable',
    /** HTTP 429's Retry-After, ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Retry-After in seconds (or an HTTP date), as ms; undefined when absent or unreadable. */
function retryAfter(v: string | null): number | undefined {
  if (!v) return undefined;
  const s = Number(v);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** An upstream's own JSON-RPC error, relayed to the caller with its code, message and data. */
export class RelayedRpcError extends AppError {
  readonly kind = 'upstream_relayed';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const origin = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return 'the upstream';
  }
};

export async function upstreamCall(
  url: string,
  method: string,
  params: unknown,
  timeoutMs: number,
  parse: (text: string) => unknown = JSON.parse,
  signal?: AbortSignal,
): Promise<unknown> {
  const where = `${method} at ${origin(url)}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    const err = e as Error;
    if (signal?.aborted) throw err;
    throw err.name === 'TimeoutError'
      ? new UpstreamError(`upstream ${where} timed out after ${timeoutMs} ms`, 'timeout')
      : new UpstreamError(
          `upstream ${where} unreachable: ${(err.cause as Error | undefined)?.message ?? err.message}`,
          'unreachable',
        );
  }
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    if (signal?.aborted) throw e;
    const timedOut = (e as Error).name === 'TimeoutError';
    throw new UpstreamError(
      timedOut
        ? `upstream ${where} timed out after ${timeoutMs} ms`
        : `upstream ${where} broke off its answer: ${(e as Error).message}`,
      timedOut ? 'timeout' : 'unreachable',
    );
  }
  if (res.status === 429)
    throw new UpstreamError(
      `upstream ${where} answered HTTP 429 (rate limited)`,
      'rate_limited',
      retryAfter(res.headers.get('retry-after')),
    );
  if (res.status !== 200) throw new UpstreamError(`upstream ${where} answered HTTP ${res.status}`, 'http');
  let body: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  try {
    body = parse(text) as typeof body;
  } catch {
    throw new UpstreamError(`upstream ${where} answered a body that is not JSON`, 'malformed');
  }
  if (body?.error) {
    const code = typeof body.error.code === 'number' ? body.error.code : -32000;
    throw new RelayedRpcError(code, String(body.error.message ?? 'upstream error'), body.error.data);
  }
  if (!body || typeof body !== 'object' || !('result' in body))
    throw new UpstreamError(`upstream ${where} answered without a result`, 'malformed');
  return body.result;
}

/**
 * A method forwarded verbatim (--simulate-upstream, --das-upstream): the caller's params as sent,
 * the upstream's answer or error relayed with u64 values exact. The URL is the operator's (it may
 * carry the provider's key); the caller's api-key is never forwarded.
 */
export function forwardTo(url: string, method: string, timeoutMs: number): (params: unknown) => Promise<unknown> {
  return (params) => upstreamCall(url, method, params, timeoutMs, parseJsonExact);
}
