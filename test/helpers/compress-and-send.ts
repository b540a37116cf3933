// The smallest ZK-compression flow through the unmodified stateless.js, on a gateway's ledger: a
// payer funded with 5 SOL compresses 1 SOL into Light's V1 tree smt1, then sends bob 0.25 SOL
// compressed (a transfer whose validity proof the gateway makes). Tests check the balances.
import { Keypair, PublicKey } from '@solana/web3.js';
import { compress, confirmTx, merkletreePubkey, transfer, type Rpc } from '@lightprotocol/stateless.js';

export async function compressAndSend(rpc: Rpc): Promise<{ payer: Keypair; bob: Keypair }> {
  const payer = Keypair.generate();
  const bob = Keypair.generate();
  await confirmTx(rpc, await rpc.requestAirdrop(payer.publicKey, 5_000_000_000));
  const smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
  await compress(rpc, payer, 1_000_000_000, payer.publicKey, smt1);
  await transfer(rpc, payer, 250_000_000, payer, bob.publicKey);
  return { payer, bob };
}
