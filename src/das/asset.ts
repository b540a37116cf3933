// getAsset: the DAS record of one asset from the index, in the reference implementation's shape
// and key order (get-asset.md §2) with the choices of §8: last_indexed_slot first, token_info
// whenever the mint is known, unverified collections shown with the option, plain SPL mints
// returned as FungibleToken, u64 values exact (bigint).
import { AppError } from '../errors.js';
import { u64 } from '../wire/index.js';
import { decodeBase58 } from '../zk/base58.js';
import type { AssetIndex, CoreRecord, MetadataRecord, MintRecord } from './asset-index.js';
import { contentFromJson, type MetadataFetcher } from './offchain.js';
import { u64Values } from './token-2022.js';

export class AssetError extends AppError {
  constructor(
    readonly kind: 'asset_not_found' | 'asset_invalid_id' | 'asset_no_supply' | 'asset_query',
    message: string,
  ) {
    super(message);
  }
}

export interface AssetOptions {
  showFungible?: boolean;
  showUnverifiedCollections?: boolean;
  showCollectionMetadata?: boolean;
  showInscription?: boolean;
  showZeroBalance?: boolean;
}

const SCHEMA = 'https://schema.metaplex.com/nft1.0.json';
const WSOL = 'So11111111111111111111111111111111111111112';
const SUPPLY_INTERFACES = new Set(['V1_NFT', 'LEGACY_NFT', 'V2_NFT', 'ProgrammableNFT', 'Custom']);

type Interface = 'V1_NFT' | 'ProgrammableNFT' | 'FungibleToken' | 'FungibleAsset' | 'Custom';

/** Asset class by token standard (and, without one, by the mint), as the reference ingester decides it. */
function classify(md: MetadataRecord | undefined, mint: MintRecord | undefined, id: string) {
  const ts = md?.metadata.tokenStandard ?? null;
  const single = { interface: 'V1_NFT' as Interface, ownership: 'single' as const };
  switch (ts) {
    case 'NonFungible':
    case 'NonFungibleEdition':
      return single;
    case 'ProgrammableNonFungible':
    case 'ProgrammableNonFungibleEdition':
      return { interface: 'ProgrammableNFT' as Interface, ownership: 'single' as const };
    case 'Fungible':
      return { interface: 'FungibleToken' as Interface, ownership: 'token' as const };
    case 'FungibleAsset':
      return { interface: 'FungibleAsset' as Interface, ownership: 'token' as const };
  }
  if (!md) return { interface: 'FungibleToken' as Interface, ownership: 'token' as const };
  if (id === WSOL || (mint && BigInt(mint.supply) > 1n))
    return { interface: 'FungibleToken' as Interface, ownership: 'token' as const };
  return { interface: 'Custom' as Interface, ownership: 'single' as const };
}

/** How an asset is owned: one owner (NFTs, Core assets) or token accounts (fungibles). */
export function ownershipModel(index: AssetIndex, id: string): 'single' | 'token' {
  const md = index.metadataOf(id);
  const mint = index.mint(id);
  if (!md && !mint) return 'single';
  return classify(md, mint, id).ownership;
}

export interface AssetContext {
  fetcher?: MetadataFetcher;
  /** Prefix of files[].cdn_uri; empty: no cdn_uri. */
  cdnPrefix?: string;
  /** The mint's price in USDC when the price source has one. */
  price?: number;
}

