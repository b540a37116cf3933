// A compressed SOL transfer as stateless.js's transfer() builds it, with each input's proveByIndex
// taken from the validity proof's answer rather than from the account listing.
//
// transfer() lists the owner's accounts (each with proveByIndex) and asks for the validity proof
// in a second call. When the forester appends an account's batch between the two, the proof is
// for the tree (compressedProof set) while the listing still says "by index", and Light's system
// program refuses the pair (6018 ProofIsSome). Any indexer with a forester has that window
// (Photon's too); zkgate's sustained forester load, with a batch appended every few transfers, met it
// about once in 5,000 transfers. The library's own pieces, unmodified, in the order a careful
// client uses them.
import { ComputeBudgetProgram, Keypair, type PublicKey, type VersionedTransaction } from '@solana/web3.js';
import {
  buildAndSignTx,
  LightSystemProgram,
  selectMinCompressedSolAccountsForTransfer,
  sendAndConfirmTx,
  type CompressedAccountWithMerkleContext,
  type Rpc,
} from '@lightprotocol/stateless.js';

export async function transferCompressed(
  rpc: Rpc,
  payer: Keypair,
  lamports: number,
  owner: Keypair,
  to: PublicKey,
): Promise<string> {
  const accounts = (await rpc.getCompressedAccountsByOwner(owner.publicKey)).items.filter((a) => a.lamports.gtn(0));
  const [inputs] = selectMinCompressedSolAccountsForTransfer(accounts, lamports);
  const proof = await rpc.getValidityProofV0(
    inputs.map((a) => ({ hash: a.hash, tree: a.treeInfo.tree, queue: a.treeInfo.queue })),
  );
  const ix = await LightSystemProgram.transfer({
    payer: payer.publicKey,
    inputCompressedAccounts: inputs.map((a, i) => ({ ...a, proveByIndex: proof.proveByIndices[i]! })),
    toAddress: to,
    lamports,
    recentInputStateRootIndices: proof.rootIndices,
    recentValidityProof: proof.compressedProof,
  });
  const { blockhash } = await rpc.getLatestBlockhash();
  // transfer()'s compute budget.
  const tx = buildAndSignTx([ComputeBudgetProgram.setComputeUnitLimit({ units: 350_000 }), ix], payer, blockhash);
  return sendAndConfirmTx(rpc, tx);
}

/**
 * A signed transfer of 0.1 SOL out of `input` carrying the validity proof of `proofOf`'s hash (the
 * same account for a valid transfer; another for one whose proof is of other public inputs).
 */
export async function transferWithProofOf(
  rpc: Rpc,
  payer: Keypair,
  input: CompressedAccountWithMerkleContext,
  proofOf: CompressedAccountWithMerkleContext,
): Promise<VersionedTransaction> {
  const proof = await rpc.getValidityProof([proofOf.hash]);
  const ix = await LightSystemProgram.transfer({
    payer: payer.publicKey,
    inputCompressedAccounts: [input],
    toAddress: Keypair.generate().publicKey,
    lamports: 100_000_000,
    recentInputStateRootIndices: proof.rootIndices,
    recentValidityProof: proof.compressedProof,
  });
  const { blockhash } = await rpc.getLatestBlockhash();
  return buildAndSignTx([ComputeBudgetProgram.setComputeUnitLimit({ units: 1_000_000 }), ix], payer, blockhash);
}
