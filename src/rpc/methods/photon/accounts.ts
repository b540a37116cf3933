// Photon's compressed-account reads: one account (by address or hash), balances, an owner's
// accounts (filters, data slice, cursor), several accounts at once; V1 and V2 shapes.
import type { AccountRecord } from '../../../compression/index.js';
import { u64 } from '../../../wire/index.js';
import type { Backends, CompressionIndex } from '../backends.js';
import type { MethodDef } from '../types.js';
import { photonMethod, withContext } from './define.js';
import { validation } from './errors.js';
import { accountV1, accountV2, b58, sliced } from './json.js';
import { base58String, field, hash, limit, pubkey, seq, struct, unsigned } from './params.js';

const accountRequest = struct(
  'CompressedAccountRequest',
  { address: field(pubkey, { default: true }), hash: field(hash, { default: true }) },
  true,
);

/** The unspent account a request names: by address when given (even with a hash), else by hash. */
export function requestedAccount(
  index: CompressionIndex,
  p: { address?: Uint8Array | undefined; hash?: Uint8Array | undefined },
): AccountRecord | undefined {
  if (p.address) return index.store.accountByAddress(p.address);
  if (p.hash) {
    const a = index.store.account(p.hash);
    return a && !a.spent ? a : undefined;
  }
  throw validation('Either address or hash must be provided');
}

const memcmp = struct(
  'Memcmp',
  { offset: field(unsigned(64), { required: true }), bytes: field(base58String, { required: true }) },
  false,
);
const filterSelector = struct('FilterSelector', { memcmp: field(memcmp) }, false);
const dataSlice = struct(
  'DataSlice',
  { offset: field(unsigned(64), { required: true }), length: field(unsigned(64), { required: true }) },
  false,
);

const byOwnerRequest = struct(
  'GetCompressedAccountsByOwnerRequest',
  {
    owner: field(pubkey, { required: true }),
    filters: field(seq(filterSelector), { default: true, notNull: true }),
    dataSlice: field(dataSlice, { default: true }),
    cursor: field(hash, { default: true }),
    limit: field(limit, { default: true }),
  },
  true,
);

function accountsByOwner(index: CompressionIndex, p: ReturnType<typeof byOwnerRequest>) {
  const filters = p.filters ?? [];
  if (filters.length > 5) throw validation('Too many filters. The maximum number of filters allowed is 5');
  const tests = filters.map((f) => {
    if (!f.memcmp) throw validation('Filter instance cannot be null');
    const { offset, bytes } = f.memcmp;
    return (a: AccountRecord) =>
      a.data !== null &&
      a.data.data.length >= offset + bytes.length &&
      Buffer.from(a.data.data.subarray(offset, offset + bytes.length)).equals(Buffer.from(bytes));
  });
  const max = p.limit ?? 1000;
  const items = index.store
    .accountsByOwner(p.owner, {
      limit: max,
      ...(p.cursor ? { cursor: p.cursor } : {}),
      ...(tests.length > 0 ? { keep: (a) => tests.every((t) => t(a)) } : {}),
    })
    .map((a) => sliced(a, p.dataSlice));
  const last = items[items.length - 1];
  return { items, cursor: last && items.length >= max ? b58(last.hash) : null };
}

const multipleRequest = struct(
  'GetMultipleCompressedAccountsRequest',
  { hashes: field(seq(hash), { default: true }), addresses: field(seq(pubkey), { default: true }) },
  true,
);

function multipleAccounts(index: CompressionIndex, p: ReturnType<typeof multipleRequest>, v2: boolean) {
  if (p.hashes && p.addresses)
    throw validation(v2 ? 'Either hashes or addresses must be provided' : 'Cannot provide both hashes and addresses');
  if (p.hashes) {
    if (p.hashes.length > 1000) throw validation(`Too many hashes requested ${p.hashes.length}. Maximum allowed: 1000`);
    return p.hashes.map((h) => requestedAccount(index, { hash: h }));
  }
  if (p.addresses) {
    if (p.addresses.length > 1000)
      throw validation(`Too many addresses requested ${p.addresses.length}. Maximum allowed: 1000`);
    return p.addresses.map((a) => requestedAccount(index, { address: a }));
  }
  throw validation('Either hashes or addresses must be provided');
}

export function accountMethods(backends: Backends): MethodDef[] {
  const m = photonMethod;
  const nullable = <T>(a: AccountRecord | undefined, f: (a: AccountRecord) => T) => (a ? f(a) : null);
  return [
    m(backends, 'getCompressedAccount', accountRequest, (ix, p) =>
      withContext(ix, nullable(requestedAccount(ix, p), accountV1)),
    ),
    m(backends, 'getCompressedAccountV2', accountRequest, (ix, p) =>
      withContext(ix, nullable(requestedAccount(ix, p), accountV2)),
    ),
    ...['getCompressedAccountBalance', 'getCompressedBalance'].map((name) =>
      m(backends, name, accountRequest, (ix, p) => withContext(ix, u64(requestedAccount(ix, p)?.lamports ?? 0n))),
    ),
    m(
      backends,
      'getCompressedBalanceByOwner',
      struct('GetCompressedBalanceByOwnerRequest', { owner: field(pubkey, { required: true }) }, false),
      (ix, p) => withContext(ix, u64(ix.store.ownerBalance(p.owner))),
    ),
    m(backends, 'getCompressedAccountsByOwner', byOwnerRequest, (ix, p) => {
      const r = accountsByOwner(ix, p);
      return withContext(ix, { items: r.items.map(accountV1), cursor: r.cursor });
    }),
    m(backends, 'getCompressedAccountsByOwnerV2', byOwnerRequest, (ix, p) => {
      const r = accountsByOwner(ix, p);
      return withContext(ix, { items: r.items.map(accountV2), cursor: r.cursor });
    }),
    m(backends, 'getMultipleCompressedAccounts', multipleRequest, (ix, p) =>
      withContext(ix, { items: multipleAccounts(ix, p, false).map((a) => nullable(a, accountV1)) }),
    ),
    m(backends, 'getMultipleCompressedAccountsV2', multipleRequest, (ix, p) =>
      withContext(ix, { items: multipleAccounts(ix, p, true).map((a) => nullable(a, accountV2)) }),
    ),
  ];
}
