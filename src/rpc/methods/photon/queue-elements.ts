// getQueueElements: what a forester needs to prove a batch update of a V2 tree: the queued
// elements (output queue: account hashes; input queue: nullifiers; address queue: addresses), the
// tree nodes to rebuild their paths (leaf, siblings and written parents, index = level << 56 |
// position), the Poseidon hash chain of each zkp batch, the current root and its sequence number.
import type { StateTree } from '../../../state/index.js';
import { poseidon } from '../../../zk/poseidon.js';
import { bigIntToBytes32 } from '../../../zk/field.js';
import { u64 } from '../../../wire/index.js';
import type { Backends, CompressionIndex } from '../backends.js';
import type { MethodDef } from '../types.js';
import { photonMethod } from './define.js';
import { validation } from './errors.js';
import { b58 } from './json.js';
import { field, hash, struct, unsigned } from './params.js';

const MAX = 30000;
const hx = (v: bigint) => b58(bigIntToBytes32(v));

const queueRequest = struct(
  'QueueRequest',
  {
    limit: field(unsigned(16), { required: true }),
    startIndex: field(unsigned(64)),
    zkpBatchSize: field(unsigned(16)),
  },
  true,
);

const request = struct(
  'GetQueueElementsRequest',
  {
    tree: field(hash, { required: true }),
    outputQueue: field(queueRequest),
    inputQueue: field(queueRequest),
    addressQueue: field(queueRequest),
  },
  true,
);

type QueueReq = NonNullable<ReturnType<typeof request>['outputQueue']>;

/** One Poseidon chain per full zkp batch: c = v0, then c = H(c, v). */
function hashChains(values: bigint[], batch: number): bigint[] {
  const out: bigint[] = [];
  for (let i = 0; batch > 0 && i + batch <= values.length; i += batch) {
    let c = values[i]!;
    for (let j = i + 1; j < i + batch; j++) c = poseidon([c, values[j]!]);
    out.push(c);
  }
  return out;
}

/** Nodes to rebuild the paths of `leaves`: each leaf, its siblings, and the written parents. */
function pathNodes(
  tree: { node(l: number, i: number): bigint; storedNode(l: number, i: number): bigint | undefined },
  height: number,
  leaves: { index: number; value: bigint }[],
  into = new Map<bigint, bigint>(),
): Map<bigint, bigint> {
  const key = (level: number, pos: number) => (BigInt(level) << 56n) | BigInt(pos);
  for (const { index, value } of leaves) {
    into.set(key(0, index), value);
    let pos = index;
    for (let level = 0; level < height; level++) {
      const sib = pos % 2 === 0 ? pos + 1 : pos - 1;
      into.set(key(level, sib), tree.node(level, sib));
      pos = Math.floor(pos / 2);
      const parent = tree.storedNode(level + 1, pos);
      if (parent !== undefined) into.set(key(level + 1, pos), parent);
    }
  }
  return into;
}

const nodesJson = (nodes: Map<bigint, bigint>) =>
  [...nodes]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([index, hash]) => ({ index: u64(index), hash: hx(hash) }));

function takeBatches<T>(items: T[], req: QueueReq, defaultBatch: number): { items: T[]; batch: number } {
  const batch = req.zkpBatchSize || defaultBatch;
  return { items: items.slice(0, items.length - (items.length % batch)), batch };
}

function checkStart(req: QueueReq, first: number | undefined): void {
  if (req.startIndex !== undefined && first !== undefined && first > req.startIndex)
    throw validation(
      `Requested start_index ${req.startIndex} but first_queue_index ${first} is later (possible pruning)`,
    );
}

