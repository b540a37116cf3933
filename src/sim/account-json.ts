// Accounts in the RPC's JSON form (UiAccount, base64), u64 values as exact integers (bigint).
import type { StoredAccount } from '../ledger/index.js';
import { u64 } from '../wire/index.js';
import { encodeBase58 } from '../zk/base58.js';

export const EMPTY_ACCOUNT: StoredAccount = {
  lamports: 0n,
  data: new Uint8Array(0),
  owner: new Uint8Array(32),
  executable: false,
  rentEpoch: 0n,
};

export function accountJson(a: StoredAccount) {
  return {
    data: [Buffer.from(a.data).toString('base64'), 'base64'],
    executable: a.executable,
    lamports: u64(a.lamports),
    owner: encodeBase58(a.owner),
    rentEpoch: u64(a.rentEpoch),
    space: a.data.length,
  };
}
