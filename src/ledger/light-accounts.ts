// Light's Merkle tree and queue accounts (layouts of the programs in @lightprotocol/zk-compression-cli
// 0.28.3: V1 concurrent and indexed tree accounts, V2 BatchedMerkleTreeAccount and output queues),
// read for two purposes: the localnet genesis trees (accounts/*.json in the CLI package), so
// zkgate's trees start as `light test-validator`'s do; and the accounts as the ledger's programs
// leave them, so ingest can check its trees against the chain after every transaction.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installedLightPackage } from './fixtures.js';
import { bytesToBigInt } from '../zk/field.js';
import { encodeBase58 } from '../zk/base58.js';
import type { TreeSpec } from '../state/index.js';
import { AppError } from '../errors.js';

export interface GenesisTree extends TreeSpec {
  height: number;
  rootHistoryCapacity: number;
  /** The root and root sequence the account holds: an empty tree's. */
  root: bigint;
  rootSeq: bigint;
  /** Leaves (V1: appended; V2: batch-appended) and, for V2 trees, the next position of the tree's own queue. */
  nextIndex: number;
  queueNext?: number;
  file: string;
}

const V1_STATE = Buffer.from('ac2bacba1d49db54', 'hex');
const V1_ADDRESS = Buffer.from('0ba1af09d4e54949', 'hex');
const V2_TREE = Buffer.from('BatchMta', 'ascii');

// V1: discriminator 8 + MerkleTreeMetadata (associated_queue at +152), then the concurrent tree.
const V1 = {
  queue: 160,
  height: 224,
  nextIndex: 240,
  sequence: 248,
  filledSubtreesCapacity: 288,
  changelogCapacity: 304,
  rootsCapacity: 336,
  rootsLast: 360,
  data: 384,
};
// V2: BatchedMerkleTreeMetadata, then the root history (cyclic vec: current index, length, capacity).
const V2 = {
  treeType: 8,
  queue: 168,
  sequence: 232,
  nextIndex: 240,
  height: 248,
  rootHistoryCapacity: 252,
  queueNextIndex: 312,
  rootHistoryCurrent: 680,
  rootHistoryLength: 688,
  rootHistoryData: 704,
};

const u64 = (d: Buffer, o: number) => d.readBigUInt64LE(o);
const pk = (d: Buffer, o: number) => {
  const b = d.subarray(o, o + 32);
  return b.every((x) => x === 0) ? '' : encodeBase58(b);
};

export class GenesisError extends AppError {
  readonly kind = 'genesis';
}

const V2_OUTPUT_QUEUE = Buffer.from('queueacc', 'ascii');
/** V2 output queue: associated tree @160, batch metadata next_index @280. */
const OQ = { tree: 160, nextIndex: 280 };

/** A V2 output queue account: its tree and the leaf index its next output gets. */
export function parseOutputQueue(data: Buffer): { tree: string; nextIndex: number } | undefined {
  if (data.length < OQ.nextIndex + 8 || !data.subarray(0, 8).equals(V2_OUTPUT_QUEUE)) return undefined;
  return { tree: pk(data, OQ.tree), nextIndex: Number(u64(data, OQ.nextIndex)) };
}

/** What a tree account's metadata says (its first TREE_METADATA_BYTES): enough to register the tree. */
export interface TreeMetadata extends TreeSpec {
  height: number;
  rootHistoryCapacity: number;
  rootSeq: bigint;
  /** Leaves (V1: appended; V2: batch-appended) and, for V2 trees, the next position of the tree's own queue. */
  nextIndex: number;
  queueNext?: number;
}

/** Bytes of a tree account that hold its metadata: what a follower asks a cluster for (dataSlice). */
export const TREE_METADATA_BYTES = 352;

/** Discriminators of the tree accounts (getProgramAccounts filters: base58 of these 8 bytes). */
export const TREE_DISCRIMINATORS: readonly Buffer[] = [V1_STATE, V1_ADDRESS, V2_TREE];

