import type { Counter, Gauge, Histogram, MetricsRegistry } from '../obs/metrics.js';

/** The adapter's metrics. Method labels are known method names, 'unknown' or 'invalid', never raw input. */
export interface RpcMetrics {
  calls: Counter;
  callSeconds: Histogram;
  httpRequests: Counter;
  httpSeconds: Histogram;
  inFlight: Gauge;
  rateLimited: Counter;
  authFailures: Counter;
  /** Requests the server could not read: the client went away, or HTTP framing it refused. */
  transportRefusals: Counter;
}

export function createRpcMetrics(reg: MetricsRegistry): RpcMetrics {
  return {
    calls: reg.counter('zkgate_rpc_calls_total', 'JSON-RPC calls by method and outcome (ok or error kind).', [
      'method',
      'outcome',
    ]),
    callSeconds: reg.histogram('zkgate_rpc_call_duration_seconds', 'JSON-RPC call latency by method.', ['method']),
    httpRequests: reg.counter('zkgate_http_requests_total', 'HTTP requests by route and status.', ['route', 'status']),
    httpSeconds: reg.histogram('zkgate_http_request_duration_seconds', 'HTTP request latency by route.', ['route']),
    inFlight: reg.gauge('zkgate_http_in_flight_requests', 'HTTP requests being served now.'),
    rateLimited: reg.counter('zkgate_rate_limited_total', 'Requests rejected by the per-key rate limit.', ['key_id']),
    authFailures: reg.counter('zkgate_auth_failures_total', 'Requests rejected for a missing or invalid API key.', [
      'reason',
    ]),
    transportRefusals: reg.counter(
      'zkgate_http_transport_refusals_total',
      'Requests ended before JSON-RPC: client_closed (went away mid-request), malformed, headers_too_large, timeout.',
      ['reason'],
    ),
  };
}
