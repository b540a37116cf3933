// The DAS query methods over the asset index: batches of ids and the lists by owner, collection,
// creator and authority, with the reference's pagination (page, before/after keysets, cursor),
// sorting and errors (digital-asset-rpc-infrastructure: api_impl.rs validate_pagination, dao
// scopes). Items are getAsset's records, so a list and getAsset never disagree.
import { u64 } from '../wire/index.js';
import { decodeBase58 } from '../zk/base58.js';
import type { AssetIndex } from './asset-index.js';
import type { AssetSignatures } from './asset-signatures.js';
import { ALL, ScanBudgetExceeded, type ListKind } from './asset-lists.js';
import { AssetError, getAsset, ownershipModel, type AssetContext, type AssetOptions } from './asset.js';

export type SortKey = 'id' | 'created' | 'updated' | 'recent_action' | 'none';

export interface ListQuery {
  sortBy?: { sortBy: SortKey; sortDirection?: 'asc' | 'desc' };
  limit?: number;
  page?: number;
  before?: string;
  after?: string;
  cursor?: string;
  options: AssetOptions & { showGrandTotal?: boolean; showNativeBalance?: boolean };
  /** SOL's price in USDC, when the price source has one (Helius' nativeBalance). */
  solPrice?: number;
}

/** searchAssets' filters (the reference's names). */
export interface SearchFilter {
  negate?: boolean;
  conditionType?: 'all' | 'any';
  interface?: string;
  ownerAddress?: string;
  ownerType?: 'single' | 'token';
  creatorAddress?: string;
  creatorVerified?: boolean;
  authorityAddress?: string;
  grouping?: [string, string];
  delegate?: string;
  frozen?: boolean;
  /** Decimal (u64). */
  supply?: string;
  supplyMint?: string;
  compressed?: boolean;
  compressible?: boolean;
  royaltyTargetType?: 'creators' | 'fanout' | 'single';
  royaltyTarget?: string;
  royaltyAmount?: number;
  burnt?: boolean;
  jsonUri?: string;
  name?: string;
  tokenType?: keyof typeof TOKEN_TYPES;
}

/** tokenType: the reference's names and Helius' for the same kinds. */
export const TOKEN_TYPES = {
  Fungible: 'fungible',
  fungible: 'fungible',
  NonFungible: 'nft',
  Nft: 'nft',
  regularNft: 'nft',
  nonFungible: 'nonFungible',
  Compressed: 'compressed',
  compressedNft: 'compressed',
  All: 'all',
  all: 'all',
} as const;

/** The fields of getAsset's record that searchAssets reads. */
interface AssetJson {
  interface: string;
  ownership: { owner: string; ownership_model: string; delegate: string | null; frozen: boolean };
  creators: { address: string; verified: boolean }[];
  authorities: { address: string }[];
  grouping: { group_key: string; group_value: string }[];
  compression: { compressed: boolean; eligible: boolean };
  royalty: { royalty_model: string; target: string | null; basis_points: number };
  burnt: boolean;
  content: { json_uri: string; metadata?: { name?: unknown } };
}

const NFT_INTERFACES = new Set([
  'V1_NFT',
  'V1_PRINT',
  'LEGACY_NFT',
  'V2_NFT',
  'ProgrammableNFT',
  'MplCoreAsset',
  'Custom',
]);
const TOKEN_TYPE_TEST: Record<(typeof TOKEN_TYPES)[keyof typeof TOKEN_TYPES], (a: AssetJson) => boolean> = {
  fungible: (a) => a.ownership.ownership_model === 'token',
  nft: (a) => !a.compression.compressed && NFT_INTERFACES.has(a.interface),
  nonFungible: (a) => NFT_INTERFACES.has(a.interface),
  compressed: (a) => a.compression.compressed,
  all: () => true,
};

