// The forester as part of the gateway: its key (made on first start in the data dir, registered
// in the ledger's genesis), its batch keys built in the background as soon as it starts (a first
// build takes minutes; the queues hold a few batches meanwhile), and what it reports.
import { join } from 'node:path';
import type { Ledger } from '../ledger/index.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { CircuitInputs } from '../zk/inputs.js';
import type { CompressedProof } from '../zk/proof-format.js';
import type { TreeStore } from '../state/index.js';
import { parseBatchOutputQueue, parseBatchTree } from '../ledger/index.js';
import type { Keypair } from '../ledger/tx-build.js';
import { decodeBase58 } from '../zk/base58.js';
import { batchShape } from '../zk/shapes.js';
import { Forester } from './forester.js';
import { loadForesterKeypair } from './genesis.js';

export { Forester, queueStatuses, type ForesterStatus, type QueueStatus, type BatchKind } from './forester.js';
export { alignRegistryEpochs, foresterGenesisAccounts, loadForesterKeypair, ForesterKeyError } from './genesis.js';

/** The forester's key: the configured file, or the data dir's own (made on first start). */
export function foresterKeypair(config: { dataDir: string; foresterKeypair: string }): Keypair {
  return config.foresterKeypair
    ? loadForesterKeypair(config.foresterKeypair, false)
    : loadForesterKeypair(join(config.dataDir, 'forester-keypair.json'), true);
}

/** The batch circuits the ledger's trees need: one per queue kind and zkp batch size. */
export function batchCircuitsOf(ledger: Ledger, trees: TreeStore): string[] {
  const names = new Set<string>();
  for (const info of trees.listTrees()) {
    if (!info.ledger || info.version !== 2) continue;
    const tree = ledger.getAccount(decodeBase58(info.pubkey));
    const q = tree && parseBatchTree(Buffer.from(tree.data))?.queue;
    if (q)
      names.add(
        batchShape(info.kind === 'state' ? 'batch-update' : 'batch-address-append', q.zkpBatchSize)?.name ?? '',
      );
    if (info.kind !== 'state' || !info.queue) continue;
    const oq = ledger.getAccount(decodeBase58(info.queue));
    const out = oq && parseBatchOutputQueue(Buffer.from(oq.data));
    if (out) names.add(batchShape('batch-append', out.zkpBatchSize)?.name ?? '');
  }
  names.delete('');
  return [...names].sort();
}

export function startForester(opts: {
  ledger: Ledger;
  trees: TreeStore;
  /** Proves a batch (the local prover at background priority, or the job queue). */
  prove(circuit: string, inputs: CircuitInputs): Promise<CompressedProof>;
  /** Builds and loads the batch keys ahead of the first batch (a local prover's; none through a queue). */
  preload?(circuits: string[]): Promise<void>;
  keypair: Keypair;
  log: Logger;
  metrics?: MetricsRegistry;
}): Forester {
  const { ledger, trees, log } = opts;
  const forester = new Forester({
    ledger,
    trees,
    keypair: opts.keypair,
    log,
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    prove: opts.prove,
  });
  const circuits = batchCircuitsOf(ledger, trees);
  opts
    .preload?.(circuits)
    .catch((e: unknown) => log.error('forester: building batch keys failed', { circuits, error: String(e) }));
  forester.start();
  log.info('forester started', { authority: forester.status().authority, circuits });
  return forester;
}
