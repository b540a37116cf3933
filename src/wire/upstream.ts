// JSON-RPC calls to an upstream Solana / Jito RPC (forwarding, fork mode): bounded by a timeout,
// failures turned into typed errors that name the upstream by its origin only (its URL may carry
// the operator's own key in the query string).
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
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

/**
 * One keep-alive agent per scheme, shared by every upstream: a follower's getBlock calls reuse
 * their connections. An idle connection is closed after 4 s, before servers' usual 5 s, so one is
 * seldom reused as the server closes it (and then sent again once).
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 4000 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 4000 }),
};

/** Answers up to this size are joined in one buffer kept for the process (grown as needed). */
const SCRATCH_MAX = 16 << 20;
let scratch = Buffer.allocUnsafe(0);

/**
 * An answer's chunks as text, joined in the kept buffer: a new buffer per answer (Buffer.concat)
 * touches fresh pages every time, which cost a follower 5-10 times the copy itself (a getBlock of
 * 120 KB: 70-150 µs against 15-20). The text is made before anything else runs, so one buffer
 * serves every call.
 */
function textOf(chunks: readonly Buffer[]): string {
  if (chunks.length === 1) return chunks[0]!.toString('utf8');
  let total = 0;
  for (const c of chunks) total += c.length;
  if (total > SCRATCH_MAX) return Buffer.concat(chunks, total).toString('utf8');
  if (scratch.length < total) scratch = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(total, 2 * scratch.length)));
  let at = 0;
  for (const c of chunks) at += c.copy(scratch, at);
  return scratch.toString('utf8', 0, total);
}

/** An upstream's whole answer to one POST: its status, Retry-After, and its body (decoded) as text. */
export interface Answer {
  status: number;
  retryAfter: string | null;
  text: string;
}

/** An answer as a transport hands it on: the body still in the chunks it arrived in. */
export interface RawAnswer {
  status: number;
  retryAfter: string | null;
  chunks: Buffer[];
}

/** Why a POST got no whole answer: the caller words it. */
export class PostFailure extends Error {
  constructor(
    message: string,
    readonly stage: 'connect' | 'body' | 'timeout',
    /** A kept-alive connection the upstream had closed as it was reused: nothing was read, so it may be sent again. */
    readonly stale = false,
  ) {
    super(message);
  }
}

/**
 * POSTs `body` as JSON and reads the whole answer (gzip, deflate or brotli undone), with node's own
 * HTTP client rather than fetch: a follower reads megabytes of getBlock a second, and fetch's web
 * streams cost it twice the CPU for the same bytes. Settles once: the answer, a PostFailure, or
 * `signal`'s reason. A kept-alive connection found closed as it was reused is tried once more.
 */
export function postJson(url: URL, body: string, timeoutMs: number, signal?: AbortSignal): Promise<RawAnswer> {
  return post(url, body, timeoutMs, signal).catch((e) =>
    e instanceof PostFailure && e.stale ? post(url, body, timeoutMs, signal) : Promise.reject(e),
  );
}