/** The most items one call returns (the reference's and Helius' limit). */
export const MAX_LIMIT = 1000;
/**
 * The most index entries one call examines: list entries cost a lookup each; searchAssets'
 * candidates a whole asset record each (about 0.1 ms), so its budget is smaller. A call that would
 * need more is refused, naming what narrows it, rather than holding the event loop for seconds.
 */
export const LIST_BUDGET = 200_000;
export const SEARCH_BUDGET = 10_000;

const pagination = (msg: string) => new AssetError('asset_query', msg);
const ONE_METHOD = 'Pagination Error. Only one pagination parameter supported per query.';
const SORT_BY_ID = 'Pagination Sorting Error. Only sorting based on id is supported for this pagination option.';

/** A base58 value of `length` bytes, or undefined for anything else. */
function bytesOf(v: string, length: number): Uint8Array | undefined {
  try {
    const b = decodeBase58(v);
    return b.length === length ? b : undefined;
  } catch {
    return undefined;
  }
}

function pubkey(v: string, what: (v: string) => string): Uint8Array {
  const b = bytesOf(v, 32);
  if (!b) throw new AssetError('asset_invalid_id', what(v));
  return b;
}

const isPubkey = (v: string): boolean => bytesOf(v, 32) !== undefined;

function signature(v: string, what: (v: string) => string): Uint8Array {
  const b = bytesOf(v, 64);
  if (!b) throw new AssetError('asset_query', what(v));
  return b;
}

/** A caller's value as an error message quotes it: at most 64 characters. */
const clip = (v: string) => (v.length > 64 ? v.slice(0, 61) + '...' : v);
export const pubkeyError = (v: string) => `Pubkey Validation Err: ${clip(v)} is invalid`;
/** The reference's text for an optional address that is not one. */
const optionalPubkeyError = (v: string) => `Validation Error: Invalid pubkey ${clip(v)}`;
const signatureError = (v: string) => `Validation Error: Invalid signature ${clip(v)}`;

/** A list query's plan once its pagination is checked, in the reference's order of checks. */
interface Plan {
  limit: number;
  page?: number;
  /** Items before this page (page mode; 0 otherwise). */
  offset: number;
  after?: Uint8Array;
  before?: Uint8Array;
  sort: SortKey;
  descending: boolean;
  cursorMode: boolean;
}

function plan(q: ListQuery): Plan {
  const limit = q.limit ?? MAX_LIMIT;
  if (limit > MAX_LIMIT) throw pagination('Pagination Error. Limit should not be greater than 1000.');
  if (q.page === 0) throw pagination('Pagination Error. No Pagination Method Selected');
  const keyset = q.before !== undefined || q.after !== undefined;
  if (q.page !== undefined && (keyset || q.cursor !== undefined)) throw pagination(ONE_METHOD);
  if (keyset && q.cursor !== undefined) throw pagination(ONE_METHOD);
  const sort = q.sortBy?.sortBy ?? 'id';
  const descending = (q.sortBy?.sortDirection ?? 'desc') === 'desc';
  if (keyset && sort !== 'id') throw pagination(SORT_BY_ID);
  const offset = q.page !== undefined ? (q.page - 1) * limit : 0;
  const p: Plan = { limit, offset, sort, descending, cursorMode: q.page === undefined && !keyset };
  if (q.page !== undefined) p.page = q.page;
  if (q.before) p.before = pubkey(q.before, pubkeyError);
  if (q.after) p.after = pubkey(q.after, pubkeyError);
  if (p.cursorMode && sort !== 'id') throw pagination(SORT_BY_ID);
  if (q.cursor !== undefined) {
    const c = pubkey(q.cursor, (v) => `Cursor Validation Err: ${clip(v)} is invalid`);
    if (descending) p.before = c;
    else p.after = c;
  }
  return p;
}

/** What a page is read from: a list (or every asset), which entries count, and the scan's bound. */
interface PageSource {
  kind: ListKind | typeof ALL;
  of: string;
  /** Nothing matches: an empty page without a scan. */
  none: boolean;
  budget: number;
  accept: (id: string, verified: boolean) => boolean;
  /** The grand total without a scan, where the list can count it. */
  total?: () => number;
}

