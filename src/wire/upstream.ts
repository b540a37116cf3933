// JSON-RPC calls to an upstream Solana / Jito RPC (forwarding, fork mode): bounded by a timeout,
// failures turned into typed errors that name the upstream by its origin only (its URL may carry
// the operator's own key in the query string).
import { AppError } from '../errors.js';
import { parseJsonExact } from './json.js';

export class UpstreamError extends AppError {
  readonly kind = 'upstream_failed';
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
): Promise<unknown> {
  const where = `${method} at ${origin(url)}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    const err = e as Error;
    throw new UpstreamError(
      err.name === 'TimeoutError'
        ? `upstream ${where} timed out after ${timeoutMs} ms`
        : `upstream ${where} unreachable: ${(err.cause as Error | undefined)?.message ?? err.message}`,
    );
  }
  const text = await res.text();
  if (res.status !== 200) throw new UpstreamError(`upstream ${where} answered HTTP ${res.status}`);
  let body: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  try {
    body = parse(text) as typeof body;
  } catch {
    throw new UpstreamError(`upstream ${where} answered a body that is not JSON`);
  }
  if (body?.error) {
    const code = typeof body.error.code === 'number' ? body.error.code : -32000;
    throw new RelayedRpcError(code, String(body.error.message ?? 'upstream error'), body.error.data);
  }
  if (!body || !('result' in body)) throw new UpstreamError(`upstream ${where} answered without a result`);
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
