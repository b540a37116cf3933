// Valid, distinct sample witnesses for a circuit shape, for `zkgate keys export` and benchmarks:
// realistic accounts and addresses (src/prover/demo-data.ts) go into throwaway trees, their Merkle
// proofs become circuit inputs, and circom's witness calculator turns those into .wtns files.
// It lives outside src/zk because it needs the tree store and the prover's witness calculator,
// which themselves build on src/zk.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoAccountHashes, demoAddress } from './prover/demo-data.js';
import { buildWitnessCalculator, calculateWitness, witnessValues } from './prover/witness-calculator.js';
import { TreeStore } from './state/index.js';
import {
  circuitInputs,
  encodeBase58,
  inclusionWitness,
  nonInclusionWitness,
  publicInputs,
  shapeByName,
  type CircuitInputs,
} from './zk/index.js';

export interface SampleWitness {
  /** The circom input signals the witness was calculated from. */
  inputs: CircuitInputs;
  /** The .wtns file, byte for byte as circom's witness calculator writes it. */
  wtns: Uint8Array;
  /** Wires 1..nPublic of the witness: what snarkjs writes as public.json. */
  publicSignals: bigint[];
}

/** Tree pubkeys of their own, so sample leaves hash as they would in a real (if unknown) tree. */
const sampleTree = (label: string) => encodeBase58(createHash('sha256').update(`zkgate-sample:${label}`).digest());

/**
 * `count` witnesses of `shapeName` from the circuit's wasm. Witness k proves fresh leaves and
 * addresses (numbered by k), so no two are alike; the same arguments always give the same inputs.
 * `nPublic` (the verification key's) says how many wires are public; by default, as many as the
 * shape's public inputs.
 */
export async function sampleWitnesses(
  shapeName: string,
  wasmPath: string,
  count: number,
  opts: { nPublic?: number; seed?: string } = {},
): Promise<SampleWitness[]> {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`witness count must be an integer ≥ 0: ${count}`);
  const shape = shapeByName(shapeName);
  const v = shape.version;
  const seed = opts.seed ?? 'zkgate-sample';
  const wc = await buildWitnessCalculator(await readFile(wasmPath));
  const dir = await mkdtemp(join(tmpdir(), 'zkgate-samples-'));
  const store = await TreeStore.open(dir);
  try {
    const stateKey = sampleTree(`state-v${v}`);
    const addressKey = sampleTree(`address-v${v}`);
    store.registerTree({ pubkey: stateKey, kind: 'state', version: v });
    store.registerTree({ pubkey: addressKey, kind: 'address', version: v });
    const state = store.stateTree(stateKey);
    const addressTree = store.addressTree(addressKey);
    const out: SampleWitness[] = [];
    for (let k = 0; k < count; k++) {
      // Appending moves the root on, so each witness also proves against a root of its own.
      const next = state.append(demoAccountHashes(stateKey, v, k * shape.nInclusion, shape.nInclusion, seed));
      const accounts = Array.from({ length: shape.nInclusion }, (_, i) =>
        inclusionWitness(state.proofByIndex(next.firstIndex + i)),
      );
      // Addresses are never inserted, so each one stays provably absent.
      const addresses = Array.from({ length: shape.nNonInclusion }, (_, i) =>
        nonInclusionWitness(addressTree.nonInclusionProof(demoAddress(k * shape.nNonInclusion + i, seed))),
      );
      const inputs = circuitInputs(shape, accounts, addresses);
      const wtns = await calculateWitness(wc, shape.name, inputs);
      const nPublic = opts.nPublic ?? publicInputs(shape, inputs).length;
      out.push({ inputs, wtns, publicSignals: publicWires(wtns, nPublic) });
    }
    return out;
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Wires 1..nPublic (wire 0 is the constant 1) as field elements. */
function publicWires(wtns: Uint8Array, nPublic: number): bigint[] {
  const values = witnessValues(wtns);
  return Array.from({ length: nPublic }, (_, i) => {
    const le = values.subarray(32 * (i + 1), 32 * (i + 2));
    return BigInt('0x' + (Buffer.from(le).reverse().toString('hex') || '0'));
  });
}
