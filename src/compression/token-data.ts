// Compressed-token accounts: a compressed account owned by the compressed-token program whose data
// discriminator marks token data (V1 [2,0,…], V2 […,3], SHA-flat […,4]) holds borsh TokenData:
// mint, owner, amount u64, delegate Option<Pubkey>, state u8 (0 initialized, 1 frozen), then an
// optional TLV, which Photon reports as the base64 of the raw bytes after its Some tag.
import { LIGHT_IDS } from '../ledger/index.js';
import { decodeBase58 } from '../zk/base58.js';
import { BorshReader } from '../util/borsh.js';
import type { CompressedAccountBody } from './instructions.js';

const TOKEN_PROGRAM = Buffer.from(decodeBase58(LIGHT_IDS.compressedToken));
const TOKEN_DISCRIMINATORS = ['0200000000000000', '0000000000000003', '0000000000000004'];

export interface TokenData {
  mint: Uint8Array;
  owner: Uint8Array;
  amount: bigint;
  delegate: Uint8Array | null;
  state: 'initialized' | 'frozen';
  tlv: Uint8Array | null;
}

/** The token data of a compressed account, or undefined when it is not a token account (or malformed). */
export function parseTokenData(a: CompressedAccountBody): TokenData | undefined {
  if (!a.data || !TOKEN_PROGRAM.equals(a.owner)) return undefined;
  if (!TOKEN_DISCRIMINATORS.includes(Buffer.from(a.data.discriminator).toString('hex'))) return undefined;
  try {
    const r = new BorshReader(a.data.data);
    const mint = r.fixed(32);
    const owner = r.fixed(32);
    const amount = r.u64();
    const delegate = r.option(() => r.fixed(32));
    const state = r.u8();
    if (state > 1) return undefined;
    let tlv: Uint8Array | null = null;
    if (r.remaining > 1 && r.u8() === 1) tlv = r.fixed(r.remaining);
    return { mint, owner, amount, delegate, state: state === 1 ? 'frozen' : 'initialized', tlv };
  } catch {
    return undefined;
  }
}