/** A tree account's metadata, from its first TREE_METADATA_BYTES; undefined when it is not a Merkle tree. */
export function parseTreeMetadata(pubkey: string, data: Buffer): TreeMetadata | undefined {
  const disc = data.subarray(0, 8);
  if (disc.equals(V1_STATE) || disc.equals(V1_ADDRESS)) {
    if (data.length < V1.rootsCapacity + 8) return undefined;
    return {
      pubkey,
      kind: disc.equals(V1_STATE) ? 'state' : 'address',
      version: 1,
      height: Number(u64(data, V1.height)),
      rootHistoryCapacity: Number(u64(data, V1.rootsCapacity)),
      queue: pk(data, V1.queue),
      rootSeq: u64(data, V1.sequence),
      nextIndex: Number(u64(data, V1.nextIndex)),
    };
  }
  if (disc.equals(V2_TREE)) {
    if (data.length < V2.queueNextIndex + 8) return undefined;
    const type = Number(u64(data, V2.treeType));
    if (type !== 3 && type !== 4) throw new GenesisError(`${pubkey}: unknown V2 tree type ${type}`);
    const queue = pk(data, V2.queue);
    return {
      pubkey,
      kind: type === 3 ? 'state' : 'address',
      version: 2,
      height: data.readUInt32LE(V2.height),
      rootHistoryCapacity: data.readUInt32LE(V2.rootHistoryCapacity),
      ...(queue ? { queue } : {}),
      rootSeq: u64(data, V2.sequence),
      nextIndex: Number(u64(data, V2.nextIndex)),
      queueNext: Number(u64(data, V2.queueNextIndex)),
    };
  }
  return undefined;
}

/** One genesis account's tree, or undefined when the account is not a Merkle tree. */
export function parseTreeAccount(file: string, pubkey: string, data: Buffer): GenesisTree | undefined {
  const meta = parseTreeMetadata(pubkey, data);
  if (!meta) return undefined;
  if (meta.version === 1) {
    // Roots follow the filled subtrees (32 B each) and the changelog (entries of a root and a
    // path of `height` nodes plus its index: 32·(height + 1) + 8 B).
    const rootsAt =
      V1.data +
      32 * Number(u64(data, V1.filledSubtreesCapacity)) +
      Number(u64(data, V1.changelogCapacity)) * (32 * (meta.height + 1) + 8);
    const last = Number(u64(data, V1.rootsLast));
    return { ...meta, file, root: bytesToBigInt(data.subarray(rootsAt + 32 * last, rootsAt + 32 * last + 32)) };
  }
  const cap = meta.rootHistoryCapacity;
  const cur = Number(u64(data, V2.rootHistoryCurrent));
  const len = Number(u64(data, V2.rootHistoryLength));
  const last = cur === 0 && len === cap ? cap - 1 : (cur + cap - 1) % cap;
  const at = V2.rootHistoryData + 32 * last;
  return { ...meta, file, root: bytesToBigInt(data.subarray(at, at + 32)) };
}

/** The accounts folder of a Light CLI package: by default the installed @lightprotocol/zk-compression-cli. */
export function genesisAccountsDir(root = installedLightPackage()): string {
  return join(root, 'accounts');
}

/**
 * Every Merkle tree among the genesis accounts, once per pubkey, sorted by pubkey; V2 state trees
 * carry their output queue's next index (`outputNext`), V2 trees their own queue's (`inputNext` /
 * `addressNext`).
 */
export function readGenesisTrees(dir = genesisAccountsDir()): GenesisTree[] {
  if (!existsSync(dir)) throw new GenesisError(`Light genesis accounts not found at ${dir}`);
  const byKey = new Map<string, GenesisTree>();
  const queueNext = new Map<string, number>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const j = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      pubkey: string;
      account: { data: [string, string] };
    };
    const data = Buffer.from(j.account.data[0], 'base64');
    const oq = parseOutputQueue(data);
    if (oq) queueNext.set(j.pubkey, oq.nextIndex);
    const tree = parseTreeAccount(file, j.pubkey, data);
    if (tree && !byKey.has(tree.pubkey)) byKey.set(tree.pubkey, tree);
  }
  for (const t of byKey.values()) {
    if (t.version !== 2) continue;
    if (t.kind === 'state') {
      t.inputNext = t.queueNext ?? 0;
      t.outputNext = queueNext.get(t.queue ?? '') ?? 0;
    } else t.addressNext = t.queueNext ?? 0;
  }
  return [...byKey.values()].sort((a, b) => a.pubkey.localeCompare(b.pubkey));
}

/** One batch of a V2 queue (batched-merkle-tree `Batch`, 96 bytes). */
export interface QueueBatch {
  /** 0 fill, 1 inserted (every zkp batch in the tree), 2 full. */
  state: number;
  /** Entries in the zkp batch being filled. */
  numInserted: number;
  numFullZkpBatches: number;
  numInsertedZkpBatches: number;
  /** Queue position (output queue: leaf index) of the batch's first entry. */
  startIndex: number;
}

