// The indexer's own status and queues: getIndexerSlot / getIndexerHealth (ingest is synchronous
// with the ledger, so the indexer is never behind; health fails when a check (the self-check, a cluster's consistency monitor) found a tree
// differing from the chain), liveness / readiness, and the V2 queues (getQueueInfo,
// getQueueLeafIndices, getQueueElements).
import { u64 } from '../../../wire/index.js';
import type { Backends } from '../backends.js';
import { defineMethod, type MethodDef } from '../types.js';
import { photonMethod, withContext } from './define.js';
import { PhotonError, validation } from './errors.js';
import { b58 } from './json.js';
import { queueElementsMethod } from './queue-elements.js';
import { field, hash, seq, string, struct, unsigned } from './params.js';
import { decodeBase58 } from '../../../zk/base58.js';
import { bigIntToBytes32 } from '../../../zk/field.js';

const anything = (v: unknown) => v;

export function indexerMethods(backends: Backends): MethodDef[] {
  const m = photonMethod;
  return [
    m(backends, 'getIndexerSlot', anything, (ix) => u64(ix.slot())),
    m(backends, 'getIndexerHealth', anything, (ix) => {
      const bad = [...ix.divergent()];
      if (bad.length > 0)
        throw new PhotonError(
          'validation',
          `Indexer state differs from the chain for ${bad.map(([t, d]) => `${t} (${d})`).join(', ')}`,
        );
      return 'ok';
    }),
    // Photon's liveness/readiness are JSON-RPC methods too (GET /liveness and /readiness call them).
    defineMethod({ name: 'liveness', params: anything, call: () => null }),
    m(backends, 'readiness', anything, () => null),
    m(
      backends,
      'getQueueInfo',
      struct('GetQueueInfoRequest', { trees: field(seq(string), { default: true }) }, true),
      (ix, p) => {
        const wanted = p.trees?.map((t) => {
          let ok = false;
          try {
            ok = decodeBase58(t).length === 32;
          } catch {
            throw validation('Invalid pubkey: Invalid Base58 string');
          }
          if (!ok) throw validation('Invalid pubkey: String is the wrong size');
          return t;
        });
        const queues: unknown[] = [];
        for (const info of ix.trees.listTrees()) {
          if (info.version !== 2 || (wanted && !wanted.includes(info.pubkey))) continue;
          if (info.kind === 'state') {
            const t = ix.trees.stateTree(info.pubkey);
            queues.push(
              { tree: info.pubkey, queue: info.queue, queueType: 3, queueSize: t.queueSize('nullifier') },
              { tree: info.pubkey, queue: info.queue, queueType: 5, queueSize: t.queueSize('output') },
            );
          } else {
            queues.push({
              tree: info.pubkey,
              queue: info.queue || b58(new Uint8Array(32)),
              queueType: 4,
              queueSize: ix.trees.addressTree(info.pubkey).queueSize('address'),
            });
          }
        }
        return { queues, slot: u64(ix.slot()) };
      },
    ),
    m(
      backends,
      'getQueueLeafIndices',
      struct(
        'GetQueueLeafIndicesRequest',
        {
          tree: field(hash, { required: true }),
          limit: field(unsigned(16), { required: true }),
          startIndex: field(unsigned(64)),
        },
        true,
      ),
      (ix, p) => {
        if (p.limit > 30000) throw validation(`Too many queue elements requested ${p.limit}. Maximum allowed: 30000`);
        const tree = b58(p.tree);
        const items =
          ix.trees.has(tree) && ix.trees.info(tree).kind === 'state'
            ? [...ix.trees.stateTree(tree).nullifierQueue(p.startIndex ?? 0, p.limit)].map((e) => ({
                hash: b58(bigIntToBytes32(e.hash)),
                queueIndex: e.position,
                leafIndex: e.leafIndex,
              }))
            : [];
        return withContext(ix, items);
      },
    ),
    queueElementsMethod(backends),
  ];
}
