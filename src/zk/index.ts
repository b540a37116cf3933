// The validity-proof core: hashing, circuits, keys, proofs. See the modules for details.
import { stopCompilers } from './compile.js';
import { closeSetupWorkers } from './setup/dev-setup.js';

export * from './field.js';
export { loadPoseidon, poseidon } from './poseidon.js';
export { hashToBn254, hashToBn254Field, hashvToBn254 } from './hash-to-field.js';
export { publicInputHash, twoInputsHashChain } from './hash-chain.js';
export { compressedAccountHash, deriveAddressV1, deriveAddressV2 } from './account.js';
export { findProgramAddress } from './pda.js';
export { base58ToBigInt, bigIntToBase58, decodeBase58, encodeBase58 } from './base58.js';
export {
  ALL_SHAPES,
  BATCH_SHAPES,
  SHAPES,
  batchShape,
  findShape,
  isBatchShape,
  shapeByName,
  publicInputNames,
  type BatchFamily,
  type Shape,
  type CircuitFamily,
} from './shapes.js';
export { compileShape, sourcesHash, stopCompilers } from './compile.js';
export {
  KeyStore,
  KeyError,
  DEFAULT_DEV_SEED,
  solanaVerifyingKey,
  solanaVerifyingKeyBytes,
  type SolanaVerifyingKeyBytes,
  type KeyEntry,
  type KeyListing,
  type ProvingKey,
} from './keys.js';
export {
  circuitInputs,
  inclusionWitness,
  nonInclusionWitness,
  publicInputs,
  type CircuitInputs,
  type InclusionWitness,
  type NonInclusionWitness,
} from './inputs.js';
export { proveWithSnarkjs, ProofGenerationError, type ProofResult } from './prove.js';
export * from './proof-format.js';
export { verifyGroth16, type SnarkjsVerificationKey } from './verify.js';
export { devSetup, deriveToxicWaste, rootOfUnity } from './setup/dev-setup.js';

/** Stops the worker threads of the setup and of snarkjs' curve so the process can exit. */
export async function shutdownZk(): Promise<void> {
  stopCompilers();
  await closeSetupWorkers();
  // snarkjs shares one multi-threaded curve per process (ffjavascript caches it on globalThis);
  // its terminate() also clears that cache, so a later proof builds a fresh one.
  const curve = (globalThis as { curve_bn128?: { terminate(): Promise<void> } | null }).curve_bn128;
  await curve?.terminate();
}
