// What the adapter needs from each mission backend. Each is optional: a method whose backend is
// absent answers BackendNotConfiguredError. Later issues provide the gRPC prover client, the
// embedded simulator and the asset index (or upstream forwarders) behind these interfaces.
import type { ValidityProofParams, ValidityProofV2Params } from './get-validity-proof.js';
import type { SimulateBundleParams } from './simulate-bundle.js';
import type { GetAssetParams } from './get-asset.js';

export interface ValidityProofBackend {
  getValidityProof(params: ValidityProofParams): Promise<unknown>;
  getValidityProofV2(params: ValidityProofV2Params): Promise<unknown>;
}

export interface BundleSimulatorBackend {
  simulateBundle(params: SimulateBundleParams): Promise<unknown>;
}

export interface AssetBackend {
  getAsset(params: GetAssetParams): Promise<unknown>;
}

export interface Backends {
  validityProof?: ValidityProofBackend;
  bundleSimulator?: BundleSimulatorBackend;
  assets?: AssetBackend;
}