export class AssetQueries {
  constructor(
    private readonly index: AssetIndex,
    /** The off-chain fetcher, CDN prefix and price of an asset (as getAsset takes them). */
    private readonly context: (id: string) => AssetContext,
    private readonly signatures?: AssetSignatures,
    private readonly budgets: { list: number; search: number } = { list: LIST_BUDGET, search: SEARCH_BUDGET },
    /** An address's lamports on the ledger (Helius' nativeBalance). */
    private readonly lamportsOf?: (address: string) => bigint,
  ) {}

  /** Helius' `nativeBalance` of an owner: its lamports, and their worth where SOL's price is known. */
  private nativeBalance(owner: string, solPrice: number | undefined): Record<string, unknown> {
    const lamports = this.lamportsOf?.(owner) ?? 0n;
    return {
      lamports: u64(lamports),
      price_per_sol: solPrice ?? 0,
      total_price: solPrice === undefined ? 0 : (Number(lamports) / 1e9) * solPrice,
    };
  }

  /**
   * getSignaturesForAsset (getAssetSignatures): the transactions that touched an asset, newest
   * first unless `sortDirection: asc`, as [signature, what it did]. By tree and leaf index (a
   * compressed asset's): none, as the index holds no compressed assets.
   */
  assetSignatures(q: {
    id?: string;
    tree?: string;
    leafIndex?: number;
    page?: number;
    limit?: number;
    before?: string;
    after?: string;
    cursor?: string;
    sortDirection?: 'asc' | 'desc';
  }): Record<string, unknown> {
    if ((q.id === undefined) === (q.tree === undefined || q.leafIndex === undefined))
      throw new AssetError('asset_query', "Validation Error: Must provide either 'id' or both 'tree' and 'leafIndex'");
    // The keysets here are signatures of the list, not asset ids: checked as the lists' are, then
    // read as signatures (the cursor continues after one in the listing's direction).
    const keyset = q.before !== undefined || q.after !== undefined;
    if (q.page !== undefined && (keyset || q.cursor !== undefined)) throw pagination(ONE_METHOD);
    if (keyset && q.cursor !== undefined) throw pagination(ONE_METHOD);
    const p = plan({
      options: {},
      ...(q.limit !== undefined ? { limit: q.limit } : {}),
      ...(q.page !== undefined ? { page: q.page } : {}),
    });
    const ascending = q.sortDirection === 'asc';
    const bounds: { before?: Uint8Array; after?: Uint8Array } = {};
    if (q.before) bounds.before = signature(q.before, signatureError);
    if (q.after) bounds.after = signature(q.after, signatureError);
    if (q.cursor !== undefined)
      bounds[ascending ? 'after' : 'before'] = signature(
        q.cursor,
        (v) => `Cursor Validation Err: ${clip(v)} is invalid`,
      );
    let items: [string, string][] = [];
    if (q.id !== undefined) {
      pubkey(q.id, optionalPubkeyError);
      items = this.signatures?.list(q.id, { offset: p.offset, limit: p.limit, ascending, ...bounds }) ?? [];
    } else pubkey(q.tree!, optionalPubkeyError);
    const out = this.head(p, items.length);
    if (q.before) out.before = q.before;
    if (q.after) out.after = q.after;
    out.items = items;
    return out;
  }

  private asset(id: string, options: AssetOptions): Record<string, unknown> {
    const a = getAsset(this.index, id, options, this.context(id));
    delete a.last_indexed_slot;
    return a;
  }

  /** getAssets / getAssetBatch: one entry per id (consecutive repeats once), null where there is none. */
  getAssets(ids: readonly string[], options: AssetOptions): (Record<string, unknown> | null)[] {
    if (ids.length > MAX_LIMIT)
      throw new AssetError('asset_query', 'Batch Size Error. Batch size should not be greater than 1000.');
    const unique = ids.filter((id, i) => i === 0 || id !== ids[i - 1]);
    for (const id of unique) pubkey(id, pubkeyError);
    return unique.map((id) => {
      try {
        return this.asset(id, options);
      } catch (e) {
        if (e instanceof AssetError && (e.kind === 'asset_not_found' || e.kind === 'asset_no_supply')) return null;
        throw e;
      }
    });
  }

