// The backends the adapter routes to: the embedded ledger's (Solana RPC, simulation, assets,
// Photon's index, the forester's status) or upstreams where configured (--simulate-upstream,
// --das-upstream, --validity-proof-upstream); getValidityProof from the proving side.
import type { Config } from '../config.js';
import { ForkSource } from '../ledger/index.js';
import { queueStatuses } from '../forester/index.js';
import { decodeBase58 } from '../zk/index.js';
import { AssetQueries, getAsset, PriceSource } from '../das/index.js';
import type { GetAssetParams } from '../rpc/methods/get-asset.js';
import { BundleSimulator } from '../sim/index.js';
import { forwardTo } from '../wire/index.js';
import type { NodeEndpoints } from '../rpc/methods/solana-cluster.js';
import type { Backends } from '../rpc/index.js';
import { compressionIndex, type EmbeddedChain } from './chain.js';
import type { FollowedCluster } from './cluster.js';

/** Wrapped SOL's mint: the price source's price of SOL (Helius' nativeBalance). */
const WRAPPED_SOL = 'So11111111111111111111111111111111111111112';

export function assembleBackends({
  config,
  version,
  chain,
  cluster,
  given,
  validity,
  endpoints,
}: {
  config: Config;
  version: string;
  chain: EmbeddedChain | undefined;
  /** A followed cluster (--cluster-rpc): Photon's methods from its index, the rest forwarded to it. */
  cluster: FollowedCluster | undefined;
  /** Backends a caller (a test) provides: they win over the assembled ones, but the proving side's. */
  given: Backends;
  validity: Backends['validityProof'];
  /** Filled in once the servers listen (getClusterNodes). */
  endpoints: NodeEndpoints;
}): Backends {
  const ledger = chain?.ledger;
  const prices = config.priceSource
    ? new PriceSource(config.priceSource, { timeoutMs: config.upstreamTimeoutMs })
    : undefined;
  const fork = ledger && config.forkUrl ? new ForkSource(ledger, config.forkUrl, config.upstreamTimeoutMs) : undefined;
  const simulator: Backends['bundleSimulator'] = config.simulateUpstream
    ? {
        forwardsRaw: true,
        simulateBundle: forwardTo(config.simulateUpstream, 'simulateBundle', config.upstreamTimeoutMs),
      }
    : ledger
      ? new BundleSimulator(ledger, version, fork)
      : cluster
        ? new BundleSimulator(cluster.bank, version)
        : undefined;
  const backends: Backends = {
    ...(ledger
      ? {
          chain: {
            ledger,
            endpoints,
            ...(fork ? { fork } : {}),
            queueRoom: (ms: number) => chain?.forester?.nextUpdate(ms) ?? Promise.resolve(false),
          },
        }
      : {}),
    ...(simulator ? { bundleSimulator: simulator } : {}),
    ...(config.dasUpstream
      ? {
          assets: {
            forwardsRaw: true,
            getAsset: forwardTo(config.dasUpstream, 'getAsset', config.upstreamTimeoutMs),
            call: (method: string, params: unknown) =>
              forwardTo(config.dasUpstream, method, config.upstreamTimeoutMs)(params),
          },
        }
      : chain
        ? {
            assets: {
              queries: new AssetQueries(
                chain.assets,
                () => ({ fetcher: chain.fetcher, cdnPrefix: config.cdnPrefix }),
                chain.signatures,
                undefined,
                (address) => chain.ledger.getAccount(decodeBase58(address))?.lamports ?? 0n,
              ),
              ...(prices ? { solPrice: () => prices.priceOf(WRAPPED_SOL) } : {}),
              getAsset: async (p: GetAssetParams) => {
                const price = prices ? await prices.priceOf(p.id) : undefined;
                return getAsset(chain.assets, p.id, p.options, {
                  fetcher: chain.fetcher,
                  cdnPrefix: config.cdnPrefix,
                  ...(price !== undefined ? { price } : {}),
                });
              },
            },
          }
        : {}),
    ...(config.validityProofUpstream
      ? {
          photon: {
            forwardsRaw: true,
            call: (method: string, params: unknown) =>
              forwardTo(config.validityProofUpstream, method, config.upstreamTimeoutMs)(params),
          },
        }
      : chain
        ? { photon: { index: compressionIndex(chain) } }
        : cluster
          ? { photon: { index: cluster.photon } }
          : {}),
    ...(cluster ? { cluster: cluster.forward } : {}),
    ...(chain
      ? {
          forester: {
            status: () => chain.forester?.status(),
            queues: () => queueStatuses(chain.ledger, chain.compression.trees),
          },
        }
      : {}),
    ...given,
    ...(validity ? { validityProof: validity } : {}),
  };
  return backends;
}
