// The HTTP side of the adapter: routes, API keys, rate limits, body limits, request ids, one log
// line and metrics per request, graceful close. JSON-RPC semantics live in dispatch.ts.
import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HealthRegistry } from '../obs/health.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { ApiKeys } from './api-keys.js';
import { Dispatcher, errorResponse } from './dispatch.js';
import {
  BodyTooLargeError,
  ClientClosedError,
  mapError,
  MethodNotAllowedError,
  RateLimitedError,
  RouteNotFoundError,
  UnsupportedMediaTypeError,
} from './errors.js';
import { stringifyJson } from '../wire/index.js';
import { transportRefusal } from '../util/http-refusal.js';
import type { RateLimiter } from './rate-limit.js';
import type { AdminRule } from './admin.js';
import type { RpcMetrics } from './rpc-metrics.js';

export interface RpcServerDeps {
  maxBodyBytes: number;
  keys: ApiKeys;
  limiter: RateLimiter;
  dispatcher: Dispatcher;
  health: HealthRegistry;
  registry: MetricsRegistry;
  metrics: RpcMetrics;
  log: Logger;
  /** Longest a client may take to send a whole request (headers within the first 30 s). */
  requestTimeoutMs?: number;
  /** Who may call admin methods (default open: every key, as on a loopback dev chain). */
  adminRule?: AdminRule;
}

