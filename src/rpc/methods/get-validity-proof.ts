// getValidityProof / getValidityProofV2 (Photon): params are a named object; unknown fields are
// rejected as Photon's serde `deny_unknown_fields` does. Spec: validity-proof.md §1.
import { BackendNotConfiguredError } from '../errors.js';
import { array, object, optional, required, string, type Infer } from '../validate.js';
import type { Backends } from './backends.js';
import { defineMethod, type MethodDef } from './types.js';

const addressWithTree = object({ address: required(string), tree: required(string) }, 'deny');

export const validityProofParams = object(
  {
    hashes: optional(array(string, 'an array of base58 hashes')),
    newAddresses: optional(array(string, 'an array of base58 addresses')),
    newAddressesWithTrees: optional(array(addressWithTree, 'an array of {address, tree} objects')),
  },
  'deny',
);
export type ValidityProofParams = Infer<typeof validityProofParams>;

export const validityProofV2Params = object(
  {
    hashes: optional(array(string, 'an array of base58 hashes')),
    newAddressesWithTrees: optional(array(addressWithTree, 'an array of {address, tree} objects')),
  },
  'deny',
);
export type ValidityProofV2Params = Infer<typeof validityProofV2Params>;

const notConfigured = (method: string) => new BackendNotConfiguredError(method, 'validity-proof (prover)');

export function validityProofMethods(backends: Backends): MethodDef[] {
  return [
    defineMethod({
      name: 'getValidityProof',
      params: validityProofParams,
      call: (p) => {
        if (!backends.validityProof) throw notConfigured('getValidityProof');
        return backends.validityProof.getValidityProof(p);
      },
    }),
    defineMethod({
      name: 'getValidityProofV2',
      params: validityProofV2Params,
      call: (p) => {
        if (!backends.validityProof) throw notConfigured('getValidityProofV2');
        return backends.validityProof.getValidityProofV2(p);
      },
    }),
  ];
}
