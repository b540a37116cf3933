// Whether a processed transaction names an address among its account keys (static or loaded from
// a lookup table): blockSubscribe's mentionsAccountOrProgram filter.
import { parseTransaction, type TxRecord } from '../ledger/index.js';
import { encodeBase58 } from '../zk/base58.js';

export function mentions(rec: TxRecord, address: string): boolean {
  if (rec.loaded && (rec.loaded.writable.includes(address) || rec.loaded.readonly.includes(address))) return true;
  const tx = parseTransaction(new Uint8Array(Buffer.from(rec.tx, 'base64')));
  return tx.staticKeys.some((k) => encodeBase58(k) === address);
}
