// The embedded on-disk store of the trees: LMDB (npm `lmdb`, prebuilt binaries, no build step).
// Chosen because it is copy-on-write with atomic, durable transactions: a batch either commits
// whole or not at all, a kill -9 at any point leaves the last committed state, and readers get a
// consistent snapshot without locks. Keys are ordered bytes, which the indexed trees use to find
// the low element of an address with one reverse range read.
import { open, type Database, type RootDatabase } from 'lmdb';

export interface Dbs {
  root: RootDatabase;
  /** tree pubkey (base58) → TreeMeta (JSON) */
  trees: Database<TreeMetaRecord, string>;
  /** [treeId u32][level u8][index u64] → 32-byte node; nodes equal to the empty subtree are absent. */
  nodes: Database<Buffer, Buffer>;
  /** [treeId u32][slot u32] → 32-byte root: the root history ring buffer. */
  roots: Database<Buffer, Buffer>;
  /** [treeId u32][leaf hash 32] → leaf index (u64 BE): state-tree leaf lookup by hash. */
  leaves: Database<Buffer, Buffer>;
  /** [treeId u32][index u64] → value 32 ‖ nextIndex u64 ‖ nextValue 32: indexed-tree elements. */
  elements: Database<Buffer, Buffer>;
  /** [treeId u32][value 32] → index u64: indexed-tree elements ordered by value. */
  values: Database<Buffer, Buffer>;
  /** [leaf hash 32] → treeId u32 ‖ leaf index u64 ‖ spent u8: where an account hash lives, across trees. */
  accounts: Database<Buffer, Buffer>;
}

/** Numbers are decimal strings where they may exceed 2^53; roots are 0x-hex. */
export interface TreeMetaRecord {
  id: number;
  kind: 'state' | 'address';
  version: 1 | 2;
  height: number;
  capacity: number;
  queue: string;
  nextIndex: number;
  rootSeq: string;
  root: string;
  slot: string;
}

export function openDbs(path: string): Dbs {
  const root = open({ path, maxDbs: 12, compression: false });
  const bin = { keyEncoding: 'binary', encoding: 'binary' } as const;
  return {
    root,
    trees: root.openDB<TreeMetaRecord, string>({ name: 'trees', encoding: 'json' }),
    nodes: root.openDB<Buffer, Buffer>({ name: 'nodes', ...bin }),
    roots: root.openDB<Buffer, Buffer>({ name: 'roots', ...bin }),
    leaves: root.openDB<Buffer, Buffer>({ name: 'leaves', ...bin }),
    elements: root.openDB<Buffer, Buffer>({ name: 'elements', ...bin }),
    values: root.openDB<Buffer, Buffer>({ name: 'values', ...bin }),
    accounts: root.openDB<Buffer, Buffer>({ name: 'accounts', ...bin }),
  };
}

// Key builders. Indices go up to 2^40, so they are written as two 32-bit halves.
export function nodeKey(tree: number, level: number, index: number): Buffer {
  const k = Buffer.allocUnsafe(13);
  k.writeUInt32BE(tree, 0);
  k.writeUInt8(level, 4);
  k.writeUInt32BE(Math.floor(index / 0x100000000), 5);
  k.writeUInt32BE(index >>> 0, 9);
  return k;
}

export function u64Buf(v: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32BE(Math.floor(v / 0x100000000), 0);
  b.writeUInt32BE(v >>> 0, 4);
  return b;
}

export const readU64 = (b: Buffer, offset = 0): number =>
  b.readUInt32BE(offset) * 0x100000000 + b.readUInt32BE(offset + 4);

export function prefixed(tree: number, ...parts: (Buffer | Uint8Array)[]): Buffer {
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(tree, 0);
  return Buffer.concat([head, ...parts]);
}

export function slotKey(tree: number, slot: number): Buffer {
  const k = Buffer.allocUnsafe(8);
  k.writeUInt32BE(tree, 0);
  k.writeUInt32BE(slot, 4);
  return k;
}

export function fieldBuf(v: bigint): Buffer {
  return Buffer.from(v.toString(16).padStart(64, '0'), 'hex');
}

export const bufField = (b: Buffer | Uint8Array, offset = 0): bigint =>
  BigInt('0x' + Buffer.from(b.buffer, b.byteOffset + offset, 32).toString('hex'));
