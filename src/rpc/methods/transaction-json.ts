// A processed transaction as the Solana RPC shows it (getTransaction, getBlock, blockSubscribe,
// Photon's getTransactionWithCompressionInfo): Agave's EncodedTransactionWithStatusMeta in the
// encodings it offers (json, jsonParsed, base58, base64, legacy binary) and the "accounts" detail
// level, with Agave's key order and its rule for v0 transactions and maxSupportedTransactionVersion.
import type { BlockRecord, Ledger, TxRecord } from '../../ledger/index.js';
import { parseTransaction, transactionVersion, type ParsedTransaction } from '../../ledger/index.js';
import type { TokenBalance } from '../../ledger/token-balances.js';
import { encodeBase58 } from '../../zk/base58.js';
import { UnsupportedTransactionVersionError } from '../errors.js';
import { u64 } from '../../wire/index.js';
import { parseInstruction } from '../parsed/instructions/index.js';
import { messageKeys, parsedMessageAccounts } from '../parsed/message-accounts.js';
import { invalid, uiTokenAmount, type CommonConfig } from './solana-params.js';
import { show } from '../validate.js';

export const TX_ENCODINGS = ['json', 'jsonParsed', 'base58', 'base64', 'binary'] as const;
export type TxEncoding = (typeof TX_ENCODINGS)[number];

export interface TxView {
  encoding: TxEncoding;
  /** undefined: the client did not say, so v0 transactions are refused and `version` is left out. */
  maxSupportedTransactionVersion: number | undefined;
  rewards: boolean;
}

