// Validity proofs where the trees and the prover live apart (`--role rpc` with the embedded ledger,
// and `--prover-url` or `--queue`): witnesses are built here, from the trees the ledger's ingest
// keeps, and proved elsewhere as explicit witnesses (Light-style), so proofs are about this
// ledger's state. Before a proof is returned, `beforeReturn` lets the ledger install the remote
// key's verification key (fetched once per key).
import type { TreeStore } from '../state/index.js';
import { bigIntToBytes32 } from '../zk/field.js';
import type { CompressedProof } from '../zk/proof-format.js';
import type { Shape } from '../zk/shapes.js';
import type { SnarkjsVerificationKey } from '../zk/verify.js';
import type { ProvingClient } from './balancer.js';
import type { ClientValidityProof } from './client.js';
import { explicitRequest } from './light-json.js';
import type { ExplicitProveRequest } from './service.js';
import type { ApiVersion } from './types.js';
import { buildWitnesses } from './witness.js';

/** Where explicit witnesses are proved: a gRPC prover (or several), or the job queue. */
export interface WitnessProving {
  proveExplicit(
    req: ExplicitProveRequest,
    shape: Shape,
    caller?: string,
    /** The caller holds an admin key: the build right of a loopback front (build-policy.ts). */
    admin?: boolean,
  ): Promise<{ compressed: CompressedProof; circuit: string; publicInputs: bigint[]; keySha256: string }>;
  /** The verification key of the key a proof was made with. */
  verifyingKey(circuit: string, keySha256: string): Promise<SnarkjsVerificationKey>;
}

const b = (v: bigint) => Buffer.from(bigIntToBytes32(v));

/** Explicit witnesses over gRPC's Prove (the proto message's fields). */
export function grpcWitnessProving(client: ProvingClient): WitnessProving {
  return {
    proveExplicit: (r, _shape, caller, admin) =>
      client.prove(
        {
          circuitType: `CIRCUIT_TYPE_${r.circuitType.toUpperCase().replace('-', '_')}`,
          stateTreeHeight: r.stateTreeHeight,
          addressTreeHeight: r.addressTreeHeight,
          publicInputHash: Buffer.alloc(0),
          inputCompressedAccounts: r.accounts.map((a) => ({
            root: b(a.root),
            pathIndex: String(a.pathIndex),
            pathElements: a.pathElements.map(b),
            leaf: b(a.leaf),
          })),
          newAddresses: r.addresses.map((a) => ({
            root: b(a.root),
            value: b(a.value),
            pathIndex: String(a.pathIndex),
            pathElements: a.pathElements.map(b),
            leafLowerRangeValue: b(a.lowValue),
            leafHigherRangeValue: b(a.nextValue),
            nextIndex: String(a.nextIndex),
          })),
        },
        caller,
        admin,
      ),
    verifyingKey: async (circuit) => (await client.verifyingKey(circuit)).vk,
  };
}

export class RemoteWitnessProver {
  constructor(
    private readonly trees: TreeStore,
    private readonly prover: WitnessProving,
    /** Told of each proof's key; `fetch` gets its verification key from the prover. */
    private readonly beforeReturn: (
      circuit: string,
      keySha256: string,
      fetch: () => Promise<SnarkjsVerificationKey>,
    ) => Promise<void> | void,
  ) {}

  async getValidityProof(req: {
    hashes: bigint[];
    addresses: { address: bigint; tree: string }[];
    api: ApiVersion;
    caller?: string;
    admin?: boolean;
  }): Promise<ClientValidityProof> {
    // One synchronous run of reads: every path and root from the same committed state.
    const w = buildWitnesses(this.trees, req);
    const base = { accounts: w.accounts, addresses: w.addresses, slot: w.slot };
    if (!w.shape) return { ...base, circuit: '', publicInputs: [], keySha256: '' };
    const r = await this.prover.proveExplicit(
      explicitRequest(w.shape, w.accountWitnesses, w.addressWitnesses),
      w.shape,
      req.caller,
      req.admin,
    );
    await this.beforeReturn(r.circuit, r.keySha256, () => this.prover.verifyingKey(r.circuit, r.keySha256));
    return {
      ...base,
      compressedProof: r.compressed,
      circuit: r.circuit,
      publicInputs: r.publicInputs,
      keySha256: r.keySha256,
    };
  }
}
