// What the adapter needs from each mission backend. Each is optional: a method whose backend is
// absent answers BackendNotConfiguredError. Later issues provide the gRPC prover client, the
// embedded simulator and the asset index (or upstream forwarders) behind these interfaces.
import type { Ledger } from '../../ledger/index.js';
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

export interface BundleSimulatorBackend {
  simulateBundle(params: SimulateBundleParams): Promise<unknown>;
}

export interface AssetBackend {
  getAsset(params: GetAssetParams): Promise<unknown>;
}

export interface Backends {
  /** The embedded ledger: serves the standard Solana RPC subset. */
  chain?: Ledger;
  validityProof?: ValidityProofBackend;
  bundleSimulator?: BundleSimulatorBackend;
  assets?: AssetBackend;
}
