// First-start registration of Light's localnet trees, read from the genesis accounts. Trees
// already in the store are left alone, so restarts keep their state.
import type { Logger } from '../obs/log.js';
import type { TreeStore } from '../state/index.js';
import { toHex32 } from '../zk/field.js';
import { GenesisError, readGenesisTrees } from './genesis.js';

export function bootstrapLocalnetTrees(store: TreeStore, log: Logger, dir?: string): string[] {
  const added: string[] = [];
  for (const g of readGenesisTrees(dir)) {
    if (store.has(g.pubkey)) continue;
    const info = store.registerTree({
      pubkey: g.pubkey,
      kind: g.kind,
      version: g.version,
      height: g.height,
      rootHistoryCapacity: g.rootHistoryCapacity,
      ...(g.queue ? { queue: g.queue } : {}),
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
  if (added.length > 0) log.info('registered Light localnet trees', { trees: added });
  return added;
}
