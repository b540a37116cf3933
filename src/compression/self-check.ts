// The ingest self-check (compression-e2e.md §3): zkgate's trees and queues must equal the tree and
// queue accounts Light's programs wrote on the ledger. Compared: root, root sequence and next index
// of every tree; for V2 trees the position of the tree's own queue (input or address queue) and,
// for state trees, the next index of the output queue.
import type { StoredAccount } from '../ledger/index.js';
import { parseOutputQueue, parseTreeAccount } from '../ledger/index.js';
import type { TreeInfo } from '../state/index.js';
import { toHex32 } from '../zk/field.js';

/**
 * Differences between a tree as zkgate holds it and its account on the ledger (empty: equal);
 * `account` looks accounts up by base58 pubkey.
 */
export function compareWithChain(info: TreeInfo, account: (pubkey: string) => StoredAccount | undefined): string[] {
  const diff: string[] = [];
  const a = account(info.pubkey);
  let chain: ReturnType<typeof parseTreeAccount>;
  try {
    chain = a ? parseTreeAccount('', info.pubkey, Buffer.from(a.data)) : undefined;
  } catch (e) {
    // An account written over (a forced cheatcode, a bad store): this tree is degraded, not the gateway.
    return [`tree ${info.pubkey}'s account does not parse as a Light tree: ${(e as Error).message}`];
  }
  if (!chain) return [`tree ${info.pubkey} has no Light tree account on the ledger`];
  const check = (what: string, ours: unknown, theirs: unknown) => {
    if (ours !== theirs) diff.push(`${what}: zkgate ${String(ours)}, ledger ${String(theirs)}`);
  };
  check('root', toHex32(info.root), toHex32(chain.root));
  check('root sequence', info.rootSeq, chain.rootSeq);
  check('next index', info.nextIndex, chain.nextIndex);
  if (info.version === 2) {
    if (info.kind === 'state') {
      check('input queue next index', info.inputNext, chain.queueNext);
      const q = info.queue ? account(info.queue) : undefined;
      const oq = q ? parseOutputQueue(Buffer.from(q.data)) : undefined;
      if (!oq) diff.push(`output queue ${info.queue || '(none)'} has no Light queue account on the ledger`);
      else check('output queue next index', info.outputNext, oq.nextIndex);
    } else check('address queue next index', info.addressNext, chain.queueNext);
  }
  return diff;
}
