// The DAS query methods over the asset index: batches of ids and the lists by owner, collection,
// creator and authority, with the reference's pagination (page, before/after keysets, cursor),
// sorting and errors (digital-asset-rpc-infrastructure: api_impl.rs validate_pagination, dao
// scopes). Items are getAsset's records, so a list and getAsset never disagree.
import { u64 } from '../wire/index.js';
import { decodeBase58 } from '../zk/base58.js';
import type { AssetIndex } from './asset-index.js';
import type { ListKind } from './asset-lists.js';
import { AssetError, getAsset, ownershipModel, type AssetContext, type AssetOptions } from './asset.js';

export type SortKey = 'id' | 'created' | 'updated' | 'recent_action' | 'none';

export interface ListQuery {
  sortBy?: { sortBy: SortKey; sortDirection?: 'asc' | 'desc' };
  limit?: number;
  page?: number;
  before?: string;
  after?: string;
  cursor?: string;
  options: AssetOptions & { showGrandTotal?: boolean };
}

/** The most items one call returns (the reference's and Helius' limit). */
export const MAX_LIMIT = 1000;

const pagination = (msg: string) => new AssetError('asset_query', msg);
const ONE_METHOD = 'Pagination Error. Only one pagination parameter supported per query.';
const SORT_BY_ID = 'Pagination Sorting Error. Only sorting based on id is supported for this pagination option.';

function pubkey(v: string, what: (v: string) => string): Uint8Array {
  let b: Uint8Array | undefined;
  try {
    b = decodeBase58(v);
  } catch {
    b = undefined;
  }
  if (b?.length !== 32) throw new AssetError('asset_invalid_id', what(v));
  return b;
}

/** A caller's value as an error message quotes it: at most 64 characters. */
const clip = (v: string) => (v.length > 64 ? v.slice(0, 61) + '...' : v);
export const pubkeyError = (v: string) => `Pubkey Validation Err: ${clip(v)} is invalid`;

/** A list query's plan once its pagination is checked, in the reference's order of checks. */
interface Plan {
  limit: number;
  page?: number;
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
  const p: Plan = { limit, sort, descending, cursorMode: q.page === undefined && !keyset };
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

export class AssetQueries {
  constructor(
    private readonly index: AssetIndex,
    /** The off-chain fetcher, CDN prefix and price of an asset (as getAsset takes them). */
    private readonly context: (id: string) => AssetContext,
  ) {}

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
    const p = plan(q);
    const { options } = q;
    const accept = (id: string, verified: boolean): boolean => {
      if (onlyVerified && !verified) return false;
      // An owner's list holds every mint it has a balance of; fungibles only with showFungible.
      if (kind === 'owner' && !options.showFungible && ownershipModel(this.index, id) !== 'single') return false;
      return true;
    };
    const scan = (offset: number, limit: number, descending: boolean) =>
      this.index.lists.scan(kind, of, {
        ...(p.after ? { after: p.after } : {}),
        ...(p.before ? { before: p.before } : {}),
        descending,
        offset,
        limit,
        accept,
      });
    const offset = p.page !== undefined ? (p.page - 1) * p.limit : 0;
    let ids: string[];
    // `none`: a grouping the index does not keep (only collections are): an empty list.
    if (none) ids = [];
    else if (p.sort === 'id' || p.sort === 'none') {
      ids = p.limit === 0 ? [] : scan(offset, p.limit, p.sort === 'id' && p.descending);
    } else {
      // Slot orders: every entry of the list, ordered by slot and then id, in one direction.
      const slotOf = (id: string) => this.slotOf(id, p.sort === 'created');
      const all = scan(0, Number.MAX_SAFE_INTEGER, false).map((id) => ({ id, slot: slotOf(id) }));
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
      out.grand_total = none
        ? 0
        : this.index.lists.scan(kind, of, {
            descending: false,
            offset: 0,
            limit: Number.MAX_SAFE_INTEGER,
            accept,
          }).length;
    out.limit = p.limit;
    if (p.page !== undefined) out.page = p.page;
    if (p.cursorMode && ids.length > 0) out.cursor = ids[ids.length - 1];
    out.items = items;
    return out;
  }

  /** The slot an asset was first indexed in (created) or last changed in (updated, recent_action). */
  private slotOf(id: string, created: boolean): bigint {
    const r = this.index.metadataOf(id) ?? this.index.coreOf(id);
    const s = created ? (r?.created ?? r?.slot) : r?.slot;
    return BigInt(s ?? this.index.mint(id)?.slot ?? '0');
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
    if (owner !== undefined) pubkey(owner, (v) => `Validation Error: Invalid pubkey ${clip(v)}`);
    if (mint !== undefined) pubkey(mint, (v) => `Validation Error: Invalid pubkey ${clip(v)}`);
    // Address order, ascending: a cursor (or `after`) continues past the last address.
    const p = plan({ ...q, sortBy: { sortBy: 'id', sortDirection: 'asc' }, options: {} });
    const offset = p.page !== undefined ? (p.page - 1) * p.limit : 0;
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
    const out: Record<string, unknown> = {
      last_indexed_slot: u64(this.index.lastIndexedSlot()),
      total: items.length,
      limit: p.limit,
    };
    if (p.page !== undefined) out.page = p.page;
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
    const offset = p.page !== undefined ? (p.page - 1) * p.limit : 0;
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
