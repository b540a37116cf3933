// System-program accounts: only durable nonce accounts have a parsed form ("nonce").
import { DecodeError, Reader } from './reader.js';

export function parseNonce(data: Uint8Array): unknown {
  const r = new Reader(data);
  // nonce::Versions { Legacy, Current } wraps the same State; the version only matters on chain.
  const version = r.u32();
  if (version > 1) throw new DecodeError('unknown nonce version');
  const state = r.u32();
  // Agave refuses Uninitialized rather than reporting it: any allocated system account full of
  // zeros would otherwise show up as an uninitialized nonce.
  if (state !== 1) return undefined;
  const authority = r.pubkey();
  const blockhash = r.pubkey();
  const lamportsPerSignature = r.u64();
  return {
    type: 'initialized',
    info: { authority, blockhash, feeCalculator: { lamportsPerSignature: lamportsPerSignature.toString() } },
  };
}
