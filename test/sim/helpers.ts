// Real transactions built with @solana/kit (and the system program client), as wire base64.
import {
  appendTransactionMessageInstruction,
  blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';

export { generateKeyPairSigner, type KeyPairSigner };

export async function transfer(
  from: KeyPairSigner,
  to: Address,
  amount: bigint,
  recent: { blockhash: string; lastValidBlockHeight: bigint },
  version: 0 | 'legacy' = 0,
): Promise<string> {
  const msg = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayerSigner(from, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash(recent.blockhash), lastValidBlockHeight: recent.lastValidBlockHeight },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        getTransferSolInstruction({ source: from, destination: to, amount: lamports(amount) }),
        m,
      ),
  );
  return getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(msg));
}
