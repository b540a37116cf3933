// ed25519 signature checks with node:crypto: every signer's signature over the message bytes.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { ParsedTransaction } from './tx-wire.js';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const keyCache = new Map<string, KeyObject>();

function publicKey(raw: Uint8Array): KeyObject {
  const id = Buffer.from(raw).toString('hex');
  let k = keyCache.get(id);
  if (!k) {
    k = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    if (keyCache.size > 10_000) keyCache.clear();
    keyCache.set(id, k);
  }
  return k;
}

export function verifySignatures(tx: ParsedTransaction): boolean {
  return tx.signatures.every((sig, i) => {
    try {
      return verify(null, tx.message, publicKey(tx.staticKeys[i]!), sig);
    } catch {
      return false;
    }
  });
}
