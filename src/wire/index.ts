// Wire codecs that every area shares, below all of them: exact JSON (u64 values beyond 2^53 kept
// exact both ways) and JSON-RPC calls to an upstream RPC. Serving areas (rpc, pubsub) and
// ingesting ones (ledger, sim, das) import them from here, so no lower area reaches up into rpc/.
export { parseJsonExact, stringifyJson, u64 } from './json.js';
export { forwardTo, RelayedRpcError, UpstreamError, upstreamCall } from './upstream.js';
