// The DAS query methods beside getAsset: getAssets (alias getAssetBatch), getAssetsByOwner,
// …ByGroup, …ByCreator, …ByAuthority, searchAssets, getTokenAccounts, getNftEditions,
// getSignaturesForAsset (alias getAssetSignatures), getGrouping, getAssetProof and getAssetProofs
// (alias getAssetProofBatch). Params named (camelCase, `displayOptions` an alias of `options`) or
// positional in the reference's declaration order; unknown keys refused as the reference does.
// With a DAS upstream, every one is forwarded verbatim.
import { TOKEN_TYPES, type ListQuery, type SearchFilter, type SortKey } from '../../das/asset-queries.js';
import { BackendNotConfiguredError, InvalidParamsError } from '../errors.js';
import { array, boolean, fail, object, oneOf, optional, required, string, type Check } from '../validate.js';
import type { Backends } from './backends.js';
import { DISPLAY_OPTIONS } from './get-asset.js';
import { defineMethod, type MethodDef } from './types.js';

const displayOptions = object(
  {
    ...DISPLAY_OPTIONS,
    // Helius' own.
    showGrandTotal: optional(boolean),
    showNativeBalance: optional(boolean),
    showRawData: optional(boolean),
  },
  'ignore',
);

const count: Check<number> = (v, path) =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffff_ffff
    ? v
    : fail(path, 'an integer from 0 to 4294967295', v);

/** A u64: a JSON number within 2^53, or a decimal string for the rest (supplies reach 2^64 − 1). */
const u64Value: Check<string> = (v, path) =>
  (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) ||
  (typeof v === 'string' && /^\d{1,20}$/.test(v) && BigInt(v) < 2n ** 64n)
    ? String(v)
    : fail(path, 'an integer from 0 to 18446744073709551615 (a decimal string above 2^53)', v);

const sortBy = object(
  {
    sortBy: required(oneOf<SortKey>(['id', 'created', 'updated', 'recent_action', 'none'])),
    sortDirection: optional(oneOf(['asc', 'desc'] as const)),
  },
  'ignore',
);

/** The list fields every query method shares, after its own leading fields. */
const LIST_FIELDS = ['sortBy', 'limit', 'page', 'before', 'after', 'options', 'cursor'] as const;
const listShape = {
  sortBy: optional(sortBy),
  limit: optional(count),
  page: optional(count),
  before: optional(string),
  after: optional(string),
  options: optional(displayOptions),
  displayOptions: optional(displayOptions),
  cursor: optional(string),
};

/**
 * Named or positional params: `lead` are the method's own fields in the reference's order, then
 * the list fields. Empty before/after count as absent (as the reference's owner and group methods).
 */
function listParams<L extends Record<string, ReturnType<typeof required> | ReturnType<typeof optional>>>(
  lead: L,
): Check<{ own: Record<string, unknown>; query: ListQuery }> {
  const named = object({ ...lead, ...listShape }, 'deny');
  const order = [...Object.keys(lead), ...LIST_FIELDS];
  return (v, path) => {
    let src = v;
    if (Array.isArray(v)) {
      if (v.length > order.length)
        throw new InvalidParamsError(
          `Invalid params: \`${path}\`: expected at most ${order.length} elements (${order.join(', ')}), got ${v.length}`,
        );
      src = Object.fromEntries(order.flatMap((k, i) => (v[i] === undefined || v[i] === null ? [] : [[k, v[i]]])));
    }
    if (src === null || typeof src !== 'object') return fail(path, 'an object or an array', v);
    const p = named(src, path) as Record<string, unknown> & {
      options?: ListQuery['options'];
      displayOptions?: ListQuery['options'];
    };
    if (p.options && p.displayOptions)
      throw new InvalidParamsError(
        `Invalid params: duplicate field \`${path}.options\` (\`displayOptions\` is its alias)`,
      );
    const query: ListQuery = { options: p.options ?? p.displayOptions ?? {} };
    for (const k of ['sortBy', 'limit', 'page', 'cursor'] as const)
      if (p[k] !== undefined) (query as unknown as Record<string, unknown>)[k] = p[k];
    for (const k of ['before', 'after'] as const) if (p[k]) query[k] = p[k] as string;
    const own = Object.fromEntries(Object.keys(lead).map((k) => [k, p[k]]));
    return { own, query };
  };
}

const idsParams = (v: unknown, path: string): { ids: string[]; options: ListQuery['options'] } => {
  const src = Array.isArray(v) ? { ids: v[0], ...(v[1] ? { options: v[1] } : {}) } : v;
  const p = object(
    { ids: required(array(string)), options: optional(displayOptions), displayOptions: optional(displayOptions) },
    'deny',
  )(src, path);
  return { ids: p.ids, options: p.options ?? p.displayOptions ?? {} };
};

