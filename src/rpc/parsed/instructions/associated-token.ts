// The associated token account program (Agave's parse_associated_token): empty data is the
// original Create, otherwise a one-byte borsh enum that must be the whole data.
import { type Parsed, checkAccounts, fail, key as k, requireAnyAccount } from './common.js';

const KINDS = ['create', 'createIdempotent', 'recoverNested'];

export function parseAssociatedToken(a: readonly string[], data: Uint8Array): Parsed {
  requireAnyAccount(a);
  const type = data.length === 0 ? 'create' : data.length === 1 ? (KINDS[data[0]!] ?? fail()) : fail();
  if (type === 'recoverNested') {
    checkAccounts(a, 7);
    const info = {
      nestedSource: k(a, 0),
      nestedMint: k(a, 1),
      destination: k(a, 2),
      nestedOwner: k(a, 3),
      ownerMint: k(a, 4),
      wallet: k(a, 5),
      tokenProgram: k(a, 6),
    };
    return { type, info };
  }
  // A trailing rent sysvar (the original Create's seventh account) is not shown.
  checkAccounts(a, 6);
  const info = {
    source: k(a, 0),
    account: k(a, 1),
    wallet: k(a, 2),
    mint: k(a, 3),
    systemProgram: k(a, 4),
    tokenProgram: k(a, 5),
  };
  return { type, info };
}
