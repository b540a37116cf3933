// Light's prover HTTP API (validity-proof.md §11) on the prover role, so Photon or Light's CLI can
// use zkgate as their prover: POST /prove with Light's JSON (camelCase, and the older kebab-case
// keys without circuitType), GET /health. Answers and error codes are Light's.
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { AppError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import { transportRefusal } from '../util/http-refusal.js';
import type { CircuitFamily } from '../zk/shapes.js';
import type { InclusionWitness, NonInclusionWitness } from '../zk/inputs.js';
import type { ProverService, ExplicitProveRequest } from './service.js';

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

/** Reads `key` in camelCase or the older kebab-case spelling. */
function pick(o: Record<string, unknown>, camel: string): unknown {
  if (o[camel] !== undefined) return o[camel];
  return o[camel.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())];
}

function hexValue(v: unknown, field: string): bigint {
  if (typeof v !== 'string' || !/^(0x)?[0-9a-fA-F]{1,64}$/.test(v))
    throw malformed(`${field}: expected a hex string of at most 32 bytes, got ${JSON.stringify(v)}`);
  return BigInt(v.startsWith('0x') ? v : '0x' + v);
}

function index(v: unknown, field: string): number {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw malformed(`${field}: expected a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
}

function list(v: unknown, field: string): Record<string, unknown>[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => x === null || typeof x !== 'object'))
    throw malformed(`${field}: expected an array of objects`);
  return v as Record<string, unknown>[];
}

function path(v: unknown, field: string): bigint[] {
  if (!Array.isArray(v)) throw malformed(`${field}: expected an array of hex strings`);
  return v.map((x, i) => hexValue(x, `${field}[${i}]`));
}

/** Light's request body → the service's explicit request (heights inferred from paths when absent). */
export function parseProveBody(body: unknown): ExplicitProveRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw malformed('body must be a JSON object');
  const o = body as Record<string, unknown>;
  const accounts: InclusionWitness[] = list(pick(o, 'inputCompressedAccounts'), 'inputCompressedAccounts').map(
    (a, i) => ({
      root: hexValue(a.root, `inputCompressedAccounts[${i}].root`),
      leaf: hexValue(a.leaf, `inputCompressedAccounts[${i}].leaf`),
      pathIndex: index(pick(a, 'pathIndex'), `inputCompressedAccounts[${i}].pathIndex`),
      pathElements: path(pick(a, 'pathElements'), `inputCompressedAccounts[${i}].pathElements`),
    }),
  );
  const addresses: NonInclusionWitness[] = list(pick(o, 'newAddresses'), 'newAddresses').map((a, i) => ({
    root: hexValue(a.root, `newAddresses[${i}].root`),
    value: hexValue(a.value, `newAddresses[${i}].value`),
    pathIndex: index(pick(a, 'pathIndex'), `newAddresses[${i}].pathIndex`),
    pathElements: path(pick(a, 'pathElements'), `newAddresses[${i}].pathElements`),
    lowValue: hexValue(pick(a, 'leafLowerRangeValue'), `newAddresses[${i}].leafLowerRangeValue`),
    nextValue: hexValue(pick(a, 'leafHigherRangeValue'), `newAddresses[${i}].leafHigherRangeValue`),
    nextIndex: index(pick(a, 'nextIndex') ?? 0, `newAddresses[${i}].nextIndex`),
  }));
  let circuitType = pick(o, 'circuitType');
  if (circuitType === undefined) {
    // Older clients sent no circuitType: the arrays say which circuit they mean.
    circuitType = accounts.length && addresses.length ? 'combined' : addresses.length ? 'non-inclusion' : 'inclusion';
  }
  if (circuitType !== 'inclusion' && circuitType !== 'non-inclusion' && circuitType !== 'combined')
    throw malformed(
      `missing or invalid 'circuitType': expected "inclusion", "non-inclusion" or "combined", got ${JSON.stringify(circuitType)}`,
    );
  const height = (v: unknown, field: string) => (v === undefined || v === null ? 0 : index(v, field));
  const generic = height(pick(o, 'treeHeight') ?? o.height, 'treeHeight');
  const stateTreeHeight =
    height(pick(o, 'stateTreeHeight'), 'stateTreeHeight') || generic || (accounts[0]?.pathElements.length ?? 0);
  const addressTreeHeight =
    height(pick(o, 'addressTreeHeight'), 'addressTreeHeight') || generic || (addresses[0]?.pathElements.length ?? 0);
  const pih = pick(o, 'publicInputHash');
  return {
    circuitType: circuitType as CircuitFamily,
    stateTreeHeight,
    addressTreeHeight,
    ...(pih !== undefined && pih !== null && pih !== '' ? { publicInputHash: hexValue(pih, 'publicInputHash') } : {}),
    accounts,
    addresses,
  };
}

/** The HTTP status and Light error code of a service error. */
function lightError(e: unknown): LightHttpError | undefined {
  if (e instanceof LightHttpError) return e;
  if (!(e instanceof AppError)) return undefined;
  switch (e.kind) {
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
    default:
      return undefined;
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export interface LightHttpServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startLightHttp(opts: {
  host: string;
  port: number;
  service: ProverService;
  apiKey: string;
  timeoutMs: number;
  log: Logger;
}): Promise<LightHttpServer> {
  const { service, log } = opts;
  const keyDigest = opts.apiKey ? digest(opts.apiKey) : undefined;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'access-control-allow-origin': '*',
    });
    res.end(text);
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

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'content-type, authorization, x-api-key',
      });
      return res.end();
    }
    if (url.pathname === '/health' && req.method === 'GET') {
      // Light's answer once ready; while the preloaded keys load, 503 with the progress.
      const w = service.warmUpState();
      return w.phase === 'warming'
        ? send(res, 503, { status: 'warming', done: w.done, total: w.total })
        : send(res, 200, { status: 'ok' });
    }
    if (url.pathname !== '/prove') return send(res, 404, { code: 'not_found', message: `no route ${url.pathname}` });
    if (req.method !== 'POST') return send(res, 405, { code: 'method_not_allowed', message: 'POST /prove' });
    if (!authorized(req))
      return send(res, 401, {
        code: 'unauthorized',
        message: 'Invalid or missing API key (X-API-Key or Authorization: Bearer)',
      });
    const started = Date.now();
    try {
      const text = await readBody(req);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (e) {
        throw malformed(`body is not JSON: ${(e as Error).message}`);
      }
      const request = parseProveBody(body);
      const ac = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) ac.abort();
      });
      const r = await service.prove(request, {
        deadline: started + opts.timeoutMs,
        signal: ac.signal,
        caller: `prove:${req.socket.remoteAddress ?? 'unknown'}`,
      });
      send(res, 200, r.proof.raw);
      log.info('prove', { circuit: r.circuit, ms: Date.now() - started, status: 200 });
    } catch (e) {
      if (e instanceof ClientGone) {
        log.debug('prove: client went away before sending its body');
        return;
      }
      const le = lightError(e);
      if (le) {
        send(res, le.status, { code: le.code, message: le.message });
        log.info('prove', { ms: Date.now() - started, status: le.status, code: le.code });
      } else {
        log.error('prove failed', { error: String((e as Error)?.stack ?? e) });
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