  /**
   * getAssetsByOwner / …ByGroup / …ByCreator / …ByAuthority. `onlyVerified`: creators and
   * collections whose verification is set (collections: unless showUnverifiedCollections).
   */
  list(kind: ListKind, of: string, q: ListQuery, onlyVerified = false, none = false): Record<string, unknown> {
    pubkey(of, pubkeyError);
    const { options } = q;
    const accept = (id: string, verified: boolean) => {
      if (onlyVerified && !verified) return false;
      // An owner's list holds every mint it has a balance of; fungibles only with showFungible.
      if (kind === 'owner' && !options.showFungible && ownershipModel(this.index, id) !== 'single') return false;
      return true;
    };
    // Other lists' entries are accepted on their verification alone: counted without naming them.
    const total = kind === 'owner' ? undefined : () => this.index.lists.size(kind, of, onlyVerified, this.budgets.list);
    const out = this.paged({ kind, of, none, budget: this.budgets.list, accept, ...(total ? { total } : {}) }, q);
    if (kind === 'owner' && options.showNativeBalance) out.nativeBalance = this.nativeBalance(of, q.solPrice);
    return out;
  }

  /**
   * One page of a list (or of every asset), in the query's order, of the ids `accept` takes;
   * `none`: nothing matches (an empty list without a scan).
   */
  private paged(src: PageSource, q: ListQuery): Record<string, unknown> {
    try {
      return this.page(src, q);
    } catch (e) {
      if (!(e instanceof ScanBudgetExceeded)) throw e;
      throw new AssetError(
        'asset_query',
        src.kind === ALL || src.budget === this.budgets.search
          ? `Search Error: this query would examine more than ${e.budget} assets; narrow it (ownerAddress, creatorAddress, authorityAddress or grouping, with conditionType all), or sort by id`
          : `Pagination Error: this page would examine more than ${e.budget} entries; page by cursor (sortBy id) instead`,
      );
    }
  }

  private page({ kind, of, none, budget, accept, total }: PageSource, q: ListQuery): Record<string, unknown> {
    const p = plan(q);
    const { options } = q;
    const scan = (offset: number, limit: number, descending: boolean, bounded = true) =>
      this.index.lists.scan(kind, of, {
        ...(bounded && p.after ? { after: p.after } : {}),
        ...(bounded && p.before ? { before: p.before } : {}),
        descending,
        offset,
        limit,
        accept,
        budget,
      });
    const { offset } = p;
    let ids: string[];
    if (none) ids = [];
    else if (p.sort === 'id' || p.sort === 'none') {
      ids = p.limit === 0 ? [] : scan(offset, p.limit, p.sort === 'id' && p.descending);
    } else if (p.sort === 'created') {
      // The list's twin in creation order: a range scan like id order.
      ids =
        p.limit === 0
          ? []
          : this.index.lists.scanCreated(kind, of, {
              descending: p.descending,
              offset,
              limit: p.limit,
              accept,
              budget,
            });
    } else {
      // Update orders: every entry of the list, ordered by the slot it last changed in, then id.
      const all = scan(0, Number.MAX_SAFE_INTEGER, false).map((id) => ({ id, slot: this.updatedSlot(id) }));
      all.sort((a, b) => (a.slot === b.slot ? 0 : a.slot < b.slot ? -1 : 1));
      if (p.descending) all.reverse();
      ids = all.slice(offset, offset + p.limit).map((x) => x.id);
    }
    const items = ids.map((id) => this.asset(id, options));
    const out: Record<string, unknown> = {
      last_indexed_slot: u64(this.index.lastIndexedSlot()),
      total: items.length,
    };
    if (options.showGrandTotal)
      out.grand_total = none ? 0 : (total?.() ?? scan(0, Number.MAX_SAFE_INTEGER, false, false).length);
    out.limit = p.limit;
    if (p.page !== undefined) out.page = p.page;
    if (p.cursorMode && ids.length > 0) out.cursor = ids[ids.length - 1];
    out.items = items;
    return out;
  }

