// A compressed transfer whose proof zkgate made with Light's own key is verified by Light's own
// system program as Light shipped it (the 0.27.0 package's file, byte for byte, not patched): the
// transfer lands and the balances move to the lamport; the same transfer with another account's
// proof (other public inputs) is refused with Light's ProofVerificationFailed (6043).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ComputeBudgetProgram, Keypair, PublicKey, type VersionedTransaction } from '@solana/web3.js';
import {
  buildAndSignTx,
  compress,
  confirmTx,
  createRpc,
  LightSystemProgram,
  merkletreePubkey,
  sendAndConfirmTx,
  type CompressedAccountWithMerkleContext,
  type Rpc,
} from '@lightprotocol/stateless.js';
import { LIGHT_SYSTEM_PROGRAM_FILE, LIGHT_SYSTEM_PROGRAM_ID } from '../../src/ledger/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { lightPackage } from '../helpers/light-package.js';

let gw: TestGateway;
let rpc: Rpc;
let shipped: Buffer;

before(async () => {
  const pkg = await lightPackage();
  shipped = readFileSync(join(pkg.bin, LIGHT_SYSTEM_PROGRAM_FILE));
  gw = await startTestGateway(
    { provingKeys: 'light', lightKeys: [join(pkg.keys, 'mainnet_inclusion_26_1.key')] },
    {},
    // A data dir of its own: Light's key imported into the shared key cache would serve every test.
    { prover: true, ledger: true, linkKeys: false },
  );
  rpc = createRpc(gw.url, gw.url);
});
after(() => gw?.stop());

async function spend(
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

test(
  "Light's 0.27.0 system program, unpatched, verifies zkgate's proof made with Light's key",
  { timeout: 600_000 },
  async () => {
    const chain = gw.gateway.chain!;
    const payer = Keypair.generate();
    await confirmTx(rpc, await rpc.requestAirdrop(payer.publicKey, 10_000_000_000));
    const smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
    await compress(rpc, payer, 1_000_000_000, payer.publicKey, smt1);
    await compress(rpc, payer, 2_000_000_000, payer.publicKey, smt1);
    const { items } = await rpc.getCompressedAccountsByOwner(payer.publicKey);
    const a = items.find((x) => x.lamports.toString() === '1000000000')!;
    const b = items.find((x) => x.lamports.toString() === '2000000000')!;

    const good = await spend(payer, a, a);
    const other = await spend(payer, a, b);
    // From here on the system program is Light's file as shipped (the proofs above are made).
    chain.ledger.deployProgram(LIGHT_SYSTEM_PROGRAM_ID, shipped);
    assert.deepEqual(
      (await rpc.simulateTransaction(other)).value.err,
      { InstructionError: [1, { Custom: 6043 }] },
      "another account's proof: Light's ProofVerificationFailed",
    );
    assert.equal((await rpc.simulateTransaction(good)).value.err, null);
    await sendAndConfirmTx(rpc, good);
    assert.equal((await rpc.getCompressedBalanceByOwner(payer.publicKey)).toString(), '2900000000');
  },
);
