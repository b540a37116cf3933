// First-start registration of Light's localnet trees, read from the genesis accounts: trees already
// in the store are left alone, so restarts keep their state. With the embedded ledger the trees are
// marked as fed by its ingest (their queues start where the genesis accounts' do).
import type { Logger } from '../obs/log.js';
import type { TreeStore } from '../state/index.js';
import { toHex32 } from '../zk/field.js';
import { GenesisError, readGenesisTrees } from './light-accounts.js';

export function bootstrapLocalnetTrees(
  store: TreeStore,
  log: Logger,
  opts: { dir?: string; ledger?: boolean } = {},
): string[] {
  const added: string[] = [];
  for (const g of readGenesisTrees(opts.dir)) {
    if (store.has(g.pubkey)) continue;
    const info = store.registerTree({
      pubkey: g.pubkey,
      kind: g.kind,
      version: g.version,
      height: g.height,
      rootHistoryCapacity: g.rootHistoryCapacity,
      ...(g.queue ? { queue: g.queue } : {}),
      ...(opts.ledger ? { ledger: true } : {}),
      ...(g.outputNext ? { outputNext: g.outputNext } : {}),
      ...(g.inputNext ? { inputNext: g.inputNext } : {}),
      ...(g.addressNext ? { addressNext: g.addressNext } : {}),
    });
    // Our empty tree must be the chain's: same root, same root sequence.
    if (info.root !== g.root || info.rootSeq !== g.rootSeq) {
      throw new GenesisError(
        `genesis tree ${g.pubkey} (${g.file}) has root ${toHex32(g.root)} at sequence ${g.rootSeq}, ` +
          `zkgate's empty tree has ${toHex32(info.root)} at ${info.rootSeq}`,
      );
    }
    added.push(g.pubkey);
  }
  if (added.length > 0) log.info('registered Light localnet trees', { trees: added, ledger: opts.ledger === true });
  return added;
}