  /**
   * searchAssets: the reference's filters over getAsset's records, combined with `conditionType`
   * (all / any) and `negate`. With `all` and an owner, creator, authority or collection filter,
   * that list is scanned; otherwise every asset is.
   */
  search(f: SearchFilter, q: ListQuery): Record<string, unknown> {
    const custom = (msg: string) => new AssetError('asset_query', `Database Error: Custom Error: ${msg}`);
    const tokenType = f.tokenType === undefined ? undefined : TOKEN_TYPES[f.tokenType];
    if (f.tokenType !== undefined) {
      if (f.ownerAddress === undefined) throw custom('Must provide `ownerAddress` when using `tokenType` field');
      if (f.ownerType !== undefined) throw custom('`ownerType` is not supported when using `tokenType` field');
      if (f.interface !== undefined) throw custom('`interface` is not supported when using `tokenType` field');
    }
    if (f.name !== undefined && f.ownerAddress === undefined)
      throw new AssetError(
        'asset_query',
        'Validation Error: Owner address must be provided in order to search assets by name',
      );
    for (const k of [
      'ownerAddress',
      'creatorAddress',
      'authorityAddress',
      'delegate',
      'supplyMint',
      'royaltyTarget',
    ] as const) {
      const v = f[k];
      if (v !== undefined) pubkey(v, optionalPubkeyError);
    }
    const options = q.options;
    const conditions: ((a: AssetJson, id: string) => boolean)[] = [];
    const add = <T>(v: T | undefined, test: (v: T, a: AssetJson, id: string) => boolean) => {
      if (v !== undefined) conditions.push((a, id) => test(v, a, id));
    };
    add(f.interface, (v, a) => a.interface === v);
    add(f.ownerAddress, (v, a, id) =>
      tokenType === 'fungible' || tokenType === 'all'
        ? a.ownership.owner === v || this.index.lists.holds(v, id)
        : a.ownership.owner === v,
    );
    add(f.ownerType, (v, a) => a.ownership.ownership_model === v);
    add(f.creatorAddress, (v, a) =>
      a.creators.some((c) => c.address === v && (f.creatorVerified === undefined || c.verified === f.creatorVerified)),
    );
    if (f.creatorAddress === undefined) add(f.creatorVerified, (v, a) => a.creators.some((c) => c.verified === v));
    add(f.authorityAddress, (v, a) => a.authorities.some((x) => x.address === v));
    add(f.grouping, ([k, v], a) => a.grouping.some((g) => g.group_key === k && g.group_value === v));
    add(f.delegate, (v, a) => a.ownership.delegate === v);
    add(f.frozen, (v, a) => a.ownership.frozen === v);
    add(f.supply, (v, _a, id) => BigInt(this.index.mint(id)?.supply ?? '-1') === BigInt(v));
    add(f.supplyMint, (v, _a, id) => this.index.mint(id) !== undefined && id === v);
    add(f.compressed, (v, a) => a.compression.compressed === v);
    add(f.compressible, (v, a) => a.compression.eligible === v);
    add(f.royaltyTargetType, (v, a) => a.royalty.royalty_model === v);
    add(f.royaltyTarget, (v, a) => a.royalty.target === v);
    add(f.royaltyAmount, (v, a) => a.royalty.basis_points === v);
    add(f.burnt, (v, a) => a.burnt === v);
    add(f.jsonUri, (v, a) => a.content.json_uri === v);
    add(f.name, (v, a) => String(a.content.metadata?.name ?? '').includes(v));
    add(tokenType, (v, a) => TOKEN_TYPE_TEST[v](a));
    const any = f.conditionType === 'any';
    // The reference's default: NFT-like assets only, unless an owner or token type says otherwise.
    const nftDefault =
      f.ownerType === undefined && (tokenType === undefined || tokenType === 'nft' || tokenType === 'compressed');
    const matches = (a: AssetJson, id: string) => {
      const user =
        conditions.length === 0 ? true : any ? conditions.some((c) => c(a, id)) : conditions.every((c) => c(a, id));
      const base = nftDefault
        ? a.ownership.ownership_model === 'single' && BigInt(this.index.mint(id)?.supply ?? '1') <= 1n
        : true;
      const hit = user && base;
      return f.negate ? !hit : hit;
    };
    const accept = (id: string) => {
      let a: AssetJson;
      try {
        a = this.asset(id, {
          ...options,
          showUnverifiedCollections: options.showUnverifiedCollections ?? false,
        }) as unknown as AssetJson;
      } catch {
        return false;
      }
      return matches(a, id);
    };
    // A narrower list where every condition must hold and the filter names one.
    const narrow: [ListKind, string | undefined][] = [
      ['owner', f.ownerAddress],
      ['creator', f.creatorAddress],
      ['authority', f.authorityAddress],
      ['group', f.grouping?.[0] === 'collection' ? f.grouping[1] : undefined],
    ];
    const by = !any && !f.negate ? narrow.find(([, v]) => v !== undefined) : undefined;
    if (by?.[0] === 'group') pubkey(by[1]!, pubkeyError);
    const out = by
      ? this.paged({ kind: by[0], of: by[1]!, none: false, budget: this.budgets.search, accept }, q)
      : this.paged({ kind: ALL, of: '', none: false, budget: this.budgets.search, accept }, q);
    if (options.showNativeBalance && f.ownerAddress !== undefined)
      out.nativeBalance = this.nativeBalance(f.ownerAddress, q.solPrice);
    return out;
  }

