import { base58 } from '@scure/base';
import { bigIntToBytes32, bytesToBigInt } from './field.js';

export const encodeBase58 = (bytes: Uint8Array): string => base58.encode(bytes);
export const decodeBase58 = (s: string): Uint8Array => base58.decode(s);

/** A 32-byte base58 value (hash, pubkey) as a field element / integer. */
export function base58ToBigInt(s: string): bigint {
  const bytes = base58.decode(s);
  if (bytes.length !== 32) throw new RangeError(`expected 32 bytes, ${JSON.stringify(s)} decodes to ${bytes.length}`);
  return bytesToBigInt(bytes);
}

export const bigIntToBase58 = (v: bigint): string => base58.encode(bigIntToBytes32(v));