export function getAsset(
  index: AssetIndex,
  id: string,
  options: AssetOptions,
  ctx: AssetContext = {},
): Record<string, unknown> {
  // The index is keyed by canonical base58 pubkeys: a hit proves the id valid, so it is decoded only
  // on a miss. Longer than any pubkey: invalid without a lookup (LMDB keys hold 511 bytes).
  if (id.length > 44)
    throw new AssetError(
      'asset_invalid_id',
      `Pubkey Validation Err: ${id.length > 64 ? id.slice(0, 61) + '...' : id} is invalid`,
    );
  const md = index.metadataOf(id);
  const mint = index.mint(id);
  if (!md && !mint) {
    const core = index.coreOf(id);
    if (core) return coreAsset(index, id, core, options, ctx);
    let valid = false;
    try {
      valid = decodeBase58(id).length === 32;
    } catch {
      valid = false;
    }
    if (!valid) throw new AssetError('asset_invalid_id', `Pubkey Validation Err: ${id} is invalid`);
    throw new AssetError('asset_not_found', 'Database Error: RecordNotFound Error: Asset Not Found');
  }
  if (md && mint && BigInt(mint.supply) === 0n)
    throw new AssetError('asset_no_supply', 'Database Error: Custom Error: Asset has no supply');
  const m = md?.metadata;
  const cls = classify(md, mint, id);

  const grouping = groupingOf(index, m?.collection ?? null, options, ctx);

  let ownership: Record<string, unknown>;
  if (cls.ownership === 'single') {
    const holder = index.holder(id);
    ownership = {
      frozen: holder?.state === 2,
      delegated: Boolean(holder?.delegate),
      delegate: holder?.delegate ?? null,
      ownership_model: 'single',
      owner: holder?.owner ?? '',
    };
  } else {
    ownership = { frozen: false, delegated: false, delegate: null, ownership_model: 'token', owner: '' };
  }

  // Token-2022 tokens with only the metadata extension take name, symbol and uri from it.
  const ext = !m ? mint?.tokenMetadata : undefined;
  const uri = m?.uri ?? ext?.uri.replace(/\0/g, '').trim() ?? '';

  const bp = m?.sellerFeeBasisPoints ?? 0;
  const asset: Record<string, unknown> = {
    last_indexed_slot: u64(index.lastIndexedSlot()),
    interface: cls.interface,
    id,
    content: content(
      uri,
      m?.name ?? ext?.name.replace(/\0/g, '') ?? '',
      m?.symbol ?? ext?.symbol.replace(/\0/g, '') ?? '',
      m?.tokenStandard ?? null,
      ctx,
    ),
    authorities: m ? [{ address: m.updateAuthority, scopes: ['full'] }] : [],
    compression: uncompressed(),
    grouping,
    royalty: royalty(bp, m?.primarySaleHappened ?? false),
    creators: (m?.creators ?? []).map((c) => ({ address: c.address, share: c.share, verified: c.verified })),
    ownership,
  };
  if (m?.uses)
    asset.uses = {
      use_method: m.uses.useMethod,
      remaining: u64(BigInt(m.uses.remaining)),
      total: u64(BigInt(m.uses.total)),
    };
  if (SUPPLY_INTERFACES.has(cls.interface)) {
    // A master edition's prints (current, and the maximum: null when unlimited); 0/0 otherwise,
    // prints included, as the reference shows them.
    const edition = md ? index.editionOf(id) : undefined;
    const master = edition?.kind === 'master' ? edition : undefined;
    asset.supply = {
      print_max_supply: master ? (master.maxSupply === null ? null : u64(BigInt(master.maxSupply))) : 0,
      print_current_supply: master ? u64(BigInt(master.supply)) : 0,
      edition_nonce: m?.editionNonce ?? null,
    };
  }
  asset.mutable = m ? m.isMutable : true;
  asset.burnt = Boolean(md?.burnt || mint?.closed);
  if (mint?.extensions && Object.keys(mint.extensions).length > 0) asset.mint_extensions = u64Values(mint.extensions);
  if (options.showInscription) {
    const inscription = index.inscriptionOf(id);
    if (inscription) asset.inscription = { ...inscription, order: u64(BigInt(inscription.order)) };
  }
  if (mint) {
    asset.token_info = {
      supply: u64(BigInt(mint.supply)),
      decimals: mint.decimals,
      token_program: mint.tokenProgram,
      ...(mint.mintAuthority ? { mint_authority: mint.mintAuthority } : {}),
      ...(mint.freezeAuthority ? { freeze_authority: mint.freezeAuthority } : {}),
      ...(ctx.price !== undefined
        ? { price_info: priceInfo(ctx.price, mint, cls.ownership === 'single' ? index.holder(id) : undefined) }
        : {}),
    };
  }
  return asset;
}

/** price_info; total_price only where one holder's balance is known (single-owner assets). */
function priceInfo(price: number, mint: MintRecord, holder: { amount: string } | undefined) {
  return {
    price_per_token: price,
    ...(holder ? { total_price: (Number(holder.amount) / 10 ** mint.decimals) * price } : {}),
    currency: 'USDC',
  };
}

const uncompressed = () => ({
  eligible: false,
  compressed: false,
  data_hash: '',
  creator_hash: '',
  asset_hash: '',
  tree: '',
  seq: 0,
  leaf_id: 0,
});

function royalty(bp: number, primarySaleHappened: boolean) {
  return {
    royalty_model: 'creators',
    target: null,
    // The reference multiplies (bp * 0.0001), which differs from bp / 10000 in the last digit
    // for many values; clients compare against it.
    percent: bp * 0.0001,
    basis_points: bp,
    primary_sale_happened: primarySaleHappened,
    locked: false,
  };
}

/** The off-chain JSON of a URI once it has arrived; asks for it otherwise. */
function offchainJson(uri: string, ctx: AssetContext): Record<string, unknown> | undefined {
  if (!uri || !ctx.fetcher) return undefined;
  const rec = ctx.fetcher.get(uri);
  if (!rec) ctx.fetcher.want(uri);
  return rec?.status === 'ok' && rec.json ? rec.json : undefined;
}

