// A `getBlock` answer (transactionDetails "full", encoding "base64" or "json", rewards off) read
// into a source block, validated here once. A transaction that does not read (bad base64 or
// base58, an index out of range, a message that does not parse) is set aside with its signature
// and why; the rest of the block is kept. A block whose own fields are wrong is refused whole
// (MalformedBlockError): its source asks again.
import { AppError } from '../errors.js';
import {
  assembleTransaction,
  parseTransaction,
  txErrorFromJson,
  type InnerInstruction,
  type ParsedTransaction,
  type TokenBalance,
} from '../ledger/index.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import type { SourceBlock, SourceTransaction, UnreadableTransaction } from './block-source.js';

export class MalformedBlockError extends AppError {
  readonly kind = 'malformed_block';
}

/** Why one transaction of a block was set aside. */
class Unreadable extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function b58(v: unknown, len: number | undefined, what: string): Uint8Array {
  if (typeof v !== 'string') throw new Unreadable(`${what}: expected a base58 string`);
  let out: Uint8Array;
  try {
    out = decodeBase58(v);
  } catch {
    throw new Unreadable(`${what}: not base58`);
  }
  if (len !== undefined && out.length !== len) throw new Unreadable(`${what}: ${out.length} bytes, expected ${len}`);
  return out;
}

function index(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255)
    throw new Unreadable(`${what}: expected an account index`);
  return v;
}

function indexes(v: unknown, what: string): number[] {
  if (!Array.isArray(v)) throw new Unreadable(`${what}: expected an array of account indexes`);
  return v.map((x, i) => index(x, `${what}[${i}]`));
}

/** Account indexes below `keys`, as bytes (an inner instruction's). */
function indexBytes(v: unknown, keys: number, what: string): Uint8Array {
  if (!Array.isArray(v)) throw new Unreadable(`${what}: expected an array of account indexes`);
  const out = new Uint8Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = index(v[i], `${what}[${i}]`);
    if (x >= keys) throw new Unreadable(`${what}: an account index past the keys`);
    out[i] = x;
  }
  return out;
}

/**
 * Standard base64 (RFC 4648 §4, padded) decoded. Node's decoder skips what is not base64 and takes
 * the URL alphabet too; a string with either decodes to fewer bytes than its length says or holds
 * '-' or '_', so checking those refuses it without encoding the bytes again to compare.
 */
function base64Bytes(data: string): Buffer | undefined {
  const n = data.length;
  if (n % 4 !== 0 || data.includes('-') || data.includes('_')) return undefined;
  const pad = n > 0 && data.charCodeAt(n - 1) === 61 ? (data.charCodeAt(n - 2) === 61 ? 2 : 1) : 0;
  const bytes = Buffer.from(data, 'base64');
  return bytes.length === (n / 4) * 3 - pad ? bytes : undefined;
}

/** The transaction of an entry, in either encoding, as wire bytes parsed. */
function transactionOf(raw: unknown, version: unknown): ParsedTransaction {
  if (Array.isArray(raw)) {
    const [data, enc] = raw as unknown[];
    if (enc !== 'base64' || typeof data !== 'string') throw new Unreadable('transaction: expected [base64, "base64"]');
    const bytes = base64Bytes(data);
    if (!bytes) throw new Unreadable('transaction: not base64');
    // A view of the decoded bytes (a Uint8Array, as every parsed transaction holds), not a copy.
    return parseTransaction(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
  }
  if (!isObj(raw) || !isObj(raw.message) || !Array.isArray(raw.signatures))
    throw new Unreadable('transaction: expected {signatures, message}');
  const m = raw.message;
  const h = isObj(m.header) ? m.header : undefined;
  if (!h) throw new Unreadable('transaction.message.header: missing');
  const count = (v: unknown, what: string) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255)
      throw new Unreadable(`${what}: expected 0-255`);
    return v;
  };
  if (!Array.isArray(m.accountKeys) || !Array.isArray(m.instructions))
    throw new Unreadable('transaction.message: expected accountKeys and instructions');
  const lookups = m.addressTableLookups ?? [];
  if (!Array.isArray(lookups)) throw new Unreadable('transaction.message.addressTableLookups: expected an array');
  return assembleTransaction({
    signatures: raw.signatures.map((s, i) => b58(s, 64, `signatures[${i}]`)),
    version: version === 0 ? 0 : 'legacy',
    numRequiredSignatures: count(h.numRequiredSignatures, 'header.numRequiredSignatures'),
    numReadonlySigned: count(h.numReadonlySignedAccounts, 'header.numReadonlySignedAccounts'),
    numReadonlyUnsigned: count(h.numReadonlyUnsignedAccounts, 'header.numReadonlyUnsignedAccounts'),
    staticKeys: m.accountKeys.map((k, i) => b58(k, 32, `accountKeys[${i}]`)),
    recentBlockhash: b58(m.recentBlockhash, 32, 'recentBlockhash'),
    instructions: m.instructions.map((ix, i) => {
      if (!isObj(ix)) throw new Unreadable(`instructions[${i}]: expected an object`);
      return {
        programIdIndex: index(ix.programIdIndex, `instructions[${i}].programIdIndex`),
        accounts: indexes(ix.accounts, `instructions[${i}].accounts`),
        data: b58(ix.data, undefined, `instructions[${i}].data`),
      };
    }),
    lookups: (lookups as unknown[]).map((l, i) => {
      if (!isObj(l)) throw new Unreadable(`addressTableLookups[${i}]: expected an object`);
      return {
        table: b58(l.accountKey, 32, `addressTableLookups[${i}].accountKey`),
        writable: indexes(l.writableIndexes, `addressTableLookups[${i}].writableIndexes`),
        readonly: indexes(l.readonlyIndexes, `addressTableLookups[${i}].readonlyIndexes`),
      };
    }),
  });
}

