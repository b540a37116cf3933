// Photon's compressed-token reads: token accounts by owner or delegate, one account's balance,
// balances by owner, holders of a mint. Cursors as Photon builds them (see json.ts and store.ts).
import type { AccountRecord } from '../../../compression/index.js';
import { u64 } from '../../../wire/index.js';
import type { Backends, CompressionIndex } from '../backends.js';
import type { MethodDef } from '../types.js';
import { requestedAccount } from './accounts.js';
import { photonMethod, withContext } from './define.js';
import { validation } from './errors.js';
import { accountV1, accountV2, b58, tokenDataJson } from './json.js';
import { base58String, field, hash, limit, pubkey, struct } from './params.js';

const cursorOf = (bytes: Uint8Array | undefined, expected: number): Uint8Array | undefined => {
  if (bytes && bytes.length !== expected)
    throw validation(`Invalid cursor length. Expected ${expected}. Received ${bytes.length}.`);
  return bytes;
};

const pageFields = {
  mint: field(pubkey, { default: true }),
  cursor: field(base58String, { default: true }),
  limit: field(limit, { default: true }),
};
const byOwner = struct(
  'GetCompressedTokenAccountsByOwner',
  { owner: field(pubkey, { required: true }), ...pageFields },
  true,
);
const byDelegate = struct(
  'GetCompressedTokenAccountsByDelegate',
  { delegate: field(pubkey, { required: true }), ...pageFields },
  true,
);

function tokenAccounts(
  index: CompressionIndex,
  by: 'owner' | 'delegate',
  who: Uint8Array,
  p: { mint?: Uint8Array | undefined; cursor?: Uint8Array | undefined; limit?: number | undefined },
  shape: (a: AccountRecord) => unknown,
) {
  const max = p.limit ?? 1000;
  const cursor = cursorOf(p.cursor, 64);
  const items = index.store.tokenAccounts(by, who, {
    limit: max,
    ...(p.mint ? { mint: p.mint } : {}),
    ...(cursor ? { cursor } : {}),
  });
  const last = items[items.length - 1];
  return withContext(index, {
    items: items.map((a) => ({ account: shape(a), tokenData: tokenDataJson(a.token!) })),
    cursor: last && items.length >= max ? b58(Buffer.concat([last.token!.mint, last.hash])) : null,
  });
}

const balancesRequest = struct(
  'GetCompressedTokenBalancesByOwnerRequest',
  {
    owner: field(pubkey, { required: true }),
    mint: field(pubkey),
    cursor: field(base58String),
    limit: field(limit),
  },
  true,
);

function balances(index: CompressionIndex, p: ReturnType<typeof balancesRequest>) {
  const max = p.limit ?? 1000;
  const cursor = cursorOf(p.cursor, 32);
  const items = index.store.tokenBalancesByOwner(p.owner, {
    limit: max,
    ...(p.mint ? { mint: p.mint } : {}),
    ...(cursor && !p.mint ? { cursor } : {}),
  });
  const last = items[items.length - 1];
  return {
    items: items.map((b) => ({ mint: b58(b.mint), balance: u64(b.balance) })),
    cursor: last && items.length >= max ? b58(last.mint) : null,
  };
}

export function tokenMethods(backends: Backends): MethodDef[] {
  const m = photonMethod;
  return [
    m(backends, 'getCompressedTokenAccountsByOwner', byOwner, (ix, p) =>
      tokenAccounts(ix, 'owner', p.owner, p, accountV1),
    ),
    m(backends, 'getCompressedTokenAccountsByOwnerV2', byOwner, (ix, p) =>
      tokenAccounts(ix, 'owner', p.owner, p, accountV2),
    ),
    m(backends, 'getCompressedTokenAccountsByDelegate', byDelegate, (ix, p) =>
      tokenAccounts(ix, 'delegate', p.delegate, p, accountV1),
    ),
    m(backends, 'getCompressedTokenAccountsByDelegateV2', byDelegate, (ix, p) =>
      tokenAccounts(ix, 'delegate', p.delegate, p, accountV2),
    ),
    m(
      backends,
      'getCompressedTokenAccountBalance',
      struct(
        'CompressedAccountRequest',
        { address: field(pubkey, { default: true }), hash: field(hash, { default: true }) },
        true,
      ),
      (ix, p) => {
        // Photon's quirk: an `address` is matched against the token accounts' owner.
        let amount = 0n;
        if (p.address) amount = ix.store.tokenAccounts('owner', p.address, { limit: 1 })[0]?.token?.amount ?? 0n;
        else amount = requestedAccount(ix, p)?.token?.amount ?? 0n;
        return withContext(ix, { amount: u64(amount) });
      },
    ),
    m(backends, 'getCompressedTokenBalancesByOwner', balancesRequest, (ix, p) => {
      const r = balances(ix, p);
      // Photon's struct has no camelCase rename here: the key is snake_case.
      return withContext(ix, { token_balances: r.items, cursor: r.cursor });
    }),
    m(backends, 'getCompressedTokenBalancesByOwnerV2', balancesRequest, (ix, p) => withContext(ix, balances(ix, p))),
    m(
      backends,
      'getCompressedMintTokenHolders',
      struct(
        'GetCompressedMintTokenHoldersRequest',
        { mint: field(pubkey, { required: true }), cursor: field(base58String), limit: field(limit) },
        true,
      ),
      (ix, p) => {
        const max = p.limit ?? 1000;
        const c = cursorOf(p.cursor, 40);
        const items = ix.store.mintHolders(p.mint, {
          limit: max,
          ...(c ? { cursor: { balance: Buffer.from(c).readBigUInt64LE(0), owner: c.subarray(8) } } : {}),
        });
        const last = items[items.length - 1];
        let cursor: string | null = null;
        if (last && items.length >= max) {
          const b = Buffer.alloc(40);
          b.writeBigUInt64LE(last.balance);
          b.set(last.owner, 8);
          cursor = b58(b);
        }
        return withContext(ix, {
          items: items.map((h) => ({ owner: b58(h.owner), balance: u64(h.balance) })),
          cursor,
        });
      },
    ),
  ];
}
