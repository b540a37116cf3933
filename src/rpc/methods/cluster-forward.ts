// A follower of --cluster-rpc answers what it indexes (Photon's methods, proofs) and forwards the
// Solana methods it does not to the followed cluster, so one URL serves clients: `createRpc(zkgate,
// zkgate, zkgate)`. Params go as sent and answers (errors too) come back with u64 values exact;
// the caller's api-key stays here (the cluster's URL may carry the operator's own).
import type { Backends } from './backends.js';
import { raw } from './solana-params.js';
import { defineMethod, type MethodDef } from './types.js';

/** Agave's HTTP JSON-RPC methods, but getHealth and getVersion, which describe this gateway. */
export const FORWARDED_SOLANA_METHODS = [
  'getAccountInfo',
  'getBalance',
  'getBlock',
  'getBlockCommitment',
  'getBlockHeight',
  'getBlockProduction',
  'getBlockTime',
  'getBlocks',
  'getBlocksWithLimit',
  'getClusterNodes',
  'getEpochInfo',
  'getEpochSchedule',
  'getFeeForMessage',
  'getFirstAvailableBlock',
  'getGenesisHash',
  'getHighestSnapshotSlot',
  'getIdentity',
  'getInflationGovernor',
  'getInflationRate',
  'getInflationReward',
  'getLargestAccounts',
  'getLatestBlockhash',
  'getLeaderSchedule',
  'getMaxRetransmitSlot',
  'getMaxShredInsertSlot',
  'getMinimumBalanceForRentExemption',
  'getMultipleAccounts',
  'getProgramAccounts',
  'getRecentPerformanceSamples',
  'getRecentPrioritizationFees',
  'getSignatureStatuses',
  'getSignaturesForAddress',
  'getSlot',
  'getSlotLeader',
  'getSlotLeaders',
  'getStakeMinimumDelegation',
  'getSupply',
  'getTokenAccountBalance',
  'getTokenAccountsByDelegate',
  'getTokenAccountsByOwner',
  'getTokenLargestAccounts',
  'getTokenSupply',
  'getTransaction',
  'getTransactionCount',
  'getVoteAccounts',
  'isBlockhashValid',
  'minimumLedgerSlot',
  'requestAirdrop',
  'sendTransaction',
  'simulateTransaction',
] as const;

export function clusterForwardMethods(backends: Backends): MethodDef[] {
  const cluster = backends.cluster;
  if (!cluster) return [];
  return FORWARDED_SOLANA_METHODS.map((name) =>
    defineMethod({
      name,
      params: raw,
      // Transactions and account data travel in params: as long as the body limit allows.
      largeStrings: true,
      call: (params: unknown[]) => cluster.forward(name, params),
    }),
  );
}