function innerOf(meta: Obj, topLevel: number, keys: number): InnerInstruction[][] {
  const out: InnerInstruction[][] = Array.from({ length: topLevel }, () => []);
  const list = meta.innerInstructions ?? [];
  if (!Array.isArray(list)) throw new Unreadable('meta.innerInstructions: expected an array');
  for (let n = 0; n < list.length; n++) {
    const group: unknown = list[n];
    if (!isObj(group) || !Array.isArray(group.instructions))
      throw new Unreadable(`innerInstructions[${n}]: expected {index, instructions}`);
    const at = group.index;
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= topLevel)
      throw new Unreadable(`innerInstructions[${n}].index: not one of the ${topLevel} instructions`);
    for (let i = 0; i < group.instructions.length; i++) {
      const ix: unknown = group.instructions[i];
      const what = `innerInstructions[${n}].instructions[${i}]`;
      if (!isObj(ix)) throw new Unreadable(`${what}: expected an object`);
      const programIdIndex = index(ix.programIdIndex, `${what}.programIdIndex`);
      if (programIdIndex >= keys) throw new Unreadable(`${what}: an account index past the keys`);
      const accounts = indexBytes(ix.accounts, keys, `${what}.accounts`);
      // Blocks from before stack heights were recorded have none: a direct invocation is assumed.
      const stackHeight = typeof ix.stackHeight === 'number' ? ix.stackHeight : 2;
      out[at]!.push({
        programIdIndex,
        accounts,
        data: b58(ix.data, undefined, `${what}.data`),
        stackHeight,
      });
    }
  }
  return out;
}

function tokenBalancesOf(meta: Obj, keys: number): TokenBalance[] {
  const out: TokenBalance[] = [];
  for (const field of ['preTokenBalances', 'postTokenBalances'] as const) {
    const list = meta[field] ?? [];
    if (!Array.isArray(list)) throw new Unreadable(`meta.${field}: expected an array`);
    for (const [i, b] of list.entries()) {
      const what = `meta.${field}[${i}]`;
      const amount = isObj(b) && isObj(b.uiTokenAmount) ? b.uiTokenAmount : undefined;
      if (
        !isObj(b) ||
        !amount ||
        typeof b.accountIndex !== 'number' ||
        b.accountIndex >= keys ||
        typeof b.mint !== 'string' ||
        typeof amount.amount !== 'string' ||
        !/^\d{1,20}$/.test(amount.amount) ||
        typeof amount.decimals !== 'number'
      )
        throw new Unreadable(`${what}: expected {accountIndex, mint, uiTokenAmount: {amount, decimals}}`);
      out.push({
        accountIndex: b.accountIndex,
        mint: b.mint,
        owner: typeof b.owner === 'string' ? b.owner : '',
        programId: typeof b.programId === 'string' ? b.programId : '',
        amount: amount.amount,
        decimals: amount.decimals,
      });
    }
  }
  return out;
}

