// simulateBundle backends: the embedded simulator over the ledger (and, by configuration, an
// upstream forwarder).
export { BundleSimulator, MAX_BUNDLE_TRANSACTIONS } from './simulator.js';
export { BundleRejectedError } from './errors.js';
export { truncateLogs, BUNDLE_LOG_LIMIT } from './logs.js';
export { accountJson, EMPTY_ACCOUNT } from './account-json.js';
export type { BundleAccountsConfig, SimulateBundleConfig, SimulateBundleParams, SimulationBank } from './params.js';