function stateQueues(t: StateTree, out?: QueueReq, input?: QueueReq) {
  const info = t.info();
  const nodes = new Map<bigint, bigint>();
  let any = false;
  const result: Record<string, unknown> = {};
  let outputQueue: unknown;
  let inputQueue: unknown;
  if (out) {
    if (out.limit > MAX) throw validation(`Too many queue elements requested ${out.limit}. Maximum allowed: ${MAX}`);
    const all = [...t.queueEntries('output', out.startIndex ?? 0, out.limit)].map((e) => ({
      index: e.position,
      hash: BigInt('0x' + e.entry.subarray(0, 32).toString('hex')),
    }));
    checkStart(out, all[0]?.index);
    const { items, batch } = takeBatches(all, out, 500);
    any ||= items.length > 0;
    const leaves = items.map((e) => ({ index: e.index, value: t.leaf(e.index) }));
    pathNodes(t, info.height, leaves, nodes);
    const first = items[0]?.index ?? out.startIndex ?? 0;
    outputQueue = {
      leafIndices: items.map((e) => e.index),
      accountHashes: items.map((e) => hx(e.hash)),
      leaves: leaves.map((l) => hx(l.value)),
      firstQueueIndex: first,
      nextIndex: first,
      leavesHashChains: hashChains(
        items.map((e) => e.hash),
        batch,
      ).map(hx),
    };
  }
  if (input) {
    if (input.limit > MAX)
      throw validation(`Too many queue elements requested ${input.limit}. Maximum allowed: ${MAX}`);
    const all = [...t.nullifierQueue(input.startIndex ?? 0, input.limit)];
    checkStart(input, all[0]?.position);
    const { items, batch } = takeBatches(all, input, 500);
    any ||= items.length > 0;
    const leaves = items.map((e) => ({ index: e.leafIndex, value: t.leaf(e.leafIndex) }));
    pathNodes(t, info.height, leaves, nodes);
    inputQueue = {
      leafIndices: items.map((e) => e.leafIndex),
      accountHashes: items.map((e) => hx(e.hash)),
      leaves: leaves.map((l) => hx(l.value)),
      txHashes: items.map((e) => hx(e.txHash ?? 0n)),
      nullifiers: items.map((e) => hx(e.nullifier ?? 0n)),
      firstQueueIndex: items[0]?.position ?? input.startIndex ?? 0,
      leavesHashChains: hashChains(
        items.map((e) => e.nullifier ?? 0n),
        batch,
      ).map(hx),
    };
  }
  if (!any) return undefined;
  if (nodes.size > 0) result.nodes = nodesJson(nodes);
  result.initialRoot = hx(info.root);
  result.rootSeq = u64(info.rootSeq);
  if (out) result.outputQueue = outputQueue;
  if (input) result.inputQueue = inputQueue;
  return result;
}

function addressQueue(ix: CompressionIndex, tree: string, req: QueueReq) {
  if (req.limit > MAX) throw validation(`Too many addresses requested ${req.limit}. Maximum allowed: ${MAX}`);
  const t = ix.trees.addressTree(tree);
  const info = t.info();
  const batch = req.zkpBatchSize ?? 250;
  const all = [...t.addressQueue(req.startIndex ?? 0, req.limit)];
  const items = batch > 0 ? all.slice(0, all.length - (all.length % batch)) : all;
  const nodes = new Map<bigint, bigint>();
  const lows = items.map(({ address }) => {
    const p = t.nonInclusionProof(address);
    const leafHash = t.leafHash(p.lowElement, info.version);
    pathNodes(t, info.height, [{ index: p.lowElement.index, value: leafHash }], nodes);
    return p;
  });
  return {
    addresses: items.map((a) => hx(a.address)),
    queueIndices: items.map((a) => a.position),
    nodes: nodesJson(nodes),
    lowElementIndices: lows.map((p) => p.lowElement.index),
    lowElementValues: lows.map((p) => hx(p.lowElement.value)),
    lowElementNextIndices: lows.map((p) => p.lowElement.nextIndex),
    lowElementNextValues: lows.map((p) => hx(p.lowElement.nextValue)),
    leavesHashChains: hashChains(
      items.map((a) => a.address),
      batch,
    ).map(hx),
    initialRoot: hx(info.root),
    startIndex: info.nextIndex,
    subtrees: t.subtrees().map(hx),
    rootSeq: u64(info.rootSeq),
  };
}

export function queueElementsMethod(backends: Backends): MethodDef {
  return photonMethod(backends, 'getQueueElements', request, (ix, p) => {
    if (!p.outputQueue && !p.inputQueue && !p.addressQueue) throw validation('At least one queue must be requested');
    const tree = b58(p.tree);
    const info = ix.trees.has(tree) ? ix.trees.info(tree) : undefined;
    const out: Record<string, unknown> = { context: { slot: u64(ix.slot()) } };
    if ((p.outputQueue || p.inputQueue) && info?.kind === 'state' && info.version === 2) {
      const s = stateQueues(ix.trees.stateTree(tree), p.outputQueue, p.inputQueue);
      if (s) out.stateQueue = s;
    }
    if (p.addressQueue) {
      out.addressQueue =
        info?.kind === 'address' && info.version === 2
          ? addressQueue(ix, tree, p.addressQueue)
          : {
              addresses: [],
              queueIndices: [],
              nodes: [],
              lowElementIndices: [],
              lowElementValues: [],
              lowElementNextIndices: [],
              lowElementNextValues: [],
              leavesHashChains: [],
              initialRoot: '11111111111111111111111111111111',
              startIndex: info?.nextIndex ?? 1,
              subtrees: [],
              rootSeq: 0,
            };
    }
    return out;
  });
}