function readTransaction(entry: unknown, slot: bigint, position: number, blockTime: number): SourceTransaction {
  if (!isObj(entry) || !isObj(entry.meta)) throw new Unreadable('expected {transaction, meta}');
  const meta = entry.meta;
  const tx = transactionOf(entry.transaction, entry.version);
  const loaded = isObj(meta.loadedAddresses) ? meta.loadedAddresses : { writable: [], readonly: [] };
  const listOf = (v: unknown, what: string) => {
    if (!Array.isArray(v)) throw new Unreadable(`meta.loadedAddresses.${what}: expected an array`);
    return v.map((k, i) => b58(k, 32, `meta.loadedAddresses.${what}[${i}]`));
  };
  const wanted = tx.lookups.reduce((n, l) => n + l.writable.length + l.readonly.length, 0);
  const writable = listOf(loaded.writable ?? [], 'writable');
  const readonly = listOf(loaded.readonly ?? [], 'readonly');
  // Most transactions load no addresses: their keys are the message's own array.
  const accountKeys =
    writable.length + readonly.length === 0 ? tx.staticKeys : [...tx.staticKeys, ...writable, ...readonly];
  if (accountKeys.length !== tx.staticKeys.length + wanted)
    throw new Unreadable(
      `meta.loadedAddresses: ${accountKeys.length - tx.staticKeys.length} addresses for ${wanted} lookups`,
    );
  for (const [i, ix] of tx.instructions.entries())
    if (ix.programIdIndex >= accountKeys.length || ix.accounts.some((a) => a >= accountKeys.length))
      throw new Unreadable(`instructions[${i}]: an account index past the keys`);
  const logs = meta.logMessages ?? [];
  if (!Array.isArray(logs) || logs.some((l) => typeof l !== 'string'))
    throw new Unreadable('meta.logMessages: expected strings');
  const inner = innerOf(meta, tx.instructions.length, accountKeys.length);
  return {
    signature: tx.signatures[0]!,
    slot,
    position,
    blockTime,
    tx,
    accountKeys,
    err: meta.err === null || meta.err === undefined ? null : txErrorFromJson(meta.err),
    logs: logs as string[],
    innerInstructions: () => inner,
    tokenBalances: tokenBalancesOf(meta, accountKeys.length),
  };
}

/** The signature of an entry that did not read, for the log: as much of it as can be found. */
function signatureOf(entry: unknown, position: number): string {
  const t = isObj(entry) ? entry.transaction : undefined;
  if (isObj(t) && Array.isArray(t.signatures) && typeof t.signatures[0] === 'string') return t.signatures[0];
  if (Array.isArray(t) && typeof t[0] === 'string') {
    const bytes = Buffer.from(t[0], 'base64');
    if (bytes.length >= 65 && bytes[0]! > 0) return encodeBase58(bytes.subarray(1, 65));
  }
  return `#${position}`;
}

const u64 = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** A `getBlock` answer for `slot`, read; `final` when it was asked for at finalized commitment. */
export function readBlock(slot: bigint, raw: unknown, final = true): SourceBlock {
  if (!isObj(raw))
    throw new MalformedBlockError(`block ${slot}: expected an object, got ${raw === null ? 'null' : typeof raw}`);
  const { parentSlot, blockhash, previousBlockhash, blockTime, transactions } = raw;
  if (
    !u64(parentSlot) ||
    typeof blockhash !== 'string' ||
    typeof previousBlockhash !== 'string' ||
    !Array.isArray(transactions)
  )
    throw new MalformedBlockError(`block ${slot}: expected parentSlot, blockhash, previousBlockhash and transactions`);
  if (blockTime !== null && blockTime !== undefined && !u64(blockTime))
    throw new MalformedBlockError(`block ${slot}: blockTime is not a timestamp`);
  const time = typeof blockTime === 'number' ? blockTime : null;
  const out: SourceTransaction[] = [];
  const unreadable: UnreadableTransaction[] = [];
  transactions.forEach((entry, position) => {
    try {
      out.push(readTransaction(entry, slot, position, time ?? 0));
    } catch (e) {
      const reason =
        e instanceof Unreadable || e instanceof AppError ? e.message : `unexpected: ${(e as Error).message}`;
      unreadable.push({ signature: signatureOf(entry, position), reason });
    }
  });
  return {
    slot,
    parentSlot: BigInt(parentSlot),
    blockhash,
    previousBlockhash,
    blockTime: time,
    transactions: out,
    unreadable,
    final,
  };
}
