// Program-derived addresses (Solana's find_program_address): the first bump from 255 down whose
// sha256(seeds ‖ bump ‖ program ‖ "ProgramDerivedAddress") is not a point on ed25519.
import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { decodeBase58, encodeBase58 } from './base58.js';

function onCurve(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromHex(Buffer.from(bytes).toString('hex'));
    return true;
  } catch {
    return false;
  }
}

export function findProgramAddress(seeds: readonly Uint8Array[], program: string): string {
  const programBytes = decodeBase58(program);
  for (let bump = 255; bump >= 0; bump--) {
    const h = createHash('sha256');
    for (const s of seeds) h.update(s);
    h.update(Uint8Array.of(bump)).update(programBytes).update('ProgramDerivedAddress');
    const out = h.digest();
    if (!onCurve(out)) return encodeBase58(out);
  }
  throw new Error('no program address found');
}
