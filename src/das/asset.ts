// getAsset: the DAS record of one asset from the index, in the reference implementation's shape
// and key order (get-asset.md §2) with the choices of §8: last_indexed_slot first, token_info
// whenever the mint is known, unverified collections shown with the option, plain SPL mints
// returned as FungibleToken, u64 values exact (bigint).
import { AppError } from '../errors.js';
import { u64 } from '../rpc/json.js';
import { decodeBase58 } from '../zk/base58.js';
import type { AssetIndex, MetadataRecord, MintRecord } from './asset-index.js';
import { contentFromJson, type MetadataFetcher } from './offchain.js';
import { u64Values } from './token-2022.js';

export class AssetError extends AppError {
  constructor(
    readonly kind: 'asset_not_found' | 'asset_invalid_id' | 'asset_no_supply',
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
  // The index is keyed by canonical base58 pubkeys: a hit proves the id valid, so it is decoded only on a miss.
  const md = index.metadataOf(id);
  const mint = index.mint(id);
  if (!md && !mint) {
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

  const grouping = (
    m?.collection && (m.collection.verified || options.showUnverifiedCollections) ? [m.collection] : []
  ).map((c) => ({
    group_key: 'collection',
    group_value: c.key,
    ...(options.showUnverifiedCollections ? { verified: c.verified } : {}),
  }));

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
  // Off-chain JSON when it has arrived; chain data alone until then.
  const uri = m?.uri ?? ext?.uri.replace(/\0/g, '').trim() ?? '';
  const rec = uri && ctx.fetcher ? ctx.fetcher.get(uri) : undefined;
  if (uri && ctx.fetcher && !rec) ctx.fetcher.want(uri);
  const offchain = rec?.status === 'ok' && rec.json ? contentFromJson(rec.json, ctx.cdnPrefix ?? '') : undefined;
  const metadataObject: Record<string, unknown> = {
    ...(offchain?.metadata ?? {}),
    name: m?.name ?? ext?.name.replace(/\0/g, '') ?? '',
    symbol: m?.symbol ?? ext?.symbol.replace(/\0/g, '') ?? '',
    ...(m?.tokenStandard ? { token_standard: m.tokenStandard } : {}),
  };
  const sortedMetadata = Object.fromEntries(
    Object.keys(metadataObject)
      .sort()
      .map((k) => [k, metadataObject[k]]),
  );

  const bp = m?.sellerFeeBasisPoints ?? 0;
  const asset: Record<string, unknown> = {
    last_indexed_slot: u64(index.lastIndexedSlot()),
    interface: cls.interface,
    id,
    content: {
      $schema: SCHEMA,
      json_uri: uri,
      files: offchain?.files ?? [],
      // The reference's metadata map is ordered by key.
      metadata: sortedMetadata,
      links: offchain?.links ?? {},
    },
    authorities: m ? [{ address: m.updateAuthority, scopes: ['full'] }] : [],
    compression: {
      eligible: false,
      compressed: false,
      data_hash: '',
      creator_hash: '',
      asset_hash: '',
      tree: '',
      seq: 0,
      leaf_id: 0,
    },
    grouping,
    royalty: {
      royalty_model: 'creators',
      target: null,
      // The reference multiplies (bp * 0.0001), which differs from bp / 10000 in the last digit
      // for many values; clients compare against it.
      percent: bp * 0.0001,
      basis_points: bp,
      primary_sale_happened: m?.primarySaleHappened ?? false,
      locked: false,
    },
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