function post(url: URL, body: string, timeoutMs: number, signal?: AbortSignal): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const client = url.protocol === 'https:' ? https : http;
    let done = false;
    let gotHeaders = false;
    let req: http.ClientRequest | undefined;
    const finish = (err: unknown, answer?: RawAnswer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (err !== undefined) {
        req?.destroy();
        reject(err);
      } else resolve(answer!);
    };
    const onAbort = () => finish(signal!.reason);
    const timer = setTimeout(() => finish(new PostFailure(`timed out after ${timeoutMs} ms`, 'timeout')), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      req = request();
    } catch (e) {
      // A request node refuses to make (a header or URL it will not send): nothing was sent.
      finish(new PostFailure((e as Error).message, 'connect'));
    }

    function request(): http.ClientRequest {
      const r = client.request(
        url,
        {
          method: 'POST',
          agent: agents[url.protocol as keyof typeof agents],
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'accept-encoding': 'gzip, deflate, br',
          },
        },
        (res) => {
          gotHeaders = true;
          const enc = String(res.headers['content-encoding'] ?? '').toLowerCase();
          const decoded: Readable =
            enc === 'gzip' || enc === 'x-gzip'
              ? res.pipe(zlib.createGunzip())
              : enc === 'deflate'
                ? res.pipe(zlib.createInflate())
                : enc === 'br'
                  ? res.pipe(zlib.createBrotliDecompress())
                  : res;
          const chunks: Buffer[] = [];
          const broke = (e?: Error) =>
            finish(new PostFailure(e?.message ?? 'the connection closed before the answer ended', 'body'));
          decoded.on('data', (c: Buffer) => chunks.push(c));
          decoded.on('error', broke);
          res.on('error', broke);
          // A body cut short (a closed socket, a wrong length) ends in 'close' without 'end'.
          res.on('close', () => {
            if (!res.complete) broke();
          });
          decoded.on('end', () =>
            finish(undefined, {
              status: res.statusCode ?? 0,
              retryAfter: (res.headers['retry-after'] as string | undefined) ?? null,
              chunks,
            }),
          );
        },
      );
      r.on('error', (e: NodeJS.ErrnoException) =>
        finish(
          new PostFailure(
            e.message,
            gotHeaders ? 'body' : 'connect',
            !gotHeaders && r.reusedSocket && e.code === 'ECONNRESET',
          ),
        ),
      );
      r.end(body);
      return r;
    }
  });
}

/** An upstream's URL, checked to be one this client calls; undefined when it is not. */
function httpUrl(url: string): URL | undefined {
  try {
    const target = new URL(url);
    return target.protocol === 'http:' || target.protocol === 'https:' ? target : undefined;
  } catch {
    // The configured URL is the operator's, checked at start; this is the last guard.
    return undefined;
  }
}

/** The JSON-RPC request body of one call. */
export const requestBody = (method: string, params: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

export async function upstreamCall(
  url: string,
  method: string,
  params: unknown,
  timeoutMs: number,
  parse: (text: string) => unknown = JSON.parse,
  signal?: AbortSignal,
): Promise<unknown> {
  const where = `${method} at ${origin(url)}`;
  const target = httpUrl(url);
  if (!target) throw new UpstreamError(`upstream ${where} unreachable: not an http(s) URL`, 'unreachable');
  let res: RawAnswer;
  try {
    res = await postJson(target, requestBody(method, params), timeoutMs, signal);
  } catch (e) {
    if (signal?.aborted || !(e instanceof PostFailure)) throw e;
    throw postFailureError(url, method, e, timeoutMs);
  }
  return answerResult(url, method, { status: res.status, retryAfter: res.retryAfter, text: textOf(res.chunks) }, parse);
}

/** A call that got no whole answer (`postJson`'s PostFailure), as the caller's typed error. */
export function postFailureError(url: string, method: string, e: PostFailure, timeoutMs: number): UpstreamError {
  const where = `${method} at ${origin(url)}`;
  return e.stage === 'timeout'
    ? new UpstreamError(`upstream ${where} timed out after ${timeoutMs} ms`, 'timeout')
    : e.stage === 'body'
      ? new UpstreamError(`upstream ${where} broke off its answer: ${e.message}`, 'unreachable')
      : new UpstreamError(`upstream ${where} unreachable: ${e.message}`, 'unreachable');
}

/**
 * The result of a call from the upstream's whole answer; a rate limit, an HTTP error or a body that
 * is not JSON-RPC as UpstreamError, the upstream's own JSON-RPC error as RelayedRpcError.
 */
export function answerResult(
  url: string,
  method: string,
  res: Answer,
  parse: (text: string) => unknown = JSON.parse,
): unknown {
  const where = `${method} at ${origin(url)}`;
  if (res.status === 429)
    throw new UpstreamError(
      `upstream ${where} answered HTTP 429 (rate limited)`,
      'rate_limited',
      retryAfter(res.retryAfter),
    );
  if (res.status !== 200) throw new UpstreamError(`upstream ${where} answered HTTP ${res.status}`, 'http');
  let body: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  try {
    body = parse(res.text) as typeof body;
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
