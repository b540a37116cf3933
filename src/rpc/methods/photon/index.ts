// Photon's indexer API (compression-e2e.md §4), one file per family; getValidityProof(V2) lives
// in get-validity-proof.ts.
import type { Backends } from '../backends.js';
import type { MethodDef } from '../types.js';
import { accountMethods } from './accounts.js';
import { indexerMethods } from './indexer.js';
import { proofMethods } from './proofs.js';
import { signatureMethods } from './signatures.js';
import { tokenMethods } from './tokens.js';
import { transactionMethods } from './transactions.js';

export function photonMethods(backends: Backends): MethodDef[] {
  return [
    ...accountMethods(backends),
    ...tokenMethods(backends),
    ...proofMethods(backends),
    ...signatureMethods(backends),
    ...transactionMethods(backends),
    ...indexerMethods(backends),
  ];
}