const idParams = (v: unknown, path: string): string =>
  object({ id: required(string) }, 'deny')(Array.isArray(v) ? { id: v[0] } : v, path).id;

/** Pagination alone (getTokenAccounts, getNftEditions: no sorting), checked as the lists' is. */
const pageShape = {
  limit: optional(count),
  page: optional(count),
  before: optional(string),
  after: optional(string),
  cursor: optional(string),
};
type Page = { limit?: number; page?: number; before?: string; after?: string; cursor?: string };
const pageOf = (p: Page): Page =>
  Object.fromEntries(Object.entries(p).filter(([k, v]) => k in pageShape && v !== undefined)) as Page;

/** Named or positional (in `order`) into one object. */
const namedOrPositional = (v: unknown, order: readonly string[]): unknown =>
  Array.isArray(v)
    ? Object.fromEntries(order.flatMap((k, i) => (v[i] === undefined || v[i] === null ? [] : [[k, v[i]]])))
    : v;

const tokenAccountsCheck = object(
  {
    ownerAddress: optional(string),
    mintAddress: optional(string),
    // Helius' names for the same.
    owner: optional(string),
    mint: optional(string),
    ...pageShape,
    options: optional(displayOptions),
    displayOptions: optional(displayOptions),
  },
  'deny',
);
const tokenAccountsParams = (v: unknown, path: string) => {
  const p = tokenAccountsCheck(
    namedOrPositional(v, ['ownerAddress', 'mintAddress', 'limit', 'page', 'before', 'after', 'options', 'cursor']),
    path,
  );
  const owner = p.ownerAddress ?? p.owner;
  const mint = p.mintAddress ?? p.mint;
  return {
    ...pageOf(p),
    ...(owner !== undefined ? { owner } : {}),
    ...(mint !== undefined ? { mint } : {}),
    showZeroBalance: (p.options ?? p.displayOptions)?.showZeroBalance === true,
  };
};

const editionsCheck = object({ mintAddress: optional(string), mint: optional(string), ...pageShape }, 'deny');
const editionsParams = (v: unknown, path: string) => {
  const p = editionsCheck(namedOrPositional(v, ['mintAddress', 'page', 'limit', 'before', 'after', 'cursor']), path);
  const mint = p.mintAddress ?? p.mint;
  if (mint === undefined) throw new InvalidParamsError(`Invalid params: missing field \`${path}.mintAddress\``);
  return { ...pageOf(p), mint };
};

const INTERFACES = [
  'V1_NFT',
  'V1_PRINT',
  'V2_NFT',
  'LEGACY_NFT',
  'FungibleAsset',
  'FungibleToken',
  'Identity',
  'Executable',
  'ProgrammableNFT',
  'MplCoreAsset',
  'MplCoreCollection',
  'Custom',
] as const;
const pair: Check<[string, string]> = (v, path) =>
  Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string'
    ? [v[0], v[1]]
    : fail(path, 'a [key, value] pair of strings', v);
const searchShape = {
  negate: optional(boolean),
  conditionType: optional(oneOf(['all', 'any'] as const)),
  interface: optional(oneOf(INTERFACES)),
  ownerAddress: optional(string),
  ownerType: optional(oneOf(['single', 'token'] as const)),
  creatorAddress: optional(string),
  creatorVerified: optional(boolean),
  authorityAddress: optional(string),
  grouping: optional(pair),
  delegate: optional(string),
  frozen: optional(boolean),
  supply: optional(u64Value),
  supplyMint: optional(string),
  compressed: optional(boolean),
  compressible: optional(boolean),
  royaltyTargetType: optional(oneOf(['creators', 'fanout', 'single'] as const)),
  royaltyTarget: optional(string),
  royaltyAmount: optional(count),
  burnt: optional(boolean),
  jsonUri: optional(string),
  name: optional(string),
  tokenType: optional(oneOf(Object.keys(TOKEN_TYPES) as (keyof typeof TOKEN_TYPES)[])),
};
/** The reference's declaration order, for positional params. */
const SEARCH_ORDER = [
  ...Object.keys(searchShape).slice(0, 19),
  'sortBy',
  'limit',
  'page',
  'before',
  'after',
  'jsonUri',
  'options',
  'cursor',
  'name',
  'tokenType',
];
const searchList = listParams(searchShape);
const searchParams = (v: unknown, path: string) => {
  const { own, query } = searchList(namedOrPositional(v, SEARCH_ORDER), path);
  const filter = Object.fromEntries(Object.entries(own).filter(([, x]) => x !== undefined)) as SearchFilter;
  return { filter, query };
};