  /** What every paged answer starts with: the slot, this page's count, its limit and page. */
  private head(p: Plan, total: number): Record<string, unknown> {
    const out: Record<string, unknown> = {
      last_indexed_slot: u64(this.index.lastIndexedSlot()),
      total,
      limit: p.limit,
    };
    if (p.page !== undefined) out.page = p.page;
    return out;
  }

  /** The slot an asset last changed in (updated, recent_action). */
  private updatedSlot(id: string): bigint {
    const r = this.index.metadataOf(id) ?? this.index.coreOf(id);
    return BigInt(r?.slot ?? this.index.mint(id)?.slot ?? '0');
  }

  /**
   * getTokenAccounts: by owner, by mint, or both; accounts with a balance unless showZeroBalance.
   * In address order (the reference has no order; its keyset is the address); the cursor is the
   * last address (the reference always answers `cursor: null`, Helius gives one).
   */
  tokenAccounts(
    q: {
      owner?: string;
      mint?: string;
      page?: number;
      limit?: number;
      before?: string;
      after?: string;
      cursor?: string;
    },
    showZeroBalance: boolean,
  ): Record<string, unknown> {
    if (q.owner === undefined && q.mint === undefined)
      throw new AssetError(
        'asset_query',
        "Database Error: Custom Error: Either 'ownerAddress' or 'mintAddress' must be provided",
      );
    const owner = q.owner;
    const mint = q.mint;
    if (owner !== undefined) pubkey(owner, optionalPubkeyError);
    if (mint !== undefined) pubkey(mint, optionalPubkeyError);
    // Address order, ascending: a cursor (or `after`) continues past the last address.
    const p = plan({ ...q, sortBy: { sortBy: 'id', sortDirection: 'asc' }, options: {} });
    const { offset } = p;
    const accept = (account: string, funded: boolean) => {
      if (!showZeroBalance && !funded) return false;
      if (owner !== undefined && mint !== undefined) return this.index.tokenAccount(account)?.mint === mint;
      return true;
    };
    const after = p.after;
    const accounts =
      p.limit === 0
        ? []
        : this.index.lists.tokenAccounts(owner !== undefined ? 'tokenOwner' : 'tokenMint', (owner ?? mint)!, {
            ...(after ? { after } : {}),
            offset,
            limit: p.limit,
            accept,
          });
    const items = accounts.map((address) => {
      const t = this.index.tokenAccount(address)!;
      return {
        address,
        mint: t.mint,
        amount: u64(BigInt(t.amount)),
        owner: t.owner,
        frozen: t.state === 2,
        delegate: t.delegate,
        delegated_amount: u64(BigInt(t.delegatedAmount ?? '0')),
        close_authority: t.closeAuthority ?? null,
        extensions: null,
      };
    });
    const out = this.head(p, items.length);
    out.token_accounts = items;
    out.cursor = p.cursorMode && items.length > 0 ? items[items.length - 1]!.address : null;
    out.errors = [];
    return out;
  }

