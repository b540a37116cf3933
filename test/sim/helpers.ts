// Real transactions built with @solana/kit (and the system program client), as wire base64.
import {
  appendTransactionMessageInstruction,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
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

/** A v0 (or legacy) transaction of arbitrary instructions, optionally compressed with lookup tables. */
export async function transaction(
  payer: KeyPairSigner,
  instructions: Parameters<typeof appendTransactionMessageInstructions>[0],
  recent: { blockhash: string; lastValidBlockHeight: bigint },
  lookupTables: Record<string, Address[]> = {},
): Promise<string> {
  const msg = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash(recent.blockhash), lastValidBlockHeight: recent.lastValidBlockHeight },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
    (m) => compressTransactionMessageUsingAddressLookupTables(m, lookupTables as never),
  );
  return getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(msg));
}

/** An account file in solana-test-validator's --account JSON format. */
export function accountFile(
  pubkey: string,
  a: { lamports: bigint; data: Uint8Array; owner: string; executable?: boolean; rentEpoch?: bigint },
): string {
  return (
    `{"pubkey":"${pubkey}","account":{"lamports":${a.lamports},"data":["${Buffer.from(a.data).toString('base64')}","base64"],` +
    `"owner":"${a.owner}","executable":${a.executable ?? false},"rentEpoch":${a.rentEpoch ?? 0n},"space":${a.data.length}}}`
  );
}
