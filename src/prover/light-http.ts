// Light's prover HTTP API (validity-proof.md §11) on the prover role, so Photon or Light's CLI can
// use zkgate as their prover: POST /prove with Light's JSON (light-json.ts), GET /health. With a
// job queue (--queue), also Light's asynchronous API (docs/light-queue-formats.md §1): `X-Async:
// true` or `?async=true` answers 202 with a job id, GET /prove/status, /queue/stats and
// /queue/health; a front without a prover of its own proves every request through the queue.
// Answers and error codes are Light's; JSON keys are in Go's order (sorted), as Light writes them.
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { AppError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import { transportRefusal } from '../util/http-refusal.js';
import type { RawProof } from '../zk/proof-format.js';
import { lightProveBody, parseProveBody } from './light-json.js';
import { explicitShape, type ExplicitProveRequest, type WarmUpState } from './service.js';
import type { RunOptions } from './pool.js';

const MAX_BODY = 16 * 1024 * 1024;

class LightHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const malformed = (msg: string) => new LightHttpError(400, 'malformed_body', msg);

/** The client went away before its body arrived: nobody to answer, nothing to log but a count. */
class ClientGone extends Error {}

/** The HTTP status and Light error code of a service error. */
function lightError(e: unknown): LightHttpError | undefined {
  if (e instanceof LightHttpError) return e;
  if (!(e instanceof AppError)) return undefined;
  switch (e.kind) {
    case 'malformed_body':
      return new LightHttpError(400, 'malformed_body', e.message);
    case 'invalid_argument':
    case 'proof_failed':
    case 'witness_shape':
    case 'unknown_shape':
    case 'key_missing':
    case 'key_not_built':
      return new LightHttpError(400, 'proving_error', e.message);
    case 'prover_timeout':
    case 'circuit_warming_up':
      return new LightHttpError(408, 'proof_timeout', e.message);
    case 'prover_busy':
      return new LightHttpError(503, 'prover_busy', e.message);
    case 'prover_unavailable':
      return new LightHttpError(503, 'queue_unavailable', e.message);
    default:
      return undefined;
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Light's batch circuit types: its /prove always queues them; zkgate's parser does not read them. */
const LIGHT_BATCH = new Set(['update', 'append-with-proofs', 'append', 'address-append']);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What Light's status answer says of a state that is not the end. */
const STATUS_MESSAGE: Record<string, string> = {
  queued: 'Job is queued and waiting to be processed',
  processing: 'Job is currently being processed',
};

/** The job queue as this API uses it (src/queue's JobQueue). */
export interface LightJobs {
  /** Light's list names (zk_update_queue, …) rather than zkgate's: Light's batch bodies may be queued for its workers. */
  readonly lightLists: boolean;
  submit(
    kind: 'prove' | 'light',
    payload: string,
    circuitType: string,
    circuit: string,
    opts: { waitMs: number; mayBuild?: boolean },
  ): Promise<{ id: string; deduplicated: boolean; queue: string }>;
  status(id: string): Promise<
    | {
        status: 'queued' | 'processing' | 'completed' | 'failed';
        createdAt?: string;
        startedAt?: string;
        circuitType?: string;
        error?: string;
        failedAt?: string;
        result?: string;
      }
    | undefined
  >;
  stats(): Promise<{ lists: Record<string, number>; pending: number; processing: number; failedList: number }>;
  /** Processing entries older than ms. */
  stuckJobs(ms: number): Promise<number>;
}

export interface LightHttpServer {
  readonly port: number;
  close(): Promise<void>;
}

export interface LightHttpOptions {
  host: string;
  port: number;
  apiKey: string;
  /** Web page origins whose scripts may call this API (CORS); a request from any other page is refused. */
  corsOrigins?: readonly string[];
  timeoutMs: number;
  /** How long a proof may wait for its key's build (the local prover's; 0: not at all). */
  keyBuildWaitMs?: number;
  /**
   * Which shapes a request arriving here may have its key built for (--build-on-demand, by where
   * this server is reachable): carried with the request to the prover, or with its queued job.
   */
  mayBuild?: (shape: string) => boolean;
  log: Logger;
  /** A synchronous proof: the local service's, or, on a front, one through the queue. */
  prove(req: ExplicitProveRequest, run: RunOptions): Promise<{ raw: RawProof; circuit: string }>;
  /** The local prover's warm-up, for /health (none on a front). */
  warmUpState?: () => WarmUpState;
  /** The job queue: the asynchronous API is served only with one, as Light's is. */
  jobs?: LightJobs;
}

/** How long an asynchronous job is wanted: Light's later workers drop jobs older than 10 minutes. */
const ASYNC_JOB_WAIT_MS = 10 * 60_000;

/** Go's JSON of a map: keys sorted. */
const sorted = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );

export async function startLightHttp(opts: LightHttpOptions): Promise<LightHttpServer> {
  const { log, jobs } = opts;
  const keyDigest = opts.apiKey ? digest(opts.apiKey) : undefined;

  const corsOrigins = new Set(opts.corsOrigins ?? []);
  /** The CORS headers of an allowed page's request; none for other callers. */
  const cors = (res: ServerResponse): Record<string, string> => {
    const origin = (res.req as IncomingMessage | undefined)?.headers.origin;
    return origin && corsOrigins.has(origin) ? { 'access-control-allow-origin': origin, vary: 'origin' } : {};
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...cors(res),
    });
    res.end(text);
  };

  /**
   * Why a request may not start work, if it may not: one from a web page whose origin is not
   * allowed (a page in the developer's browser must not drive a local prover, whose loopback
   * API needs no key), or a proof request that is not JSON (a page's plain-text "simple request"
   * needs no preflight).
   */
  const refusal = (req: IncomingMessage, route: string): [number, string, string] | undefined => {
    const origin = req.headers.origin;
    if (origin !== undefined && !corsOrigins.has(origin))
      return [
        403,
        'forbidden_origin',
        `requests from web pages are refused (Origin ${JSON.stringify(origin.slice(0, 200))}); allow a page's origin with --prove-cors-origins`,
      ];
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (route === 'prove' && type !== 'application/json')
      return [
        415,
        'unsupported_media_type',
        `Content-Type ${type ? JSON.stringify(type) : '(none)'}: send the proof request as application/json`,
      ];
    return undefined;
  };

  const authorized = (req: IncomingMessage): boolean => {
    if (!keyDigest) return true;
    const auth = req.headers.authorization;
    const given =
      (req.headers['x-api-key'] as string | undefined) ?? (auth?.startsWith('Bearer ') ? auth.slice(7) : undefined);
    return given !== undefined && timingSafeEqual(digest(given), keyDigest);
  };

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) {
          reject(new LightHttpError(413, 'malformed_body', `body larger than ${MAX_BODY} bytes`));
          req.destroy();
        } else chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', () => reject(new ClientGone()));
      req.on('close', () => {
        if (!req.complete) reject(new ClientGone());
      });
    });

  const unauthorized = (res: ServerResponse) =>
    send(res, 401, {
      code: 'unauthorized',
      message: 'Invalid or missing API key (X-API-Key or Authorization: Bearer)',
    });

  /** GET /prove/status?job_id= (Light's answers: 200 completed, 202 otherwise, 400/404 errors). */
  const jobStatus = async (res: ServerResponse, url: URL, q: LightJobs) => {
    const id = url.searchParams.get('job_id') ?? '';
    if (!id) throw malformed('job_id parameter required');
    if (!UUID.test(id))
      throw new LightHttpError(400, 'invalid_job_id', 'Invalid job ID format. Job ID must be a valid UUID.');
    const s = await q.status(id);
    if (!s)
      throw new LightHttpError(
        404,
        'job_not_found',
        `Job with ID ${id} not found. It may have expired or never existed.`,
      );
    if (s.status === 'completed')
      return send(res, 200, sorted({ job_id: id, status: 'completed', result: JSON.parse(s.result!) as unknown }));
    if (s.status === 'failed')
      return send(
        res,
        202,
        sorted({
          job_id: id,
          status: 'failed',
          error: s.error ?? '',
          ...(s.failedAt ? { failed_at: s.failedAt } : {}),
          message: `Job processing failed: ${s.error ?? ''}`,
        }),
      );
    return send(
      res,
      202,
      sorted({
        job_id: id,
        status: s.status,
        message: STATUS_MESSAGE[s.status],
        ...((s.status === 'processing' ? s.startedAt : s.createdAt) !== undefined
          ? { created_at: s.status === 'processing' ? s.startedAt : s.createdAt }
          : {}),
      }),
    );
  };

  /** GET /queue/stats: every list's length and the totals (Light's shape). */
  const queueStats = async (res: ServerResponse, q: LightJobs) => {
    const s = await q.stats();
    send(
      res,
      200,
      sorted({
        queues: sorted(s.lists),
        timestamp: Math.floor(Date.now() / 1000),
        total_active: s.processing,
        total_failed: s.failedList,
        total_pending: s.pending,
      }),
    );
  };

  /** GET /queue/health: Light's later shape (degraded with jobs processing over 2 min, unhealthy over 50 failed). */
  const queueHealth = async (res: ServerResponse, q: LightJobs) => {
    const [s, stuck] = await Promise.all([q.stats(), q.stuckJobs(120_000)]);
    const status = s.failedList > 50 ? 'unhealthy' : stuck > 0 ? 'degraded' : 'healthy';
    send(
      res,
      200,
      sorted({
        queue_lengths: sorted(s.lists),
        status,
        stuck_jobs: stuck,
        timestamp: Math.floor(Date.now() / 1000),
        total_failed: s.failedList,
        total_pending: s.pending,
        total_processing: s.processing,
      }),
    );
  };

  /** POST /prove with X-Async: the job queued (or joined, for inputs already queued or proved). */
  const enqueue = async (res: ServerResponse, q: LightJobs, payload: string, circuitType: string, circuit: string) => {
    const light = LIGHT_BATCH.has(circuitType);
    // Polled for by its client, not waited on: wanted as long as Light's later workers keep a job.
    const job = await q.submit(light ? 'light' : 'prove', payload, circuitType, circuit, {
      waitMs: ASYNC_JOB_WAIT_MS,
      ...(light ? {} : { mayBuild: opts.mayBuild?.(circuit) ?? false }),
    });
    if (job.deduplicated)
      return send(
        res,
        202,
        sorted({
          job_id: job.id,
          status: 'already_queued',
          circuit_type: circuitType,
          queue: job.queue,
          message: 'Proof request with identical input already in queue. Returning existing job ID.',
          deduplicated: true,
        }),
      );
    send(
      res,
      202,
      sorted({
        job_id: job.id,
        status: 'queued',
        circuit_type: circuitType,
        queue: job.queue,
        estimated_time: LIGHT_BATCH.has(circuitType) ? '10-30 seconds' : '1-3 seconds',
        status_url: `/prove/status?job_id=${job.id}`,
        message: `Proof generation queued for ${circuitType} circuit. Use status_url to check progress.`,
      }),
    );
  };

  const prove = async (req: IncomingMessage, res: ServerResponse, url: URL, started: number) => {
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw malformed(`body is not JSON: ${(e as Error).message}`);
    }
    const flag = (name: string) => req.headers[`x-${name}`] === 'true' || url.searchParams.get(name) === 'true';
    const circuitType = (body as { circuitType?: unknown } | null)?.circuitType;
    if (typeof circuitType === 'string' && LIGHT_BATCH.has(circuitType)) {
      // Light's forester bodies: queued as they are for Light's workers where the queue is Light's.
      if (jobs?.lightLists) return enqueue(res, jobs, JSON.stringify(body), circuitType, circuitType);
      throw malformed(
        `circuitType "${circuitType}" is a batch circuit of Light's forester, which zkgate proves for its own forester only; send it to Light's prover (or queue it for Light's workers with --queue-format light)`,
      );
    }
    const request = parseProveBody(body);
    if (jobs && flag('async')) {
      const shape = explicitShape(request);
      return enqueue(res, jobs, lightProveBody(request), request.circuitType, shape.name);
    }
    const ac = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) ac.abort();
    });
    const r = await opts.prove(request, {
      deadline: started + opts.timeoutMs,
      signal: ac.signal,
      caller: `prove:${req.socket.remoteAddress ?? 'unknown'}`,
      mayBuild: (shape) => opts.mayBuild?.(shape.name) ?? false,
      ...(opts.keyBuildWaitMs ? { keyWait: { ms: opts.keyBuildWaitMs, until: Infinity } } : {}),
    });
    send(res, 200, r.raw);
    log.info('prove', { circuit: r.circuit, ms: Date.now() - started, status: 200 });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'OPTIONS') {
      // A preflight: answered for the allowed pages only.
      const origin = req.headers.origin;
      if (origin === undefined || !corsOrigins.has(origin))
        return send(res, 403, { code: 'forbidden_origin', message: 'no CORS for this origin (--prove-cors-origins)' });
      res.writeHead(204, {
        ...cors(res),
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'content-type, authorization, x-api-key, x-async, x-sync',
      });
      return res.end();
    }
    if (url.pathname === '/health' && req.method === 'GET') {
      // Light's answer once ready; while the preloaded keys load, 503 with the progress.
      const w = opts.warmUpState?.();
      return w?.phase === 'warming'
        ? send(res, 503, { status: 'warming', done: w.done, total: w.total })
        : send(res, 200, { status: 'ok' });
    }
    const route =
      url.pathname === '/prove'
        ? 'prove'
        : jobs && url.pathname === '/prove/status'
          ? 'status'
          : jobs && url.pathname === '/queue/stats'
            ? 'stats'
            : jobs && url.pathname === '/queue/health'
              ? 'health'
              : undefined;
    if (!route) return send(res, 404, { code: 'not_found', message: `no route ${url.pathname}` });
    const method = route === 'prove' ? 'POST' : 'GET';
    if (req.method !== method)
      return send(res, 405, { code: 'method_not_allowed', message: `${method} ${url.pathname}` });
    const refused = refusal(req, route);
    if (refused) {
      req.resume();
      return send(res, refused[0], { code: refused[1], message: refused[2] });
    }
    if (!authorized(req)) return unauthorized(res);
    const started = Date.now();
    try {
      if (route === 'prove') await prove(req, res, url, started);
      else if (route === 'status') await jobStatus(res, url, jobs!);
      else if (route === 'stats') await queueStats(res, jobs!);
      else await queueHealth(res, jobs!);
    } catch (e) {
      if (e instanceof ClientGone) {
        log.debug('prove: client went away before sending its body');
        return;
      }
      const le = lightError(e);
      if (le) {
        send(res, le.status, { code: le.code, message: le.message });
        log.info(route, { ms: Date.now() - started, status: le.status, code: le.code });
      } else {
        log.error(`${route} failed`, { error: String((e as Error)?.stack ?? e) });
        send(res, 500, { code: 'unexpected_error', message: 'Internal server error' });
      }
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => log.error('prove handler failed', { error: String(e) }));
  });
  // HTTP the parser refuses gets Light's JSON error body, not Node's empty 400.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    const refusal = transportRefusal(err);
    if (refusal.reason === 'client_closed' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const text = JSON.stringify({ code: 'malformed_body', message: refusal.message });
    socket.end(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nconnection: close\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
