// litesvm's internal NAPI class: it takes wire bytes and raw pubkeys, which is what a server holds
// (the public wrapper wants @solana/kit objects). The package has no exports map, so the internal
// module is reachable by path; the version is pinned exactly in package.json for that reason.
// 1.4.1, not the spec's 1.5.0: the registry has 1.5.0's native package for linux-x64-gnu only, and
// a lock file missing the other platforms makes `npm ci` refuse to install anywhere. The internal
// API used here and the error enums are the same in both.
import { createRequire } from 'node:module';
import type * as Internal from 'litesvm/dist/internal.js';

const require = createRequire(import.meta.url);
export const litesvm = require('litesvm/dist/internal.js') as typeof Internal;
export type { Account, LiteSvm, TransactionMetadata, FailedTransactionMetadata } from 'litesvm/dist/internal.js';
