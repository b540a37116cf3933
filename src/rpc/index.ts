export { adminRule, type AdminRule } from './admin.js';
export { loadApiKeys, ApiKeys, keyId, API_KEY_FILE, type LoadedKeys } from './api-keys.js';
export { Dispatcher } from './dispatch.js';
export { ERROR_CODES, mapError } from './errors.js';
export { RpcHttpServer } from './http-server.js';
export { createMethodTable, type Backends, type CompressionIndex } from './methods/index.js';
export { RateLimiter } from './rate-limit.js';
export { createRpcMetrics } from './rpc-metrics.js';
