// What the adapter needs from each mission backend. Each is optional: a method whose backend is
// absent answers BackendNotConfiguredError. Later issues provide the gRPC prover client, the
// embedded simulator and the asset index (or upstream forwarders) behind these interfaces.
import type { ForesterBackend } from './forester.js';
import type { NodeEndpoints } from './solana-cluster.js';
import type { CompressionStore } from '../../compression/index.js';
import type { ForkSource, Ledger } from '../../ledger/index.js';
import type { TreeStore } from '../../state/index.js';
import type { ClientValidityProof } from '../../prover/index.js';
import type { SimulateBundleParams } from '../../sim/index.js';
import type { AssetQueries } from '../../das/asset-queries.js';
import type { GetAssetParams } from './get-asset.js';

/** The prover as the adapter sees it: in practice the gRPC client of the prover role. */
export interface ValidityProofBackend {
  getValidityProof(req: {
    hashes: bigint[];
    addresses: { address: bigint; tree: string }[];
    api: 1 | 2;
    /** The API key id the call came with: the prover holds each to a share of its queue. */
    caller?: string;
    /** The caller holds an admin key (--admin-keys): it may have keys built as on loopback. */
    admin?: boolean;
  }): Promise<ClientValidityProof>;
}

export type BundleSimulatorBackend =
  | { forwardsRaw?: false; simulateBundle(params: SimulateBundleParams): Promise<unknown> }
  /** A forwarder takes the caller's params as sent; the upstream validates them. */
  | { forwardsRaw: true; simulateBundle(params: unknown): Promise<unknown> };

export type AssetBackend =
  | {
      forwardsRaw?: false;
      getAsset(params: GetAssetParams): Promise<unknown>;
      queries?: AssetQueries;
      /** SOL's price in USDC from the price source, if any (Helius' nativeBalance). */
      solPrice?: () => Promise<number | undefined>;
    }
  /** A forwarder takes the caller's params as sent; the provider validates them. */
  | {
      forwardsRaw: true;
      getAsset(params: unknown): Promise<unknown>;
      /** Any other DAS method, forwarded verbatim. */
      call(method: string, params: unknown): Promise<unknown>;
    };

/** What Photon's methods read: the compression index and trees the embedded ledger feeds. */
export interface CompressionIndex {
  store: CompressionStore;
  trees: TreeStore;
  /** The slot everything up to which is indexed (ingest is synchronous with the ledger: its slot). */
  slot(): bigint;
  /** Trees whose state differs from their ledger account (the ingest self-check), with what differs. */
  divergent(): ReadonlyMap<string, string>;
  /** Solana's getTransaction answer (base64) for a signature the chain processed (a cluster's: asked of it). */
  transaction(signature: Uint8Array): unknown | Promise<unknown>;
  /**
   * Throws the error that says why proofs of `tree` may not be made from this index (a followed
   * cluster's tree whose history starts before the index); absent where all may.
   */
  guard?(tree: string): void;
}

/** Photon's indexer methods: answered from the embedded index, or relayed verbatim to a Photon/Helius URL. */
export type PhotonBackend =
  | { forwardsRaw?: false; index: CompressionIndex }
  | { forwardsRaw: true; call(method: string, params: unknown): Promise<unknown> };

/**
 * Waits up to `ms` for room in Light's queues on the embedded ledger: true when the forester has
 * just moved a batch into its tree (room may have been made), false when nothing landed.
 */
export type QueueRoom = (ms: number) => Promise<boolean>;

export interface Backends {
  /** The embedded ledger (and its fork source): serves the standard Solana RPC subset. */
  chain?: { ledger: Ledger; fork?: ForkSource; endpoints?: NodeEndpoints; queueRoom?: QueueRoom };
  validityProof?: ValidityProofBackend;
  photon?: PhotonBackend;
  bundleSimulator?: BundleSimulatorBackend;
  assets?: AssetBackend;
  /** The forester's status (with the embedded ledger). */
  forester?: ForesterBackend;
  /** A followed cluster (--cluster-rpc): the Solana methods not indexed here go to it, as sent. */
  cluster?: { forward(method: string, params: unknown[]): Promise<unknown> };
}
