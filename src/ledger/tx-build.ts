// Legacy transactions built and signed in-process (zkgate's own forester): the message compiled
// from instructions as Solana's SDKs compile it (fee payer first; signers, then writables, first)
// and signed with ed25519.
import { ed25519 } from '@noble/curves/ed25519.js';
import { shortvec } from './tx-wire.js';

export interface AccountMeta {
  pubkey: Uint8Array;
  isSigner: boolean;
  isWritable: boolean;
}

export interface Instruction {
  programId: Uint8Array;
  keys: AccountMeta[];
  data: Uint8Array;
}

/** An ed25519 keypair in Solana's 64-byte layout: seed ‖ public key. */
export interface Keypair {
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

export function keypairFromSecret(secretKey: Uint8Array): Keypair {
  if (secretKey.length !== 64) throw new RangeError(`a keypair is 64 bytes, got ${secretKey.length}`);
  const publicKey = ed25519.getPublicKey(secretKey.subarray(0, 32));
  if (!Buffer.from(publicKey).equals(Buffer.from(secretKey.subarray(32))))
    throw new RangeError('the keypair’s public key does not match its secret key');
  return { publicKey, secretKey: new Uint8Array(secretKey) };
}

export function generateKeypair(): Keypair {
  const seed = ed25519.utils.randomSecretKey();
  const publicKey = ed25519.getPublicKey(seed);
  const secretKey = new Uint8Array(64);
  secretKey.set(seed);
  secretKey.set(publicKey, 32);
  return { publicKey, secretKey };
}

/** The legacy message of `instructions` with `payer` paying. */
export function compileMessage(
  payer: Uint8Array,
  instructions: readonly Instruction[],
  blockhash: Uint8Array,
): Uint8Array {
  const metas = new Map<string, AccountMeta>();
  const add = (m: AccountMeta) => {
    const k = Buffer.from(m.pubkey).toString('hex');
    const cur = metas.get(k);
    metas.set(
      k,
      cur
        ? { pubkey: cur.pubkey, isSigner: cur.isSigner || m.isSigner, isWritable: cur.isWritable || m.isWritable }
        : { ...m },
    );
  };
  add({ pubkey: payer, isSigner: true, isWritable: true });
  for (const ix of instructions) {
    for (const k of ix.keys) add(k);
    add({ pubkey: ix.programId, isSigner: false, isWritable: false });
  }
  const [first, ...rest] = [...metas.values()];
  const rank = (m: AccountMeta) => (m.isSigner ? 0 : 2) + (m.isWritable ? 0 : 1);
  const keys = [
    first!,
    ...rest
      .map((m, i) => ({ m, i }))
      .sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i)
      .map((x) => x.m),
  ];
  const index = new Map(keys.map((m, i) => [Buffer.from(m.pubkey).toString('hex'), i]));
  const at = (k: Uint8Array) => index.get(Buffer.from(k).toString('hex'))!;
  const bytes: number[] = [
    keys.filter((m) => m.isSigner).length,
    keys.filter((m) => m.isSigner && !m.isWritable).length,
    keys.filter((m) => !m.isSigner && !m.isWritable).length,
    ...shortvec(keys.length),
  ];
  for (const m of keys) bytes.push(...m.pubkey);
  bytes.push(...blockhash, ...shortvec(instructions.length));
  for (const ix of instructions) {
    bytes.push(at(ix.programId), ...shortvec(ix.keys.length), ...ix.keys.map((k) => at(k.pubkey)));
    bytes.push(...shortvec(ix.data.length), ...ix.data);
  }
  return Uint8Array.from(bytes);
}

/** A signed legacy transaction: `signers` must hold every signer of the message, the payer first. */
export function signTransaction(
  instructions: readonly Instruction[],
  signers: readonly Keypair[],
  blockhash: Uint8Array,
): Uint8Array {
  const payer = signers[0];
  if (!payer) throw new RangeError('a transaction needs a fee payer');
  const message = compileMessage(payer.publicKey, instructions, blockhash);
  const nSigners = message[0]!;
  const keyAt = (i: number) => message.subarray(4 + 32 * i, 4 + 32 * (i + 1));
  const sigs: Uint8Array[] = [];
  for (let i = 0; i < nSigners; i++) {
    const key = keyAt(i);
    const kp = signers.find((s) => Buffer.from(s.publicKey).equals(Buffer.from(key)));
    if (!kp) throw new RangeError(`no keypair for signer ${i} of the transaction`);
    sigs.push(ed25519.sign(message, kp.secretKey.subarray(0, 32)));
  }
  return Uint8Array.from([...shortvec(nSigners), ...sigs.flatMap((s) => [...s]), ...message]);
}
