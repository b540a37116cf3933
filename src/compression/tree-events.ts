// Forester events: what account-compression did to a tree outside users' transactions (batch
// appends, nullifications and address appends of V2 trees; V1 nullifications and indexed-tree
// updates), as the program emits them, borsh-encoded `MerkleTreeEvent`s in the data of an
// instruction it invokes on the noop program (compression-e2e.md §6). Only noop instructions
// account-compression itself invoked count: anyone can call the noop program directly.
import type { ChainTransaction } from '../ledger/index.js';
import { LIGHT_IDS } from '../ledger/index.js';
import { decodeBase58 } from '../zk/base58.js';
import { bytesToBigInt } from '../zk/field.js';
import { sameBytes } from '../util/same-bytes.js';

const KEY = {
  accountCompression: Buffer.from(decodeBase58(LIGHT_IDS.accountCompression)),
  noop: Buffer.from(decodeBase58(LIGHT_IDS.noop)),
};

export const TREE_EVENT_TAG = {
  changelog: 0,
  nullifier: 1,
  indexed: 2,
  batchAppend: 3,
  batchNullify: 4,
  batchAddressAppend: 5,
} as const;

export interface BatchEvent {
  kind: 'batch-append' | 'batch-nullify' | 'batch-address-append';
  tree: Uint8Array;
  batchIndex: number;
  zkpBatchIndex: number;
  zkpBatchSize: number;
  oldNextIndex: number;
  newNextIndex: number;
  newRoot: bigint;
  rootIndex: number;
  sequenceNumber: bigint;
  outputQueue: Uint8Array | null;
}

export interface IndexedElementEvent {
  value: bigint;
  nextIndex: number;
  nextValue: bigint;
  index: number;
}

/** V1: leaves a forester nullified (set to zero). */
export interface V1NullifyEvent {
  kind: 'v1-nullify';
  tree: Uint8Array;
  leafIndices: number[];
  seq: bigint;
}

/** V1: an address inserted into an indexed tree (its low element re-pointed, the new element). */
export interface V1AddressEvent {
  kind: 'v1-address';
  tree: Uint8Array;
  updates: { low: IndexedElementEvent; high: IndexedElementEvent }[];
  seq: bigint;
}

export type TreeEvent = BatchEvent | V1NullifyEvent | V1AddressEvent;

class Reader {
  at = 0;
  constructor(private readonly d: Buffer) {}
  need(n: number): number {
    if (this.at + n > this.d.length) throw new RangeError(`event ends at byte ${this.d.length}, needs ${this.at + n}`);
    const p = this.at;
    this.at += n;
    return p;
  }
  u8 = () => this.d[this.need(1)]!;
  u32 = () => this.d.readUInt32LE(this.need(4));
  u64 = () => this.d.readBigUInt64LE(this.need(8));
  num = () => Number(this.u64());
  key = () => new Uint8Array(this.d.subarray(this.need(32), this.at));
  field = () => bytesToBigInt(this.d.subarray(this.need(32), this.at));
  vec<T>(item: () => T): T[] {
    const n = this.u32();
    if (n > this.d.length) throw new RangeError(`vector of ${n} items in a ${this.d.length}-byte event`);
    return Array.from({ length: n }, item);
  }
  done(): void {
    if (this.at !== this.d.length) throw new RangeError(`${this.d.length - this.at} bytes after the event`);
  }
}

const BATCH_KINDS = {
  [TREE_EVENT_TAG.batchAppend]: 'batch-append',
  [TREE_EVENT_TAG.batchNullify]: 'batch-nullify',
  [TREE_EVENT_TAG.batchAddressAppend]: 'batch-address-append',
} as const;

/** One event, or undefined for a kind ingest takes from elsewhere (V1 appends come with the user's transaction). */
export function decodeTreeEvent(data: Uint8Array): TreeEvent | undefined {
  const r = new Reader(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  const tag = r.u8();
  let ev: TreeEvent | undefined;
  if (
    tag === TREE_EVENT_TAG.batchAppend ||
    tag === TREE_EVENT_TAG.batchNullify ||
    tag === TREE_EVENT_TAG.batchAddressAppend
  ) {
    ev = {
      kind: BATCH_KINDS[tag],
      tree: r.key(),
      batchIndex: r.num(),
      zkpBatchIndex: r.num(),
      zkpBatchSize: r.num(),
      oldNextIndex: r.num(),
      newNextIndex: r.num(),
      newRoot: r.field(),
      rootIndex: r.u32(),
      sequenceNumber: r.u64(),
      outputQueue: r.u8() === 1 ? r.key() : null,
    };
  } else if (tag === TREE_EVENT_TAG.nullifier) {
    ev = { kind: 'v1-nullify', tree: r.key(), leafIndices: r.vec(r.num), seq: r.u64() };
  } else if (tag === TREE_EVENT_TAG.indexed) {
    const element = (): IndexedElementEvent => ({
      value: r.field(),
      nextIndex: r.num(),
      nextValue: r.field(),
      index: r.num(),
    });
    const tree = r.key();
    const updates = r.vec(() => {
      const low = element();
      r.field();
      const high = element();
      r.field();
      return { low, high };
    });
    ev = { kind: 'v1-address', tree, updates, seq: r.u64() };
  } else if (tag === TREE_EVENT_TAG.changelog) return undefined;
  else throw new RangeError(`unknown Merkle tree event ${tag}`);
  r.done();
  return ev;
}

/** The tree events of a committed, successful transaction, in execution order. */
export function treeEvents(t: ChainTransaction): { events: TreeEvent[]; skipped: string[] } {
  const events: TreeEvent[] = [];
  const skipped: string[] = [];
  const keys = t.accountKeys;
  const indexOf = (k: Buffer) => keys.findIndex((x) => sameBytes(k, x));
  const noop = indexOf(KEY.noop);
  const compression = indexOf(KEY.accountCompression);
  if (noop < 0 || compression < 0 || t.err) return { events, skipped };
  const inner = t.innerInstructions();
  t.tx.instructions.forEach((_, i) => {
    const list = inner[i] ?? [];
    list.forEach((ix, j) => {
      if (ix.programIdIndex !== noop) return;
      // The invoking instruction: the nearest one before at the stack height below.
      let k = j - 1;
      while (k >= 0 && list[k]!.stackHeight >= ix.stackHeight) k--;
      const parent = k >= 0 ? list[k]!.programIdIndex : t.tx.instructions[i]!.programIdIndex;
      if (parent !== compression) return;
      try {
        const ev = decodeTreeEvent(ix.data);
        if (ev) events.push(ev);
      } catch (e) {
        skipped.push(`Merkle tree event in instruction ${i} is malformed: ${(e as Error).message}`);
      }
    });
  });
  return { events, skipped };
}
