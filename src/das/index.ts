// The DAS asset index over the embedded ledger and getAsset on it.
export { AssetIndex, type MetadataRecord, type MintRecord, type HolderRecord } from './asset-index.js';
export { getAsset, AssetError, type AssetContext, type AssetOptions } from './asset.js';
export { AssetSignatures } from './asset-signatures.js';
export { AssetQueries, type ListQuery, type SortKey } from './asset-queries.js';
export { MetadataFetcher, contentFromJson, guessMime, type JsonRecord } from './offchain.js';
export * from './layouts.js';
export { PriceSource, type PriceOptions } from './prices.js';
export { parseMintExtensions, type Token2022Metadata } from './token-2022.js';
