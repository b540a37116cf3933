// prove(shape, inputs) with snarkjs: the witness from the circuit's WebAssembly calculator, the
// Groth16 proof from the key, returned in every format zkgate serves.
import { AppError } from '../errors.js';
import type { CircuitInputs } from './inputs.js';
import type { ProvingKey } from './keys.js';
import {
  compressProof,
  fromSnarkjs,
  toRaw,
  type CompressedProof,
  type ProofPoints,
  type RawProof,
} from './proof-format.js';

export class ProofGenerationError extends AppError {
  readonly kind = 'proof_failed';
}

export interface ProofResult {
  points: ProofPoints;
  compressed: CompressedProof;
  raw: RawProof;
  publicSignals: bigint[];
}

/**
 * Proves with snarkjs. Inputs that do not satisfy the circuit (wrong root, leaf, path bit, range)
 * fail in the witness calculator: no proof is produced.
 */
export async function proveWithSnarkjs(key: ProvingKey, inputs: CircuitInputs): Promise<ProofResult> {
  let out;
  try {
    const snarkjs = await import('snarkjs'); // loaded by the first proof, not at start-up
    out = await snarkjs.groth16.fullProve(inputs, key.wasmPath, key.zkeyPath);
  } catch (e) {
    const msg = (e as Error).message ?? String(e);
    throw new ProofGenerationError(`${key.shape.name}: the inputs do not satisfy the circuit (${msg.split('\n')[0]})`, {
      cause: e,
    });
  }
  const points = fromSnarkjs(out.proof);
  return {
    points,
    compressed: compressProof(points),
    raw: toRaw(points),
    publicSignals: out.publicSignals.map((s) => BigInt(s)),
  };
}