export function parseTxEncoding(v: unknown, fallback: TxEncoding): TxEncoding {
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'string' && (TX_ENCODINGS as readonly string[]).includes(v)) return v as TxEncoding;
  throw invalid(`unknown variant ${show(v)}, expected one of ${TX_ENCODINGS.map((e) => `\`${e}\``).join(', ')}`);
}

export function parseTxView(c: CommonConfig, rewards = true): TxView {
  const m = c.maxSupportedTransactionVersion;
  if (m !== undefined && m !== null && (typeof m !== 'number' || !Number.isInteger(m) || m < 0 || m > 255))
    throw invalid(`maxSupportedTransactionVersion: expected a u8, got ${show(m)}`);
  return {
    encoding: parseTxEncoding(c.encoding, 'json'),
    maxSupportedTransactionVersion: m ?? undefined,
    rewards,
  };
}

const NO_LOADED = { writable: [] as string[], readonly: [] as string[] };

function tokenBalancesJson(list: TokenBalance[] | undefined) {
  return (list ?? []).map((b) => ({
    accountIndex: b.accountIndex,
    mint: b.mint,
    uiTokenAmount: uiTokenAmount(BigInt(b.amount), b.decimals),
    owner: b.owner,
    programId: b.programId,
  }));
}

/** An instruction in jsonParsed form, its indices resolved against the message's keys. */
const parsedInstruction = (
  keys: readonly string[],
  programIdIndex: number,
  accounts: readonly number[],
  data: Uint8Array,
  stackHeight: number | null,
) =>
  parseInstruction(
    keys[programIdIndex] ?? '',
    accounts.map((a) => keys[a] ?? ''),
    data,
    stackHeight,
  );

/** The part of UiTransactionStatusMeta every form shares, in its field order. */
function metaHead(rec: TxRecord) {
  return {
    err: rec.err,
    status: rec.err === null ? { Ok: null } : { Err: rec.err },
    fee: u64(BigInt(rec.fee)),
    preBalances: rec.preBalances.map((b) => u64(BigInt(b))),
    postBalances: rec.postBalances.map((b) => u64(BigInt(b))),
  };
}

/** `tx` is needed for jsonParsed only (its keys name the inner instructions' accounts). */
function meta(rec: TxRecord, tx: ParsedTransaction | undefined, view: TxView) {
  const loaded = rec.loaded ?? NO_LOADED;
  const parsed = view.encoding === 'jsonParsed';
  const keys = parsed && tx ? messageKeys(tx, loaded) : [];
  const innerInstructions = (rec.inner ?? []).map((group) => ({
    index: group.index,
    instructions: group.instructions.map((ix) => {
      const data = new Uint8Array(Buffer.from(ix.data, 'base64'));
      return parsed
        ? parsedInstruction(keys, ix.programIdIndex, ix.accounts, data, ix.stackHeight)
        : {
            programIdIndex: ix.programIdIndex,
            accounts: ix.accounts,
            data: encodeBase58(data),
            stackHeight: ix.stackHeight,
          };
    }),
  }));
  return {
    ...metaHead(rec),
    innerInstructions,
    logMessages: rec.logs,
    preTokenBalances: tokenBalancesJson(rec.preTokenBalances),
    postTokenBalances: tokenBalancesJson(rec.postTokenBalances),
    ...(view.rewards ? { rewards: [] } : {}),
    // jsonParsed shows loaded keys among the account keys instead.
    ...(parsed ? {} : { loadedAddresses: loaded }),
    ...(rec.returnData
      ? { returnData: { programId: rec.returnData.programId, data: [rec.returnData.data, 'base64'] } }
      : {}),
    computeUnitsConsumed: u64(BigInt(rec.computeUnits)),
  };
}

function message(rec: TxRecord, tx: ParsedTransaction, encoding: 'json' | 'jsonParsed') {
  const lookups =
    tx.version === 0
      ? {
          addressTableLookups: tx.lookups.map((l) => ({
            accountKey: encodeBase58(l.table),
            writableIndexes: l.writable,
            readonlyIndexes: l.readonly,
          })),
        }
      : {};
  const recentBlockhash = encodeBase58(tx.recentBlockhash);
  if (encoding === 'json')
    return {
      header: {
        numRequiredSignatures: tx.numRequiredSignatures,
        numReadonlySignedAccounts: tx.numReadonlySigned,
        numReadonlyUnsignedAccounts: tx.numReadonlyUnsigned,
      },
      accountKeys: tx.staticKeys.map(encodeBase58),
      recentBlockhash,
      instructions: tx.instructions.map((ix) => ({
        programIdIndex: ix.programIdIndex,
        accounts: ix.accounts,
        data: encodeBase58(ix.data),
        stackHeight: null,
      })),
      ...lookups,
    };
  const loaded = rec.loaded ?? NO_LOADED;
  const keys = messageKeys(tx, loaded);
  return {
    accountKeys: parsedMessageAccounts(tx, loaded),
    recentBlockhash,
    instructions: tx.instructions.map((ix) => parsedInstruction(keys, ix.programIdIndex, ix.accounts, ix.data, null)),
    ...lookups,
  };
}

function checkVersion(version: ParsedTransaction['version'], view: TxView): void {
  if (version === 'legacy') return;
  if (view.maxSupportedTransactionVersion === undefined || view.maxSupportedTransactionVersion < version)
    throw new UnsupportedTransactionVersionError(version);
}

const versionField = (version: ParsedTransaction['version'], view: TxView) =>
  view.maxSupportedTransactionVersion === undefined ? {} : { version };

/** `{transaction, meta, version?}` of one processed transaction (a block's entry). */
export function encodeTransactionWithMeta(rec: TxRecord, view: TxView) {
  const bytes = new Uint8Array(Buffer.from(rec.tx, 'base64'));
  const e = view.encoding;
  // The message is parsed for json and jsonParsed only; the wire forms need just its version
  // (a block of them is what a follower reads).
  const tx = e === 'json' || e === 'jsonParsed' ? parseTransaction(bytes) : undefined;
  const version = tx ? tx.version : transactionVersion(bytes);
  checkVersion(version, view);
  const transaction =
    e === 'binary'
      ? encodeBase58(bytes)
      : e === 'base58'
        ? [encodeBase58(bytes), 'base58']
        : e === 'base64'
          ? [rec.tx, 'base64']
          : { signatures: tx!.signatures.map(encodeBase58), message: message(rec, tx!, e) };
  return { transaction, meta: meta(rec, tx, view), ...versionField(version, view) };
}

/** transactionDetails "accounts": signatures and parsed account keys, a meta without instructions or logs. */
export function encodeTransactionAccounts(rec: TxRecord, view: TxView) {
  const tx = parseTransaction(new Uint8Array(Buffer.from(rec.tx, 'base64')));
  checkVersion(tx.version, view);
  return {
    transaction: {
      signatures: tx.signatures.map(encodeBase58),
      accountKeys: parsedMessageAccounts(tx, rec.loaded ?? NO_LOADED),
    },
    meta: {
      ...metaHead(rec),
      preTokenBalances: tokenBalancesJson(rec.preTokenBalances),
      postTokenBalances: tokenBalancesJson(rec.postTokenBalances),
      ...(view.rewards ? { rewards: [] } : {}),
    },
    ...versionField(tx.version, view),
  };
}

/** getTransaction's answer (EncodedConfirmedTransactionWithStatusMeta), null for an unknown signature. */
export function transactionJson(ledger: Ledger, signature: Uint8Array, view: TxView): unknown {
  const rec = ledger.transaction(signature);
  if (!rec || !rec.tx) return null;
  const { transaction, meta, ...version } = encodeTransactionWithMeta(rec, view);
  return { slot: u64(BigInt(rec.slot)), transaction, meta, ...version, blockTime: rec.blockTime };
}

export const BLOCK_DETAILS = ['full', 'accounts', 'signatures', 'none'] as const;
export type BlockDetails = (typeof BLOCK_DETAILS)[number];

export interface BlockEntry {
  signature: Uint8Array;
  rec: TxRecord;
}

/** A block's transactions with their records, in block order. */
export const blockEntries = (ledger: Ledger, signatures: readonly Uint8Array[]): BlockEntry[] =>
  signatures.flatMap((signature) => {
    const rec = ledger.transaction(signature);
    return rec && rec.tx ? [{ signature, rec }] : [];
  });

/** A block in Agave's UiConfirmedBlock form (getBlock, blockSubscribe). */
export function blockJson(
  slot: bigint,
  header: BlockRecord,
  entries: readonly BlockEntry[],
  details: BlockDetails,
  view: TxView,
) {
  const transactions =
    details === 'full'
      ? entries.map((e) => encodeTransactionWithMeta(e.rec, view))
      : details === 'accounts'
        ? entries.map((e) => encodeTransactionAccounts(e.rec, view))
        : undefined;
  return {
    previousBlockhash: header.previousBlockhash,
    blockhash: header.blockhash,
    parentSlot: u64(BigInt(header.parentSlot)),
    ...(transactions ? { transactions } : {}),
    ...(details === 'signatures' ? { signatures: entries.map((e) => encodeBase58(e.signature)) } : {}),
    ...(view.rewards ? { rewards: [] } : {}),
    blockTime: header.blockTime,
    blockHeight: u64(slot),
  };
}
