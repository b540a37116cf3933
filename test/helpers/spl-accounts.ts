// SPL Token account bytes for fixtures (--account-dir files, ledger genesis accounts), through
// spl-token's own layouts.
import { AccountLayout, ACCOUNT_SIZE, MintLayout, MINT_SIZE } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';

/** An initialized mint; no freeze authority, and no mint authority unless given. */
export function mintBytes(supply: bigint, decimals: number, authority?: PublicKey): Buffer {
  const b = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: authority ? 1 : 0,
      mintAuthority: authority ?? PublicKey.default,
      supply,
      decimals,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    b,
  );
  return b;
}

/** A token account of `mint` held by `owner`; state 1 initialized, 2 frozen. */
export function tokenAccountBytes(mint: PublicKey, owner: PublicKey, amount: bigint, state = 1): Buffer {
  const b = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint,
      owner,
      amount,
      delegateOption: 0,
      delegate: PublicKey.default,
      state,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    b,
  );
  return b;
}
