import { foresterMethods } from './forester.js';
import { clusterForwardMethods } from './cluster-forward.js';
import type { Backends } from './backends.js';
import { assetMethods } from './get-asset.js';
import { dasQueryMethods } from './das-queries.js';
import { validityProofMethods } from './get-validity-proof.js';
import { nodeInfoMethods } from './node-info.js';
import { photonMethods } from './photon/index.js';
import { simulateBundleMethods } from './simulate-bundle.js';
import { solanaMethods } from './solana.js';
import { solanaBlockMethods } from './solana-blocks.js';
import { solanaClusterMethods, type SupplyOverride } from './solana-cluster.js';
import { solanaTokenMethods } from './solana-tokens.js';
import { surfnetMethods } from './surfnet.js';
import type { MethodDef } from './types.js';

export type { Backends, CompressionIndex } from './backends.js';
export type { CallContext, MethodDef } from './types.js';

export function createMethodTable(backends: Backends, version: string): ReadonlyMap<string, MethodDef> {
  const table = new Map<string, MethodDef>();
  // Surfpool's surfnet_setSupply sets what getSupply answers.
  const supply: SupplyOverride = {};
  for (const m of [
    ...nodeInfoMethods(version),
    ...validityProofMethods(backends),
    ...simulateBundleMethods(backends),
    ...assetMethods(backends),
    ...dasQueryMethods(backends),
    ...photonMethods(backends),
    ...foresterMethods(backends.forester),
    ...clusterForwardMethods(backends),
    ...(backends.chain
      ? solanaMethods(backends.chain.ledger, version, backends.chain.fork, backends.chain.queueRoom)
      : []),
    ...(backends.chain ? solanaBlockMethods(backends.chain.ledger) : []),
    ...(backends.chain
      ? solanaClusterMethods(backends.chain.ledger, version, backends.chain.endpoints ?? {}, supply)
      : []),
    ...(backends.chain ? solanaTokenMethods(backends.chain.ledger, version) : []),
    ...(backends.chain ? surfnetMethods(backends.chain.ledger, version, backends.chain.fork, supply) : []),
  ]) {
    if (table.has(m.name)) throw new Error(`method ${m.name} defined twice`);
    table.set(m.name, m);
  }
  return table;
}
