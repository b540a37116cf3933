// A transaction's token balances (its meta's pre/postTokenBalances): every SPL Token or Token-2022
// token account among its keys, read before and after execution, as Agave collects them. Kept in
// the transaction's record because the accounts change after it.
import { encodeBase58 } from '../zk/base58.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './account-indexes.js';
import type { StoredAccount } from './store.js';

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  /** u64, decimal digits. */
  amount: string;
  decimals: number;
}

const TOKEN_ACCOUNT_LEN = 165;
const MINT_LEN = 82;
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
const isTokenProgram = (k: Uint8Array) => same(k, TOKEN_PROGRAM) || same(k, TOKEN_2022_PROGRAM);

/** True when a transaction loads a token program: only then can it hold token accounts worth reading. */
export const loadsTokenProgram = (keys: readonly Uint8Array[]) => keys.some(isTokenProgram);

/**
 * The token accounts among `keys` (skipping the programs the transaction invokes and the token
 * programs themselves, as Agave does), with their mint's decimals; an account whose mint is
 * missing or uninitialized has no balance to show.
 */
export function tokenBalances(
  keys: readonly Uint8Array[],
  invoked: ReadonlySet<number>,
  account: (pubkey: Uint8Array) => StoredAccount | undefined,
): TokenBalance[] {
  const out: TokenBalance[] = [];
  const decimals = new Map<string, number | undefined>();
  keys.forEach((key, accountIndex) => {
    if (invoked.has(accountIndex) || isTokenProgram(key)) return;
    const a = account(key);
    if (!a || !isTokenProgram(a.owner) || a.data.length < TOKEN_ACCOUNT_LEN) return;
    const d = Buffer.from(a.data.buffer, a.data.byteOffset, a.data.length);
    // Token-2022 accounts with extensions say what they are after the base layout (2 = account).
    if (d.length > TOKEN_ACCOUNT_LEN && d[TOKEN_ACCOUNT_LEN] !== 2) return;
    if (d[108] === 0) return; // uninitialized
    const mint = d.subarray(0, 32);
    const mintKey = mint.toString('hex');
    if (!decimals.has(mintKey)) {
      const m = account(mint);
      const ok = m && same(m.owner, a.owner) && m.data.length >= MINT_LEN && m.data[45] === 1;
      decimals.set(mintKey, ok ? m.data[44] : undefined);
    }
    const dec = decimals.get(mintKey);
    if (dec === undefined) return;
    out.push({
      accountIndex,
      mint: encodeBase58(mint),
      owner: encodeBase58(d.subarray(32, 64)),
      programId: encodeBase58(a.owner),
      amount: d.readBigUInt64LE(64).toString(),
      decimals: dec,
    });
  });
  return out;
}
