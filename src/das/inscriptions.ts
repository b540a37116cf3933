// libreplex Inscriptions accounts (get-asset.md §1.3 `showInscription`): the inscription of a mint
// (its "root"), shown by getAsset with `showInscription`.
import { Cursor } from './layouts.js';

export const INSCRIPTIONS_PROGRAM = 'inscokhJarcjaEs59QbQ7hYjrKz25LEPRfCbP8EmdUp';

// Anchor's discriminator of the `Inscription` account.
const DISCRIMINATOR = Buffer.from([232, 120, 205, 47, 153, 239, 229, 224]);

/** The fields in the order getAsset returns them; `order` is a u64 kept as a decimal string. */
export interface Inscription {
  authority: string;
  root: string;
  inscription_data: string;
  content: string;
  encoding: string;
  order: string;
  size: number;
  validation_hash: string | null;
}

export function parseInscription(data: Uint8Array): Inscription | undefined {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf.length < 8 || !buf.subarray(0, 8).equals(DISCRIMINATOR)) return undefined;
  const c = new Cursor(buf);
  c.offset = 8;
  try {
    const authority = c.pubkey();
    const root = c.pubkey();
    const inscriptionData = c.pubkey();
    const order = c.u64();
    const size = c.u32();
    const content = c.string();
    const encoding = c.string();
    const validationHash = c.option(() => c.string());
    return {
      authority,
      root,
      inscription_data: inscriptionData,
      content,
      encoding,
      order,
      size,
      validation_hash: validationHash,
    };
  } catch {
    return undefined;
  }
}
