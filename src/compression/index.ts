// ZK compression on the embedded ledger: ingest of Light transactions into the trees and the
// compressed-account index (writing, in the ledger's transaction), and the queries Photon's methods
// answer from (reading). See ingest.ts and store.ts.
import type { RootDatabase } from 'lmdb';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import { TreeStore } from '../state/index.js';
import { CompressionIngester } from './ingest.js';
import { CompressionStore } from './store.js';

export { CompressionIngester, type IngestStats } from './ingest.js';
export {
  CompressionStore,
  type AccountRecord,
  type SignatureEntry,
  type SigIndex,
  type TxCompression,
} from './store.js';
export { lightEvents, type LightEvent } from './events.js';
export { parseTokenData, type TokenData } from './token-data.js';
export { compareWithChain } from './self-check.js';
export * from './instructions.js';

export interface Compression {
  trees: TreeStore;
  store: CompressionStore;
  ingester: CompressionIngester;
}

/** The trees, the index and the ingester, opened in the ledger's environment (Poseidon loaded). */
export function openCompression(root: RootDatabase, log: Logger, registry?: MetricsRegistry): Compression {
  const trees = TreeStore.attach(root);
  const store = new CompressionStore(root);
  return { trees, store, ingester: new CompressionIngester(store, trees, log, registry) };
}
