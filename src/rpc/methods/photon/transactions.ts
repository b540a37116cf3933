// getTransactionWithCompressionInfo(V2): the ledger's transaction (Solana's getTransaction answer,
// base64) with the compressed accounts it spent (closed) and created (opened).
import type { AccountRecord } from '../../../compression/index.js';
import { v2Nullifier } from '../../../state/index.js';
import { bigIntToBytes32, bytesToBigInt } from '../../../zk/field.js';
import type { Backends, CompressionIndex } from '../backends.js';
import type { MethodDef } from '../types.js';
import { photonMethod } from './define.js';
import { notFound } from './errors.js';
import { accountV1, accountV2, b58, tokenDataJson, ZERO_KEY } from './json.js';
import { field, signature, struct } from './params.js';

const request = struct('GetTransactionRequest', { signature: field(signature, { required: true }) }, true);

async function lookup(index: CompressionIndex, sig: Uint8Array) {
  const transaction = await index.transaction(sig);
  if (transaction === undefined || transaction === null) throw notFound(`Transaction ${b58(sig)} is not in the ledger`);
  const info = index.store.transaction(sig);
  const records = (hashes: Uint8Array[] | undefined) =>
    (hashes ?? []).map((h) => index.store.account(h)).filter((a): a is AccountRecord => a !== undefined);
  return { transaction, closed: records(info?.closed), opened: records(info?.opened) };
}

const tokenOf = (a: AccountRecord) => (a.token ? tokenDataJson(a.token) : null);

export function transactionMethods(backends: Backends): MethodDef[] {
  return [
    photonMethod(backends, 'getTransactionWithCompressionInfo', request, async (ix, p) => {
      const r = await lookup(ix, p.signature);
      return {
        transaction: r.transaction,
        compressionInfo: {
          closedAccounts: r.closed.map((a) => ({ account: accountV1(a), optionalTokenData: tokenOf(a) })),
          openedAccounts: r.opened.map((a) => ({ account: accountV1(a), optionalTokenData: tokenOf(a) })),
        },
      };
    }),
    photonMethod(backends, 'getTransactionWithCompressionInfoV2', request, async (ix, p) => {
      const r = await lookup(ix, p.signature);
      return {
        transaction: r.transaction,
        compressionInfo: {
          closedAccounts: r.closed.map((a) => ({
            account: {
              account: accountV2(a),
              nullifier: a.txHash
                ? b58(bigIntToBytes32(v2Nullifier(bytesToBigInt(a.hash), a.leafIndex, bytesToBigInt(a.txHash))))
                : ZERO_KEY,
              txHash: a.txHash ? b58(a.txHash) : ZERO_KEY,
            },
            optionalTokenData: tokenOf(a),
          })),
          openedAccounts: r.opened.map((a) => ({ account: accountV2(a), optionalTokenData: tokenOf(a) })),
        },
      };
    }),
  ];
}
