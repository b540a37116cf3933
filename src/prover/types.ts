// The prover service's domain types: what GetValidityProof and Prove return, before any wire format.
import type { TreeInfo } from '../state/index.js';
import type { CompressedProof, ProofPoints, RawProof } from '../zk/proof-format.js';

/** Which JSON-RPC method's rules apply (empty requests, error wording). */
export type ApiVersion = 1 | 2;

/** Light's TreeType: 1 StateV1, 2 AddressV1, 3 StateV2, 4 AddressV2. */
export type TreeTypeNumber = 1 | 2 | 3 | 4;

export const treeType = (t: Pick<TreeInfo, 'kind' | 'version'>): TreeTypeNumber =>
  t.kind === 'state' ? (t.version === 1 ? 1 : 3) : t.version === 1 ? 2 : 4;

export interface AccountEntry {
  hash: bigint;
  root: bigint;
  rootIndex: number;
  leafIndex: number;
  proveByIndex: boolean;
  tree: string;
  treeType: TreeTypeNumber;
  queue: string;
}

export interface AddressEntry {
  address: bigint;
  root: bigint;
  rootIndex: number;
  lowElementLeafIndex: number;
  tree: string;
  treeType: TreeTypeNumber;
  queue: string;
}

export interface Proof {
  points: ProofPoints;
  compressed: CompressedProof;
  raw: RawProof;
  publicInputs: bigint[];
  /** SHA-256 of the proving key used (identifies the verification key). */
  keySha256: string;
}

export interface ValidityProofResult {
  proof?: Proof;
  circuit: string;
  accounts: AccountEntry[];
  addresses: AddressEntry[];
  slot: bigint;
}

export interface ProveResult {
  proof: Proof;
  circuit: string;
}
