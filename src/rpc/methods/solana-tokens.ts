// SPL Token and Token-2022 balances and supplies (getTokenAccountBalance, getTokenSupply,
// getTokenLargestAccounts) read from the ledger's accounts, amounts as Agave's UiTokenAmount.
import type { Ledger, StoredAccount } from '../../ledger/index.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM, tokenAccountKeys } from '../../ledger/index.js';
import { encodeBase58 } from '../../zk/base58.js';
import { InvalidParamsError } from '../errors.js';
import { args, config, pubkey, raw, sameBytes, uiTokenAmount } from './solana-params.js';
import { defineMethod, type MethodDef } from './types.js';

const MINT_LEN = 82;
const ACCOUNT_TYPE_MINT = 1;
const LARGEST = 20;

const isTokenProgram = (owner: Uint8Array) => sameBytes(owner, TOKEN_PROGRAM) || sameBytes(owner, TOKEN_2022_PROGRAM);

/** An initialized mint's supply and decimals (Token-2022 mints with extensions carry their type at 165). */
function mintOf(a: StoredAccount | undefined): { supply: bigint; decimals: number } | undefined {
  if (!a || !isTokenProgram(a.owner)) return undefined;
  const d = a.data;
  if (d.length < MINT_LEN || d[45] !== 1) return undefined;
  if (d.length > MINT_LEN && (d.length <= 165 || d[165] !== ACCOUNT_TYPE_MINT)) return undefined;
  return { supply: Buffer.from(d).readBigUInt64LE(36), decimals: d[44]! };
}

const amountOf = (a: StoredAccount) => Buffer.from(a.data).readBigUInt64LE(64);

export function solanaTokenMethods(ledger: Ledger, version: string): MethodDef[] {
  const m = (name: string, call: (p: unknown[]) => unknown) => defineMethod({ name, params: raw, call });
  const context = (c?: string) => ({ slot: ledger.slotAt((c as 'finalized') ?? 'finalized'), apiVersion: version });
  const mintAt = (k: Uint8Array) => {
    const mint = mintOf(ledger.getAccount(k));
    if (!mint) throw new InvalidParamsError('Invalid param: not a Token mint');
    return mint;
  };
  return [
    m('getTokenAccountBalance', (p) => {
      const [key, cfg] = args(p, 'params', 1, 2);
      const c = config(cfg);
      const a = ledger.getAccount(pubkey(key, 'token account'));
      const t = a && tokenAccountKeys(a);
      if (!a || !t) throw new InvalidParamsError('Invalid param: not a Token account');
      const { decimals } = mintAt(t.mint);
      return { context: context(c.commitment), value: uiTokenAmount(amountOf(a), decimals) };
    }),
    m('getTokenSupply', (p) => {
      const [key, cfg] = args(p, 'params', 1, 2);
      const c = config(cfg);
      const { supply, decimals } = mintAt(pubkey(key, 'mint'));
      return { context: context(c.commitment), value: uiTokenAmount(supply, decimals) };
    }),
    m('getTokenLargestAccounts', (p) => {
      const [key, cfg] = args(p, 'params', 1, 2);
      const c = config(cfg);
      const mintKey = pubkey(key, 'mint');
      const { decimals } = mintAt(mintKey);
      const program = ledger.getAccount(mintKey)!.owner;
      const holders: { address: Uint8Array; amount: bigint }[] = [];
      for (const k of ledger.indexes.programAccounts(program)) {
        const a = ledger.getAccount(k);
        const t = a && tokenAccountKeys(a);
        if (a && t && sameBytes(t.mint, mintKey)) holders.push({ address: k, amount: amountOf(a) });
      }
      holders.sort((x, y) => (y.amount > x.amount ? 1 : y.amount < x.amount ? -1 : 0));
      return {
        context: context(c.commitment),
        value: holders
          .slice(0, LARGEST)
          .map((h) => ({ address: encodeBase58(h.address), ...uiTokenAmount(h.amount, decimals) })),
      };
    }),
  ];
}
