// The addresses a processed transaction loads (static keys and those its lookup tables gave):
// blockSubscribe's mentionsAccountOrProgram filter tests them.
import { parseTransaction, type TxRecord } from '../ledger/index.js';
import { messageKeys } from '../rpc/parsed/message-accounts.js';

export const mentionedKeys = (rec: TxRecord): ReadonlySet<string> =>
  new Set(
    messageKeys(
      parseTransaction(new Uint8Array(Buffer.from(rec.tx, 'base64'))),
      rec.loaded ?? { writable: [], readonly: [] },
    ),
  );
