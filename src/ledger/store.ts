// The ledger's state on disk (LMDB, like the trees): accounts, the slot clock and transaction
// records. Account writes of one transaction commit in one LMDB transaction.
import { open, type Database, type RootDatabase } from 'lmdb';
import type { TokenBalance } from './token-balances.js';

export interface StoredAccount {
  lamports: bigint;
  data: Uint8Array;
  owner: Uint8Array;
  executable: boolean;
  rentEpoch: bigint;
}

export interface TxRecord {
  slot: string;
  /** Solana's JSON form of the error, or null. */
  err: unknown;
  logs: string[];
  fee: string;
  computeUnits: string;
  preBalances: string[];
  postBalances: string[];
  /** The wire transaction, base64. */
  tx: string;
  blockTime: number;
  // What the meta shows beyond balances and logs (records from before these were kept lack them).
  /** v0 transactions: the keys their lookup tables gave, base58. */
  loaded?: { writable: string[]; readonly: string[] };
  /** The instructions programs invoked, by top-level instruction (only those that invoked any). */
  inner?: { index: number; instructions: CompiledInnerInstruction[] }[];
  preTokenBalances?: TokenBalance[];
  postTokenBalances?: TokenBalance[];
  /** The return data the transaction left, program id base58 and data base64. */
  returnData?: { programId: string; data: string };
}

export interface CompiledInnerInstruction {
  programIdIndex: number;
  accounts: number[];
  /** base64 (the record is JSON): base58, what the RPC shows, is left to the read, off the commit path. */
  data: string;
  stackHeight: number;
}

/** A block's header; its transactions are indexed by slot (signature-index.ts). */
export interface BlockRecord {
  blockhash: string;
  previousBlockhash: string;
  parentSlot: string;
  blockTime: number;
}

export interface LedgerDbs {
  root: RootDatabase;
  accounts: Database<Buffer, Buffer>;
  meta: Database<unknown, string>;
  txs: Database<TxRecord, Buffer>;
  /** slot (u64 BE) → the block produced in it. */
  blocks: Database<BlockRecord, Buffer>;
}

export function openLedgerDbs(path: string): LedgerDbs {
  // Room for the indexes that live in the ledger's environment (DAS, trees, compression).
  const root = open({ path, maxDbs: 128, compression: false });
  return {
    root,
    accounts: root.openDB<Buffer, Buffer>({ name: 'accounts', keyEncoding: 'binary', encoding: 'binary' }),
    meta: root.openDB<unknown, string>({ name: 'meta', encoding: 'json' }),
    txs: root.openDB<TxRecord, Buffer>({ name: 'txs', keyEncoding: 'binary', encoding: 'json' }),
    blocks: root.openDB<BlockRecord, Buffer>({ name: 'blocks-v1', keyEncoding: 'binary', encoding: 'json' }),
  };
}

/** lamports u64 ‖ rentEpoch u64 ‖ executable u8 ‖ owner 32 ‖ data */
export function encodeAccount(a: StoredAccount): Buffer {
  const b = Buffer.allocUnsafe(49 + a.data.length);
  b.writeBigUInt64BE(a.lamports, 0);
  b.writeBigUInt64BE(a.rentEpoch, 8);
  b.writeUInt8(a.executable ? 1 : 0, 16);
  b.set(a.owner, 17);
  b.set(a.data, 49);
  return b;
}

export function decodeAccount(b: Buffer): StoredAccount {
  return {
    lamports: b.readBigUInt64BE(0),
    rentEpoch: b.readBigUInt64BE(8),
    executable: b.readUInt8(16) === 1,
    owner: new Uint8Array(b.subarray(17, 49)),
    data: new Uint8Array(b.subarray(49)),
  };
}

/** The same, reading owner and data as views into `b` (no copies; for reads that do not keep them). */
export function accountView(b: Buffer): StoredAccount {
  return {
    lamports: b.readBigUInt64BE(0),
    rentEpoch: b.readBigUInt64BE(8),
    executable: b.readUInt8(16) === 1,
    owner: b.subarray(17, 49),
    data: b.subarray(49),
  };
}
