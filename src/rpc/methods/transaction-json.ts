// Solana's getTransaction answer for a transaction the ledger processed, keys in Agave's order
// (EncodedConfirmedTransactionWithStatusMeta: slot, transaction, meta, version, blockTime); shared
// by getTransaction and Photon's getTransactionWithCompressionInfo.
import type { Ledger } from '../../ledger/index.js';
import { parseTransaction } from '../../ledger/index.js';
import { encodeBase58 } from '../../zk/base58.js';
import { InvalidParamsError } from '../errors.js';

export function transactionJson(
  ledger: Ledger,
  signature: Uint8Array,
  opts: { encoding: 'json' | 'base64'; maxSupportedTransactionVersion?: unknown },
): unknown {
  const rec = ledger.transaction(signature);
  if (!rec || !rec.tx) return null;
  const bytes = new Uint8Array(Buffer.from(rec.tx, 'base64'));
  const tx = parseTransaction(bytes);
  if (tx.version === 0 && opts.maxSupportedTransactionVersion === undefined)
    throw new InvalidParamsError(
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  const transaction =
    opts.encoding === 'base64'
      ? [rec.tx, 'base64']
      : {
          signatures: tx.signatures.map(encodeBase58),
          message: {
            accountKeys: tx.staticKeys.map(encodeBase58),
            header: {
              numRequiredSignatures: tx.numRequiredSignatures,
              numReadonlySignedAccounts: tx.numReadonlySigned,
              numReadonlyUnsignedAccounts: tx.numReadonlyUnsigned,
            },
            instructions: tx.instructions.map((ix) => ({
              programIdIndex: ix.programIdIndex,
              accounts: ix.accounts,
              data: encodeBase58(ix.data),
              stackHeight: null,
            })),
            recentBlockhash: encodeBase58(tx.recentBlockhash),
            ...(tx.version === 0
              ? {
                  addressTableLookups: tx.lookups.map((l) => ({
                    accountKey: encodeBase58(l.table),
                    writableIndexes: l.writable,
                    readonlyIndexes: l.readonly,
                  })),
                }
              : {}),
          },
        };
  return {
    slot: BigInt(rec.slot),
    transaction,
    meta: {
      err: rec.err,
      status: rec.err === null ? { Ok: null } : { Err: rec.err },
      fee: BigInt(rec.fee),
      preBalances: rec.preBalances.map(BigInt),
      postBalances: rec.postBalances.map(BigInt),
      innerInstructions: [],
      logMessages: rec.logs,
      preTokenBalances: [],
      postTokenBalances: [],
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: BigInt(rec.computeUnits),
    },
    version: tx.version,
    blockTime: rec.blockTime,
  };
}