const signaturesCheck = object(
  {
    id: optional(string),
    tree: optional(string),
    leafIndex: optional(count),
    ...pageShape,
    sortDirection: optional(oneOf(['asc', 'desc'] as const)),
  },
  'deny',
);
const signaturesParams = (v: unknown, path: string) =>
  signaturesCheck(
    namedOrPositional(v, ['id', 'limit', 'page', 'before', 'after', 'tree', 'leafIndex', 'cursor', 'sortDirection']),
    path,
  );

const groupingParams = (v: unknown, path: string) =>
  object({ groupKey: required(string), groupValue: required(string) }, 'deny')(
    namedOrPositional(v, ['groupKey', 'groupValue']),
    path,
  );

const proofIdsParams = (v: unknown, path: string): string[] =>
  object({ ids: required(array(string)) }, 'deny')(Array.isArray(v) ? { ids: v[0] } : v, path).ids;

export function dasQueryMethods(backends: Backends): MethodDef[] {
  const embedded = () => {
    const b = backends.assets;
    if (!b || b.forwardsRaw || !b.queries) throw new BackendNotConfiguredError('the DAS methods', 'asset index (DAS)');
    return b.queries;
  };
  const forwards = () => backends.assets?.forwardsRaw === true;
  /** One method: embedded with its parsed params, or the caller's params forwarded as sent. */
  const method = <P>(name: string, parse: Check<P>, run: (p: P) => unknown): MethodDef =>
    defineMethod({
      name,
      params: (v, path) => (forwards() ? v : parse(v, path)),
      call: async (p) => {
        const b = backends.assets;
        if (b?.forwardsRaw) return b.call(name, p);
        return run(p as P);
      },
    });
  /** SOL's price, looked up only when nativeBalance is asked for. */
  const withPrice = async (query: ListQuery): Promise<ListQuery> => {
    const b = backends.assets;
    if (!query.options.showNativeBalance || !b || b.forwardsRaw || !b.solPrice) return query;
    const price = await b.solPrice();
    return price === undefined ? query : { ...query, solPrice: price };
  };
  const byList = (
    name: string,
    kind: 'owner' | 'group' | 'creator' | 'authority',
    lead: Parameters<typeof listParams>[0],
  ) =>
    method(name, listParams(lead), async ({ own, query: asked }) => {
      const q = embedded();
      const query = await withPrice(asked);
      switch (kind) {
        case 'owner':
          return q.list('owner', own.ownerAddress as string, query);
        case 'authority':
          return q.list('authority', own.authorityAddress as string, query);
        case 'creator':
          return q.list('creator', own.creatorAddress as string, query, own.onlyVerified === true);
        case 'group': {
          // Collections are the only grouping the index keeps (as the reference's ingester).
          const verified = !query.options.showUnverifiedCollections;
          return q.list('group', own.groupValue as string, query, verified, own.groupKey !== 'collection');
        }
      }
    });
  const assets = (p: { ids: string[]; options: ListQuery['options'] }) => embedded().getAssets(p.ids, p.options);
  const proofs = (ids: string[]) => embedded().assetProofs(ids);
  return [
    method('getAssets', idsParams, assets),
    method('getAssetBatch', idsParams, assets),
    byList('getAssetsByOwner', 'owner', { ownerAddress: required(string) }),
    byList('getAssetsByGroup', 'group', { groupKey: required(string), groupValue: required(string) }),
    byList('getAssetsByCreator', 'creator', {
      creatorAddress: required(string),
      onlyVerified: optional(boolean),
    }),
    byList('getAssetsByAuthority', 'authority', { authorityAddress: required(string) }),
    method('searchAssets', searchParams, async ({ filter, query }) =>
      embedded().search(filter, await withPrice(query)),
    ),
    method('getAssetSignatures', signaturesParams, (q) => embedded().assetSignatures(q)),
    method('getSignaturesForAsset', signaturesParams, (q) => embedded().assetSignatures(q)),
    method('getTokenAccounts', tokenAccountsParams, ({ showZeroBalance, ...q }) =>
      embedded().tokenAccounts(q, showZeroBalance),
    ),
    method('getNftEditions', editionsParams, (q) => embedded().nftEditions(q)),
    method('getGrouping', groupingParams, (g) => embedded().grouping(g.groupKey, g.groupValue)),
    method('getAssetProof', idParams, (id) => embedded().assetProof(id)),
    method('getAssetProofs', proofIdsParams, proofs),
    method('getAssetProofBatch', proofIdsParams, proofs),
  ];
}