  /** getNftEditions: a master edition's prints in edition-number order. */
  nftEditions(q: {
    mint: string;
    page?: number;
    limit?: number;
    before?: string;
    after?: string;
    cursor?: string;
  }): Record<string, unknown> {
    const p = plan({ ...q, sortBy: { sortBy: 'id', sortDirection: 'asc' }, options: {} });
    pubkey(q.mint, pubkeyError);
    const masterAddress = this.index.editionPdaOf(q.mint);
    const master = this.index.edition(masterAddress);
    if (master?.kind !== 'master')
      throw new AssetError('asset_not_found', 'Database Error: RecordNotFound Error: Master Edition not found');
    const { offset } = p;
    const editions = this.index.lists.printsOf(masterAddress, offset, p.limit).map((e) => ({
      mint_address: this.index.lists.mintOfEdition(e.edition) ?? null,
      edition_address: e.edition,
      edition_number: u64(e.number),
    }));
    const out: Record<string, unknown> = {
      last_indexed_slot: u64(this.index.lastIndexedSlot()),
      total: editions.length,
      limit: p.limit,
      master_edition_address: masterAddress,
      supply: u64(BigInt(master.supply)),
      max_supply: master.maxSupply === null ? null : u64(BigInt(master.maxSupply)),
    };
    // Always present (the reference leaves it out when empty, which Umi's client cannot read).
    out.editions = editions;
    if (p.page !== undefined) out.page = p.page;
    return out;
  }

  /**
   * getGrouping: a group's size, as the reference counts it: its members whose verification is
   * set. Collections are the only grouping kept; another key, or a value no asset names, is 0.
   */
  grouping(groupKey: string, groupValue: string): Record<string, unknown> {
    let size = 0;
    if (groupKey === 'collection' && isPubkey(groupValue)) {
      try {
        size = this.index.lists.size('group', groupValue, true, this.budgets.list);
      } catch (e) {
        if (!(e instanceof ScanBudgetExceeded)) throw e;
        throw new AssetError(
          'asset_query',
          `Pagination Error: this group has more than ${e.budget} entries to count; page getAssetsByGroup by cursor instead`,
        );
      }
    }
    return { group_key: groupKey, group_name: groupValue, group_size: size };
  }

  /**
   * getAssetProof(s): the index holds no compressed (Bubblegum) assets, so an uncompressed or
   * unknown id answers the reference's "Asset Proof Not Found".
   */
  assetProof(id: string): never {
    pubkey(id, pubkeyError);
    throw new AssetError('asset_not_found', 'Database Error: RecordNotFound Error: Asset Proof Not Found');
  }

  assetProofs(ids: readonly string[]): Record<string, null> {
    if (ids.length > MAX_LIMIT)
      throw new AssetError('asset_query', 'Batch Size Error. Batch size should not be greater than 1000.');
    for (const id of ids) pubkey(id, pubkeyError);
    return Object.fromEntries(ids.map((id) => [id, null]));
  }
}
