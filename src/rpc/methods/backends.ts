// What the adapter needs from each mission backend. Each is optional: a method whose backend is
// absent answers BackendNotConfiguredError. Later issues provide the gRPC prover client, the
// embedded simulator and the asset index (or upstream forwarders) behind these interfaces.
import type { ForkSource, Ledger } from '../../ledger/index.js';
import type { ClientValidityProof } from '../../prover/index.js';
import type { SimulateBundleParams } from './simulate-bundle.js';
import type { GetAssetParams } from './get-asset.js';

/** The prover as the adapter sees it: in practice the gRPC client of the prover role. */
export interface ValidityProofBackend {
  getValidityProof(req: {
    hashes: bigint[];
    addresses: { address: bigint; tree: string }[];
    api: 1 | 2;
  }): Promise<ClientValidityProof>;
}

export type BundleSimulatorBackend =
  | { forwardsRaw?: false; simulateBundle(params: SimulateBundleParams): Promise<unknown> }
  /** A forwarder takes the caller's params as sent; the upstream validates them. */
  | { forwardsRaw: true; simulateBundle(params: unknown): Promise<unknown> };

export type AssetBackend =
  | { forwardsRaw?: false; getAsset(params: GetAssetParams): Promise<unknown> }
  /** A forwarder takes the caller's params as sent; the provider validates them. */
  | { forwardsRaw: true; getAsset(params: unknown): Promise<unknown> };

export interface Backends {
  /** The embedded ledger (and its fork source): serves the standard Solana RPC subset. */
  chain?: { ledger: Ledger; fork?: ForkSource };
  validityProof?: ValidityProofBackend;
  bundleSimulator?: BundleSimulatorBackend;
  assets?: AssetBackend;
}
