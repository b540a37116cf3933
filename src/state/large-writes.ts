// Large StateSync writes without stalling the event loop. One LMDB transaction over 5,000
// addresses hashes for about a second, and every JSON-RPC request waits behind it. Instead a
// write is checked whole first (so it cannot fail halfway for anything its caller sent), then
// applied in chunks, one transaction each, yielding to the event loop between them. The root
// history moves only with the last chunk, by the steps of the whole write: the end state is the
// one a single call leaves. A journal makes it atomic across crashes: the write is recorded with
// the first chunk and rolled forward when the store opens, so it lands whole or not at all.
import { toHex32 } from '../zk/field.js';
import type { Dbs } from './store.js';
import type { AddressTree, RootRef, StateTree, WritePart } from './trees.js';

export type LargeWrite =
  | { op: 'append'; tree: string; leaves: bigint[]; slot?: bigint }
  | { op: 'nullify'; tree: string; entries: { leafIndex: number; txHash?: bigint }[]; slot?: bigint }
  | { op: 'insert'; tree: string; addresses: bigint[]; slot?: bigint };

/** Items per chunk: about 5–10 ms of hashing each on this project's 2-core machines. */
export const CHUNK_ITEMS = { append: 128, nullify: 128, insert: 32 } as const;

export interface Trees {
  stateTree(pubkey: string): StateTree;
  addressTree(pubkey: string): AddressTree;
}

const fromHex32 = (s: string): bigint => BigInt(s);

const JOURNAL = 'large-write';
const PROGRESS = 'large-write-progress';

interface Journal {
  op: LargeWrite['op'];
  tree: string;
  slot?: string;
  /** append/insert: 0x-hex values; nullify: [leafIndex, txHash hex or null]. */
  items: (string | [number, string | null])[];
}

interface Progress {
  done: number;
  steps: string;
}

function toJournal(w: LargeWrite): Journal {
  const base = { op: w.op, tree: w.tree, ...(w.slot !== undefined ? { slot: w.slot.toString() } : {}) };
  switch (w.op) {
    case 'append':
      return { ...base, items: w.leaves.map(toHex32) };
    case 'insert':
      return { ...base, items: w.addresses.map(toHex32) };
    case 'nullify':
      return { ...base, items: w.entries.map((e) => [e.leafIndex, e.txHash === undefined ? null : toHex32(e.txHash)]) };
  }
}

function fromJournal(j: Journal): LargeWrite {
  const slot = j.slot !== undefined ? { slot: BigInt(j.slot) } : {};
  if (j.op === 'nullify')
    return {
      op: 'nullify',
      tree: j.tree,
      entries: (j.items as [number, string | null][]).map(([leafIndex, tx]) =>
        tx === null ? { leafIndex } : { leafIndex, txHash: fromHex32(tx) },
      ),
      ...slot,
    };
  const values = (j.items as string[]).map(fromHex32);
  return j.op === 'append'
    ? { op: 'append', tree: j.tree, leaves: values, ...slot }
    : { op: 'insert', tree: j.tree, addresses: values, ...slot };
}

const itemsOf = (w: LargeWrite): readonly unknown[] =>
  w.op === 'append' ? w.leaves : w.op === 'insert' ? w.addresses : w.entries;

/** Items checked per event-loop turn: an LMDB range read each, about 25 µs. */
const CHECK_ITEMS = 512;

/** Checks the whole write as one call would, without writing, a slice per event-loop turn. */
export async function checkWrite(trees: Trees, w: LargeWrite, pause: () => Promise<void>): Promise<void> {
  if (w.op === 'append') return trees.stateTree(w.tree).checkAppend(w.leaves.length);
  const seenIndices = new Set<number>();
  const seenAddresses = new Set<bigint>();
  const total = itemsOf(w).length;
  for (let from = 0; from < total; from += CHECK_ITEMS) {
    if (from > 0) await pause();
    const to = Math.min(total, from + CHECK_ITEMS);
    if (w.op === 'nullify') trees.stateTree(w.tree).checkNullify(w.entries.slice(from, to), seenIndices);
    else trees.addressTree(w.tree).checkInsert(w.addresses.slice(from, to), seenAddresses, total);
  }
}

/** Applies items [from, to) of the write as one chunk. */
function applyChunk(
  trees: Trees,
  w: LargeWrite,
  from: number,
  to: number,
  part: WritePart,
): RootRef & { firstIndex?: number } {
  if (w.op === 'append') return trees.stateTree(w.tree).append(w.leaves.slice(from, to), w.slot, part);
  if (w.op === 'nullify') return trees.stateTree(w.tree).nullify(w.entries.slice(from, to), w.slot, part);
  return trees.addressTree(w.tree).insert(w.addresses.slice(from, to), w.slot, part);
}

export interface ChunkedResult extends RootRef {
  /** append: the index the first leaf got. */
  firstIndex?: number;
}

/**
 * Applies a checked write in chunks, each in `transaction` (the store's), awaiting `pause`
 * between them; the journal records the write with the first chunk and goes with the last.
 */
export async function applyInChunks(
  dbs: Dbs,
  trees: Trees,
  transaction: <T>(fn: () => T) => T,
  w: LargeWrite,
  pause: () => Promise<void>,
  onChunk?: (done: number, total: number) => void,
): Promise<ChunkedResult> {
  const total = itemsOf(w).length;
  const size = CHUNK_ITEMS[w.op];
  const part: WritePart = { final: false, steps: 0n };
  let firstIndex: number | undefined;
  let last: ChunkedResult | undefined;
  for (let from = 0; from < total; from += size) {
    const to = Math.min(total, from + size);
    part.final = to === total;
    last = transaction(() => {
      if (from === 0) dbs.meta.put(JOURNAL, toJournal(w));
      const r = applyChunk(trees, w, from, to, part);
      if (part.final) {
        dbs.meta.remove(JOURNAL);
        dbs.meta.remove(PROGRESS);
      } else dbs.meta.put(PROGRESS, { done: to, steps: part.steps.toString() } satisfies Progress);
      return r;
    });
    firstIndex ??= last.firstIndex;
    if (!part.final) {
      onChunk?.(to, total);
      await pause();
    }
  }
  return { ...last!, ...(firstIndex !== undefined ? { firstIndex } : {}) };
}

/**
 * Finishes a large write a crash interrupted (its first chunks landed, the rest did not), at once:
 * the store is opening and serves nothing yet. Returns the operation finished, if any.
 */
export function rollForward(dbs: Dbs, trees: Trees, transaction: <T>(fn: () => T) => T): string | undefined {
  const j = dbs.meta.get(JOURNAL) as Journal | undefined;
  if (!j) return undefined;
  const w = fromJournal(j);
  const p = (dbs.meta.get(PROGRESS) as Progress | undefined) ?? { done: 0, steps: '0' };
  const total = itemsOf(w).length;
  transaction(() => {
    // The first chunk and the journal commit together: at least that chunk is in.
    const part: WritePart = { final: true, steps: BigInt(p.steps) };
    if (p.done < total) applyChunk(trees, w, p.done, total, part);
    dbs.meta.remove(JOURNAL);
    dbs.meta.remove(PROGRESS);
  });
  return `${w.op} of ${total} items into ${w.tree} (${total - p.done} left)`;
}