/** content: chain name/symbol/token standard, plus the off-chain JSON when it has arrived. */
function content(uri: string, name: string, symbol: string, tokenStandard: string | null, ctx: AssetContext) {
  const json = offchainJson(uri, ctx);
  const offchain = json ? contentFromJson(json, ctx.cdnPrefix ?? '') : undefined;
  const metadata: Record<string, unknown> = {
    ...(offchain?.metadata ?? {}),
    name,
    symbol,
    ...(tokenStandard ? { token_standard: tokenStandard } : {}),
  };
  return {
    $schema: SCHEMA,
    json_uri: uri,
    files: offchain?.files ?? [],
    // The reference's metadata map is ordered by key.
    metadata: sortKeys(metadata),
    links: offchain?.links ?? {},
  };
}

const sortKeys = (o: Record<string, unknown>) =>
  Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );

const COLLECTION_METADATA_KEYS = ['description', 'external_url', 'image', 'name', 'symbol'];

/**
 * grouping: the collection (unverified ones only with showUnverifiedCollections) and, with
 * showCollectionMetadata, name / symbol / image / external_url / description from the collection's
 * own off-chain JSON: `{}` while it has not arrived, absent when the collection is not indexed.
 */
function groupingOf(
  index: AssetIndex,
  collection: { key: string; verified: boolean } | null,
  options: AssetOptions,
  ctx: AssetContext,
) {
  if (!collection || !(collection.verified || options.showUnverifiedCollections)) return [];
  const group: Record<string, unknown> = { group_key: 'collection', group_value: collection.key };
  if (options.showUnverifiedCollections) group.verified = collection.verified;
  if (options.showCollectionMetadata) {
    const uri = collectionUri(index, collection.key);
    if (uri !== undefined) {
      const json = offchainJson(uri, ctx);
      const meta: Record<string, unknown> = {};
      for (const k of COLLECTION_METADATA_KEYS) if (json?.[k] !== undefined) meta[k] = json[k];
      group.collection_metadata = meta;
    }
  }
  return [group];
}

/** The metadata URI of an indexed collection (Token Metadata or MPL Core), or undefined if not indexed. */
function collectionUri(index: AssetIndex, key: string): string | undefined {
  const md = index.metadataOf(key);
  if (md) return md.metadata.uri;
  const core = index.coreOf(key);
  return core ? clean(core.core.uri) : undefined;
}

const clean = (s: string) => s.replace(/\0/g, '').trim();
const SYSTEM_PROGRAM = '11111111111111111111111111111111';

/** A Core collection's update authority ("" while the collection is not indexed). */
function collectionAuthority(index: AssetIndex, collection: string): string {
  const ua = index.coreOf(collection)?.core.updateAuthority;
  return ua && ua.kind !== 'None' ? ua.address : '';
}

/** An MPL Core asset or collection (get-asset.md §2.4–§2.14, the reference's Core transformer). */
function coreAsset(
  index: AssetIndex,
  id: string,
  rec: CoreRecord,
  options: AssetOptions,
  ctx: AssetContext,
): Record<string, unknown> {
  const a = rec.core;
  const ua = a.updateAuthority;
  // An asset in a collection is governed by the collection's authority ("" while it is not indexed).
  const authority =
    ua.kind === 'None' ? SYSTEM_PROGRAM : ua.kind === 'Address' ? ua.address : collectionAuthority(index, ua.address);
  const owner = a.kind === 'collection' ? authority : (a.owner ?? '');
  const td = a.transferDelegate;
  const delegate =
    td === null || td.type === 'None'
      ? null
      : td.type === 'Owner'
        ? owner
        : td.type === 'UpdateAuthority'
          ? authority
          : td.address;
  const bp = a.royalties?.basisPoints ?? 0;
  const asset: Record<string, unknown> = {
    last_indexed_slot: u64(index.lastIndexedSlot()),
    interface: a.kind === 'asset' ? 'MplCoreAsset' : 'MplCoreCollection',
    id,
    // Core assets have no symbol and no token standard.
    content: content(clean(a.uri), a.name, '', null, ctx),
    authorities: [{ address: authority, scopes: ['full'] }],
    compression: uncompressed(),
    grouping: groupingOf(index, ua.kind === 'Collection' ? { key: ua.address, verified: true } : null, options, ctx),
    royalty: royalty(bp, false),
    creators: (a.royalties?.creators ?? []).map((c) => ({ address: c.address, share: c.percentage, verified: true })),
    ownership: {
      frozen: a.frozen,
      delegated: delegate !== null,
      delegate,
      ownership_model: 'single',
      owner,
    },
    mutable: ua.kind !== 'None',
    burnt: rec.burnt,
    plugins: a.plugins,
  };
  if (a.unknownPlugins.length) asset.unknown_plugins = a.unknownPlugins;
  asset.mpl_core_info = {
    ...(a.numMinted !== null ? { num_minted: a.numMinted } : {}),
    ...(a.currentSize !== null ? { current_size: a.currentSize } : {}),
    plugins_json_version: 1,
  };
  asset.external_plugins = a.externalPlugins;
  if (a.unknownExternalPlugins.length) asset.unknown_external_plugins = a.unknownExternalPlugins;
  return asset;
}