/** A V2 queue as a forester reads it: the output queue's or a tree's own input / address queue. */
export interface BatchQueue {
  batchSize: number;
  zkpBatchSize: number;
  pendingBatchIndex: number;
  nextIndex: number;
  batches: QueueBatch[];
  /** Per batch, the hash chain of each zkp batch filled so far (the last one may still be filling). */
  hashChains: bigint[][];
}

/** The V2 tree's figures a batch proof commits to, with its queue. */
export interface BatchTreeState {
  root: bigint;
  rootSeq: bigint;
  nextIndex: number;
  queue: BatchQueue;
}

export const BATCH_STATE = { fill: 0, inserted: 1, full: 2 } as const;

function readQueueBatches(d: Buffer, at: number, hashChainsAt: number): BatchQueue {
  const n = Number(u64(d, at));
  const zkp = Number(u64(d, at + 16));
  const batches: QueueBatch[] = [];
  const hashChains: bigint[][] = [];
  const perBatch = Number(u64(d, at + 8)) / zkp;
  for (let i = 0; i < n; i++) {
    const b = at + 56 + 96 * i;
    batches.push({
      state: Number(u64(d, b + 8)),
      numInserted: Number(u64(d, b)),
      numFullZkpBatches: Number(u64(d, b + 16)),
      numInsertedZkpBatches: Number(u64(d, b + 24)),
      startIndex: Number(u64(d, b + 72)),
    });
    const v = hashChainsAt + i * (16 + 32 * perBatch);
    const len = Number(u64(d, v));
    hashChains.push(
      Array.from({ length: Math.min(len, perBatch) }, (_, k) =>
        bytesToBigInt(d.subarray(v + 16 + 32 * k, v + 48 + 32 * k)),
      ),
    );
  }
  return {
    batchSize: Number(u64(d, at + 8)),
    zkpBatchSize: zkp,
    pendingBatchIndex: Number(u64(d, at + 40)),
    nextIndex: Number(u64(d, at + 48)),
    batches,
    hashChains,
  };
}

/** A V2 tree account's root, next index and own queue (input queue of a state tree, address queue). */
export function parseBatchTree(data: Buffer): BatchTreeState | undefined {
  if (data.length < V2.rootHistoryData || !data.subarray(0, 8).equals(V2_TREE)) return undefined;
  const tree = parseTreeAccount('', '', data)!;
  const cap = data.readUInt32LE(V2.rootHistoryCapacity);
  const bloomBytes = Number(u64(data, 264 + 24)) / 8;
  const hashChainsAt = V2.rootHistoryData + 32 * cap + 2 * bloomBytes;
  return {
    root: tree.root,
    rootSeq: tree.rootSeq,
    nextIndex: tree.nextIndex,
    queue: readQueueBatches(data, 264, hashChainsAt),
  };
}

/** A V2 output queue's batches (the values are zgkate's own: the account zeroes spent ones). */
export function parseBatchOutputQueue(data: Buffer): BatchQueue | undefined {
  if (data.length < 552 || !data.subarray(0, 8).equals(V2_OUTPUT_QUEUE)) return undefined;
  const batchSize = Number(u64(data, 240));
  return readQueueBatches(data, 232, 552 + 2 * (16 + 32 * batchSize));
}

/** The zkp batch a forester proves next: the pending batch's first full, not inserted one. */
export function readyZkpBatch(
  q: BatchQueue,
): { batch: number; zkpBatch: number; firstPosition: number; hashChain: bigint } | undefined {
  const b = q.batches[q.pendingBatchIndex];
  if (!b || b.state === BATCH_STATE.inserted || b.numFullZkpBatches <= b.numInsertedZkpBatches) return undefined;
  const z = b.numInsertedZkpBatches;
  const hashChain = q.hashChains[q.pendingBatchIndex]?.[z];
  if (hashChain === undefined) return undefined;
  return { batch: q.pendingBatchIndex, zkpBatch: z, firstPosition: b.startIndex + z * q.zkpBatchSize, hashChain };
}

/** How many entries wait in a V2 queue (queued, not yet in the tree). */
export function queuedEntries(q: BatchQueue): number {
  let n = 0;
  for (const b of q.batches) {
    if (b.state === BATCH_STATE.inserted) continue;
    n += (b.numFullZkpBatches - b.numInsertedZkpBatches) * q.zkpBatchSize + b.numInserted;
  }
  return n;
}
