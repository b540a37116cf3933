// Validity proofs where the trees and the prover live apart (`--role rpc` with the embedded ledger
// and `--prover-url`): witnesses are built here, from the trees the ledger's ingest keeps, and the
// remote prover proves them (Prove, Light-style explicit witnesses), so proofs are about this
// ledger's state. Before a proof is returned, `beforeReturn` lets the ledger install the remote
// key's verification key (fetched once per key).
import type { TreeStore } from '../state/index.js';
import { bigIntToBytes32 } from '../zk/field.js';
import type { SnarkjsVerificationKey } from '../zk/verify.js';
import type { ProvingClient } from './balancer.js';
import type { ClientValidityProof } from './client.js';
import type { ApiVersion } from './types.js';
import { buildWitnesses } from './witness.js';

const b = (v: bigint) => Buffer.from(bigIntToBytes32(v));

export class RemoteWitnessProver {
  constructor(
    private readonly trees: TreeStore,
    private readonly client: ProvingClient,
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
  }): Promise<ClientValidityProof> {
    // One synchronous run of reads: every path and root from the same committed state.
    const w = buildWitnesses(this.trees, req);
    const base = { accounts: w.accounts, addresses: w.addresses, slot: w.slot };
    if (!w.shape) return { ...base, circuit: '', publicInputs: [], keySha256: '' };
    const shape = w.shape;
    const r = await this.client.prove(
      {
        circuitType: `CIRCUIT_TYPE_${shape.family.toUpperCase().replace('-', '_')}`,
        stateTreeHeight: shape.nInclusion > 0 ? shape.stateHeight : 0,
        addressTreeHeight: shape.nNonInclusion > 0 ? shape.addressHeight : 0,
        publicInputHash: Buffer.alloc(0),
        inputCompressedAccounts: w.accountWitnesses.map((a) => ({
          root: b(a.root),
          pathIndex: String(a.pathIndex),
          pathElements: a.pathElements.map(b),
          leaf: b(a.leaf),
        })),
        newAddresses: w.addressWitnesses.map((a) => ({
          root: b(a.root),
          value: b(a.value),
          pathIndex: String(a.pathIndex),
          pathElements: a.pathElements.map(b),
          leafLowerRangeValue: b(a.lowValue),
          leafHigherRangeValue: b(a.nextValue),
          nextIndex: String(a.nextIndex),
        })),
      },
      req.caller,
    );
    await this.beforeReturn(r.circuit, r.keySha256, async () => (await this.client.verifyingKey(r.circuit)).vk);
    return {
      ...base,
      compressedProof: r.compressed,
      circuit: r.circuit,
      publicInputs: r.publicInputs,
      keySha256: r.keySha256,
    };
  }
}