interface Reply {
  status: number;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** What the per-request log line says beyond status and latency. */
interface RequestNote {
  route: string;
  keyId?: string;
  method?: string;
  outcome?: string;
  batchSize?: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const CORS_PREFLIGHT = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type, x-request-id',
  'access-control-max-age': '86400',
};
const REQUEST_ID = /^[\w.:-]{1,128}$/;

function queryParam(url: string, q: number, name: string): string | null {
  return q < 0 ? null : new URLSearchParams(url.slice(q + 1)).get(name);
}

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const semi = header.indexOf(';');
  const type = (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
  return type === 'application/json';
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: Error | null, body?: Buffer) => {
      if (done) return;
      done = true;
      if (err) reject(err);
      else resolve(body!);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        finish(new BodyTooLargeError(`Request body exceeds the limit of ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => finish(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on('error', () =>
      finish(new ClientClosedError('the client closed the connection before sending the whole body')),
    );
    // 'close' follows 'end' on every request: build the Error only when the body really was cut short.
    req.on('close', () => {
      if (!done) finish(new ClientClosedError('the client closed the connection before sending the whole body'));
    });
  });
}

export class RpcHttpServer {
  private readonly server: Server;
  private inFlight = 0;
  private draining = false;
  private onIdle: (() => void) | undefined;

  constructor(private readonly deps: RpcServerDeps) {
    const requestTimeout = deps.requestTimeoutMs ?? 120_000;
    this.server = createServer(
      {
        // The client must be the side that closes an idle connection: Node's fetch keeps one for the
        // server's Keep-Alive hint less 1 s, and a client busy past that second (parsing a 3 MB
        // getLeaderSchedule) reused a socket the server was closing at Node's default 5 s: "fetch
        // failed" (CI, 2026-11-27). 65 s outlasts the usual 60 s idle timeouts of proxies too.
        keepAliveTimeout: 65_000,
        headersTimeout: Math.min(30_000, requestTimeout),
        requestTimeout,
        // How often Node looks for requests past those timeouts (its default: every 30 s).
        connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(requestTimeout / 4))),
      },
      (req, res) => {
        void this.handle(req, res);
      },
    );
    // What Node's HTTP parser refuses, and clients too slow to send their request, get a JSON-RPC
    // error body like every other refusal (Node's own answer is an empty 400).
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      const refusal = transportRefusal(err);
      this.deps.metrics.transportRefusals.inc([refusal.reason]);
      // As Node's own handler: never write into a response already under way on this socket.
      const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
      if (refusal.reason === 'client_closed' || !socket.writable || inFlight?.headersSent) {
        this.deps.log.debug('client went away', { error: err.code ?? err.message });
        socket.destroy();
        return;
      }
      this.deps.log.debug('http request refused', { status: refusal.status, error: err.code ?? err.message });
      const body = stringifyJson(errorResponse({ code: -32600, message: refusal.message }, null));
      socket.end(
        `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nconnection: close\r\n` +
          `content-type: ${JSON_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
  }

  get activeRequests(): number {
    return this.inFlight;
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  /**
   * Stops accepting connections, lets in-flight requests finish within `timeoutMs`, then closes
   * whatever is left. Resolves true when every in-flight request finished in time.
   */
  async close(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    let finished = this.inFlight === 0;
    if (!finished) {
      finished = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        this.onIdle = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    }
    this.server.closeAllConnections();
    await closed;
    return finished;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const incomingId = req.headers['x-request-id'];
    const reqId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    const note: RequestNote = { route: 'other' };
    const { metrics, log } = this.deps;
    this.inFlight++;
    metrics.inFlight.inc();
    let reply: Reply;
    try {
      reply = await this.route(req, note, reqId);
    } catch (err) {
      reply = this.transportError(err, note, reqId);
    }
    this.send(res, reply, reqId);
    const ms = performance.now() - started;
    metrics.httpRequests.inc([note.route, String(reply.status)]);
    metrics.httpSeconds.observe(ms / 1000, [note.route]);
    if (log.enabled('info')) {
      log.info('request', {
        reqId,
        route: note.route,
        status: reply.status,
        keyId: note.keyId,
        method: note.method,
        outcome: note.outcome,
        batchSize: note.batchSize,
        ms: Math.round(ms * 1000) / 1000,
        remote: req.socket.remoteAddress,
      });
    }
    metrics.inFlight.dec();
    if (--this.inFlight === 0 && this.onIdle) this.onIdle();
  }

  private async route(req: IncomingMessage, note: RequestNote, reqId: string): Promise<Reply> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path === '/') {
      note.route = 'rpc';
      if (req.method === 'POST') return this.rpc(req, url, q, note, reqId);
      if (req.method === 'OPTIONS') return { status: 204, headers: CORS_PREFLIGHT };
      throw new MethodNotAllowedError(
        `HTTP method ${req.method} is not allowed on /: send JSON-RPC requests with POST`,
      );
    }
    if (path === '/liveness' || path === '/readiness') {
      note.route = path.slice(1);
      if (req.method !== 'GET' && req.method !== 'HEAD')
        throw new MethodNotAllowedError(`HTTP method ${req.method} is not allowed on ${path}: use GET`);
      return this.probeReply(path);
    }
    if (path === '/health' || path === '/metrics') {
      note.route = path.slice(1);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new MethodNotAllowedError(`HTTP method ${req.method} is not allowed on ${path}: use GET`);
      }
      return path === '/health'
        ? this.healthReply()
        : { status: 200, body: this.deps.registry.render(), contentType: 'text/plain; version=0.0.4; charset=utf-8' };
    }
    throw new RouteNotFoundError(
      `Not found: ${path.length > 100 ? path.slice(0, 100) + '...' : path}; JSON-RPC is served on POST /`,
    );
  }

  private async rpc(req: IncomingMessage, url: string, q: number, note: RequestNote, reqId: string): Promise<Reply> {
    const { keys, metrics, dispatcher, maxBodyBytes } = this.deps;
    const presented = queryParam(url, q, 'api-key');
    let isAdminKey: boolean;
    try {
      ({ id: note.keyId, admin: isAdminKey } = keys.identify(presented));
    } catch (e) {
      metrics.authFailures.inc([presented ? 'invalid' : 'missing']);
      throw e;
    }
    this.charge(note.keyId, 1);
    if (!isJsonContentType(req.headers['content-type'])) {
      const got = req.headers['content-type'];
      throw new UnsupportedMediaTypeError(
        `Unsupported content type ${got ? JSON.stringify(got) : '(none)'}: send Content-Type: application/json`,
      );
    }
    const declared = Number(req.headers['content-length']);
    if (declared > maxBodyBytes)
      throw new BodyTooLargeError(`Request body of ${declared} bytes exceeds the limit of ${maxBodyBytes} bytes`);
    const raw = await readBody(req, maxBodyBytes);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (e) {
      note.method = 'invalid';
      note.outcome = 'parse_error';
      metrics.calls.inc(['invalid', 'parse_error']);
      const message = `Parse error: ${(e as Error).message}`;
      return { status: 200, body: stringifyJson(errorResponse({ code: -32700, message }, null)) };
    }
    // A batch costs one token per request; the first was taken before reading the body.
    this.charge(note.keyId, Dispatcher.count(body) - 1);
    const rule = this.deps.adminRule ?? 'open';
    const admin = rule === 'open' || (rule === 'keys' && isAdminKey);
    const out = await dispatcher.dispatch(body, { requestId: reqId, keyId: note.keyId, admin });
    note.method = out.method;
    note.outcome = out.outcome;
    note.batchSize = out.batchSize;
    if (out.response === undefined) return { status: 204 };
    return { status: 200, body: stringifyJson(out.response) };
  }

  private charge(keyId: string, n: number): void {
    try {
      this.deps.limiter.take(keyId, n);
    } catch (e) {
      if (e instanceof RateLimitedError) this.deps.metrics.rateLimited.inc([keyId]);
      throw e;
    }
  }

  private async healthReply(): Promise<Reply> {
    const report = await this.deps.health.report();
    if (this.draining) {
      report.status = 'unavailable';
      report.components.rpc = { status: 'unavailable', detail: 'shutting down' };
    }
    // Warming is not ready yet: load balancers hold traffic back until the keys are in.
    const notReady = report.status === 'unavailable' || report.status === 'warming';
    return { status: notReady ? 503 : 200, body: JSON.stringify(report) };
  }

  /** Photon's GET /liveness and /readiness: `null` with 200, or its internal-error body with 500. */
  private async probeReply(path: '/liveness' | '/readiness'): Promise<Reply> {
    const ready =
      path === '/liveness' ||
      (!this.draining && !['unavailable', 'warming'].includes((await this.deps.health.report()).status));
    return ready
      ? { status: 200, body: 'null' }
      : { status: 500, body: stringifyJson(errorResponse({ code: -32603, message: 'Internal error' }, null)) };
  }

  private transportError(err: unknown, note: RequestNote, reqId: string): Reply {
    if (err instanceof ClientClosedError) {
      this.deps.metrics.transportRefusals.inc(['client_closed']);
      this.deps.log.debug('client went away', { reqId, route: note.route });
    }
    const m = mapError(err);
    if (m.unexpected !== undefined) {
      const e = m.unexpected as Error;
      this.deps.log.error('unexpected failure', {
        reqId,
        route: note.route,
        error: String(e?.message ?? e),
        stack: e?.stack,
      });
    }
    note.outcome = m.kind;
    const headers: Record<string, string> = {};
    if (err instanceof RateLimitedError) headers['retry-after'] = String(err.retryAfterSeconds);
    if (err instanceof MethodNotAllowedError) headers.allow = note.route === 'rpc' ? 'POST, OPTIONS' : 'GET, HEAD';
    // The rest of an oversized body is not worth reading: close the connection after answering.
    if (err instanceof BodyTooLargeError) headers.connection = 'close';
    return { status: m.http, body: stringifyJson(errorResponse(m.error, null)), headers };
  }

  private send(res: ServerResponse, reply: Reply, reqId: string): void {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string | number> = {
      'x-request-id': reqId,
      'access-control-allow-origin': '*',
      ...reply.headers,
    };
    if (this.draining) headers.connection = 'close';
    if (reply.body !== undefined) {
      headers['content-type'] = reply.contentType ?? JSON_TYPE;
      headers['content-length'] = Buffer.byteLength(reply.body);
    }
    res.writeHead(reply.status, headers);
    res.end(reply.body);
  }
}
