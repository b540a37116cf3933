// Solana's transaction wire format (legacy and v0), parsed just far enough for what the ledger
// needs around the VM: signatures and the signed message, account keys, the recent blockhash (and
// where it sits, to replace it), instructions and address-table lookups.
import { AppError } from '../errors.js';

export const PACKET_DATA_SIZE = 1232;

export class TxDecodeError extends AppError {
  readonly kind = 'tx_decode';
}

export interface Lookup {
  table: Uint8Array;
  writable: number[];
  readonly: number[];
}

export interface ParsedTransaction {
  bytes: Uint8Array;
  signatures: Uint8Array[];
  /** The signed message: everything after the signatures. */
  message: Uint8Array;
  version: 'legacy' | 0;
  numRequiredSignatures: number;
  numReadonlySigned: number;
  numReadonlyUnsigned: number;
  staticKeys: Uint8Array[];
  recentBlockhash: Uint8Array;
  /** Offset of the recent blockhash inside `message`. */
  blockhashOffset: number;
  instructions: { programIdIndex: number; accounts: number[]; data: Uint8Array }[];
  lookups: Lookup[];
}

class Reader {
  offset = 0;
  constructor(readonly b: Uint8Array) {}
  byte(): number {
    if (this.offset >= this.b.length) throw new TxDecodeError('io error: unexpected end of file');
    return this.b[this.offset++]!;
  }
  bytes(n: number): Uint8Array {
    if (this.offset + n > this.b.length) throw new TxDecodeError('io error: unexpected end of file');
    const out = this.b.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
  /** Solana's compact-u16 ("shortvec") length. */
  shortvec(): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const x = this.byte();
      value |= (x & 0x7f) << (7 * i);
      if ((x & 0x80) === 0) return value;
    }
    throw new TxDecodeError('invalid compact-u16 length');
  }
}

/** A wire transaction's version, read from its message's first byte (what parseTransaction finds, without the rest). */
export function transactionVersion(bytes: Uint8Array): 'legacy' | 0 {
  const r = new Reader(bytes);
  r.bytes(r.shortvec() * 64);
  const first = r.byte();
  if (!(first & 0x80)) return 'legacy';
  const v = first & 0x7f;
  if (v !== 0) throw new TxDecodeError(`unsupported transaction version ${v}`);
  return 0;
}

export function parseTransaction(bytes: Uint8Array): ParsedTransaction {
  const r = new Reader(bytes);
  const nSig = r.shortvec();
  const signatures = Array.from({ length: nSig }, () => r.bytes(64));
  const messageStart = r.offset;
  let version: 'legacy' | 0 = 'legacy';
  const first = r.b[r.offset];
  if (first !== undefined && first & 0x80) {
    const v = r.byte() & 0x7f;
    if (v !== 0) throw new TxDecodeError(`unsupported transaction version ${v}`);
    version = 0;
  }
  const numRequiredSignatures = r.byte();
  const numReadonlySigned = r.byte();
  const numReadonlyUnsigned = r.byte();
  const staticKeys = Array.from({ length: r.shortvec() }, () => r.bytes(32));
  const blockhashOffset = r.offset - messageStart;
  const recentBlockhash = r.bytes(32);
  const instructions = Array.from({ length: r.shortvec() }, () => {
    const programIdIndex = r.byte();
    const accounts = Array.from({ length: r.shortvec() }, () => r.byte());
    const data = r.bytes(r.shortvec());
    return { programIdIndex, accounts, data };
  });
  const lookups: Lookup[] = [];
  if (version === 0) {
    const n = r.shortvec();
    for (let i = 0; i < n; i++) {
      const table = r.bytes(32);
      const writable = Array.from({ length: r.shortvec() }, () => r.byte());
      const readonly = Array.from({ length: r.shortvec() }, () => r.byte());
      lookups.push({ table, writable, readonly });
    }
  }
  if (r.offset !== bytes.length) throw new TxDecodeError(`${bytes.length - r.offset} trailing bytes after the message`);
  if (nSig !== numRequiredSignatures)
    throw new TxDecodeError(`${nSig} signatures for ${numRequiredSignatures} required signers`);
  if (numRequiredSignatures > staticKeys.length) throw new TxDecodeError('more required signatures than account keys');
  return {
    bytes,
    signatures,
    message: bytes.subarray(messageStart),
    version,
    numRequiredSignatures,
    numReadonlySigned,
    numReadonlyUnsigned,
    staticKeys,
    recentBlockhash,
    blockhashOffset,
    instructions,
    lookups,
  };
}

/** Whether static key `i` is writable (message header rules). */
export function isStaticWritable(tx: ParsedTransaction, i: number): boolean {
  if (i < tx.numRequiredSignatures) return i < tx.numRequiredSignatures - tx.numReadonlySigned;
  return i < tx.staticKeys.length - tx.numReadonlyUnsigned;
}

/** A copy of the transaction with another recent blockhash (signatures left as they are). */
export function withBlockhash(tx: ParsedTransaction, blockhash: Uint8Array): Uint8Array {
  const out = Uint8Array.from(tx.bytes);
  out.set(blockhash, tx.bytes.length - tx.message.length + tx.blockhashOffset);
  return out;
}

/** A bare message (as getFeeForMessage takes it), parsed as a transaction with empty signatures. */
export function parseMessage(message: Uint8Array): ParsedTransaction {
  const required = message[message[0] !== undefined && message[0] & 0x80 ? 1 : 0];
  if (required === undefined || required > 127) throw new TxDecodeError('io error: unexpected end of file');
  const bytes = new Uint8Array(1 + 64 * required + message.length);
  bytes[0] = required;
  bytes.set(message, 1 + 64 * required);
  return parseTransaction(bytes);
}

/** Solana's compact-u16 length, encoded. */
export function shortvec(n: number): number[] {
  const out: number[] = [];
  for (let v = n; ;) {
    const b = v & 0x7f;
    v >>= 7;
    if (v === 0) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** The parts of a transaction that its wire form is made of (what an RPC node's `json` encoding spells out). */
export type TransactionParts = Omit<ParsedTransaction, 'bytes' | 'message' | 'blockhashOffset'>;

/** A transaction's wire bytes from its parts, parsed back (so both of a node's encodings read alike). */
export function assembleTransaction(p: TransactionParts): ParsedTransaction {
  const parts: (Uint8Array | number[])[] = [shortvec(p.signatures.length), ...p.signatures];
  if (p.version === 0) parts.push([0x80]);
  parts.push([p.numRequiredSignatures, p.numReadonlySigned, p.numReadonlyUnsigned], shortvec(p.staticKeys.length));
  parts.push(...p.staticKeys, p.recentBlockhash, shortvec(p.instructions.length));
  for (const ix of p.instructions) {
    if (ix.programIdIndex > 255 || ix.accounts.some((a) => a > 255))
      throw new TxDecodeError('an account index over 255');
    parts.push([ix.programIdIndex], shortvec(ix.accounts.length), ix.accounts, shortvec(ix.data.length), ix.data);
  }
  if (p.version === 0) {
    parts.push(shortvec(p.lookups.length));
    for (const l of p.lookups)
      parts.push(l.table, shortvec(l.writable.length), l.writable, shortvec(l.readonly.length), l.readonly);
  }
  const bytes = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
  let at = 0;
  for (const x of parts) {
    bytes.set(x, at);
    at += x.length;
  }
  return parseTransaction(bytes);
}
