// The JSON-RPC 2.0 envelope: validates request objects, runs methods (batches concurrently) and
// builds response objects. Knows nothing about HTTP.
import type { Logger } from '../obs/log.js';
import { adminRefusal, type AdminRule } from './admin.js';
import {
  AdminOnlyError,
  BatchTooLargeError,
  InvalidRequestError,
  mapError,
  MethodNotFoundError,
  type ErrorKind,
  type RpcErrorObject,
} from './errors.js';
import { checkParamLimits, type ParamLimits } from './limits.js';
import type { CallContext, MethodDef } from './methods/index.js';
import type { RpcMetrics } from './rpc-metrics.js';
import { describe } from './validate.js';

export type RpcId = string | number | null;

export type ResponseObject =
  { jsonrpc: '2.0'; result: unknown; id: RpcId } | { jsonrpc: '2.0'; error: RpcErrorObject; id: RpcId };

/** What one HTTP body produced: the response (undefined = nothing to send) and a summary for the log. */
export interface DispatchOutcome {
  response: ResponseObject | ResponseObject[] | undefined;
  method: string;
  outcome: 'ok' | ErrorKind;
  batchSize?: number;
}

export const errorResponse = (error: RpcErrorObject, id: RpcId): ResponseObject => ({ jsonrpc: '2.0', error, id });

const MAX_ID_LENGTH = 1024;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

export class Dispatcher {
  constructor(
    private readonly methods: ReadonlyMap<string, MethodDef>,
    private readonly maxBatchSize: number,
    private readonly metrics: RpcMetrics,
    private readonly log: Logger,
    private readonly limits: ParamLimits = { maxDepth: 64, maxStringLength: 16 * 1024 },
    private readonly adminRule: AdminRule = 'open',
  ) {}

  /** Number of requests a parsed body holds (for rate limiting before any work is done). */
  static count(body: unknown): number {
    return Array.isArray(body) ? Math.max(1, body.length) : 1;
  }

  async dispatch(body: unknown, ctx: CallContext): Promise<DispatchOutcome> {
    if (!Array.isArray(body)) {
      const r = await this.one(body, ctx);
      return { response: r.response, method: r.method, outcome: r.outcome };
    }
    if (body.length === 0) {
      return this.envelopeError(new InvalidRequestError('Invalid request: empty batch'), 'batch');
    }
    if (body.length > this.maxBatchSize) {
      return this.envelopeError(
        new BatchTooLargeError(
          `Invalid request: batch of ${body.length} requests exceeds the maximum of ${this.maxBatchSize}`,
        ),
        'batch',
      );
    }
    const results = await Promise.all(body.map((req) => this.one(req, ctx)));
    const responses = results.flatMap((r) => (r.response ? [r.response] : []));
    const failed = results.find((r) => r.outcome !== 'ok');
    return {
      response: responses.length > 0 ? responses : undefined,
      method: 'batch',
      outcome: failed ? failed.outcome : 'ok',
      batchSize: body.length,
    };
  }

  private envelopeError(err: Error, method: string): DispatchOutcome {
    const m = mapError(err);
    this.metrics.calls.inc([method, m.kind]);
    return { response: errorResponse(m.error, null), method, outcome: m.kind };
  }

  private async one(
    req: unknown,
    ctx: CallContext,
  ): Promise<{ response: ResponseObject | undefined; method: string; outcome: 'ok' | ErrorKind }> {
    const started = performance.now();
    let id: RpcId = null;
    let notification = false;
    let label = 'invalid';
    try {
      if (!isPlainObject(req))
        throw new InvalidRequestError(`Invalid request: expected a request object, got ${describe(req)}`);
      if (Object.hasOwn(req, 'id')) {
        const raw = req.id;
        if (typeof raw !== 'string' && typeof raw !== 'number' && raw !== null) {
          throw new InvalidRequestError(
            `Invalid request: \`id\` must be a string, number or null, got ${describe(raw)}`,
          );
        }
        // Echoed back in the answer: bounded like any string the request holds.
        if (typeof raw === 'string' && raw.length > MAX_ID_LENGTH)
          throw new InvalidRequestError(
            `Invalid request: \`id\` of ${raw.length} characters exceeds the limit of ${MAX_ID_LENGTH}`,
          );
        id = raw;
      }
      if (req.jsonrpc !== undefined && req.jsonrpc !== '2.0') {
        throw new InvalidRequestError(`Invalid request: \`jsonrpc\` must be "2.0", got ${describe(req.jsonrpc)}`);
      }
      if (typeof req.method !== 'string') {
        throw new InvalidRequestError(
          req.method === undefined
            ? 'Invalid request: missing field `method`'
            : `Invalid request: \`method\` must be a string, got ${describe(req.method)}`,
        );
      }
      const params = req.params;
      if (params !== undefined && params !== null && typeof params !== 'object') {
        throw new InvalidRequestError(
          `Invalid request: \`params\` must be an array or an object, got ${describe(params)}`,
        );
      }
      // From here on the envelope is valid: a request without `id` is a notification.
      notification = !Object.hasOwn(req, 'id');
      const def = this.methods.get(req.method);
      if (!def) {
        label = 'unknown';
        throw new MethodNotFoundError(req.method);
      }
      label = def.name;
      if (def.admin && !ctx.admin) throw new AdminOnlyError(adminRefusal(def.name, this.adminRule));
      if (params !== undefined && params !== null)
        checkParamLimits(params, 'params', {
          maxDepth: this.limits.maxDepth,
          maxStringLength: def.largeStrings ? Infinity : this.limits.maxStringLength,
        });
      const result = await def.call(def.params(params ?? undefined, 'params'), ctx);
      this.record(label, 'ok', started);
      return { response: notification ? undefined : { jsonrpc: '2.0', result, id }, method: label, outcome: 'ok' };
    } catch (err) {
      const m = mapError(err);
      if (m.unexpected !== undefined) {
        const e = m.unexpected as Error;
        this.log.error('unexpected failure', {
          reqId: ctx.requestId,
          method: label,
          error: String(e?.message ?? e),
          stack: e?.stack,
        });
      }
      this.record(label, m.kind, started);
      return { response: notification ? undefined : errorResponse(m.error, id), method: label, outcome: m.kind };
    }
  }

  private record(method: string, outcome: string, started: number): void {
    this.metrics.calls.inc([method, outcome]);
    this.metrics.callSeconds.observe((performance.now() - started) / 1000, [method]);
  }
}
