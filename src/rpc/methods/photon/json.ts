// Photon's response shapes (its api.yaml and serde structs, key order included): accounts V1/V2,
// token data, merkle contexts, signatures, cursors. u64 values are exact JSON integers.
import type { AccountRecord, SignatureEntry, TokenData } from '../../../compression/index.js';
import { encodeBase58 } from '../../../zk/base58.js';
import { u64 } from '../../../wire/index.js';

export const b58 = (b: Uint8Array): string => encodeBase58(b);
/** Photon's placeholder for an absent pubkey or hash: 32 zero bytes. */
export const ZERO_KEY = '11111111111111111111111111111111';

const dataJson = (d: AccountRecord['data']) =>
  d && {
    // Photon reads the 8 discriminator bytes as a little-endian u64.
    discriminator: u64(Buffer.from(d.discriminator).readBigUInt64LE()),
    data: Buffer.from(d.data).toString('base64'),
    dataHash: b58(d.dataHash),
  };

export function accountV1(a: AccountRecord) {
  return {
    hash: b58(a.hash),
    address: a.address && b58(a.address),
    data: dataJson(a.data),
    owner: b58(a.owner),
    lamports: u64(a.lamports),
    tree: a.tree,
    leafIndex: a.leafIndex,
    seq: a.seq === null ? null : u64(a.seq),
    slotCreated: u64(a.slotCreated),
  };
}

export const merkleContext = (a: { treeType: number; tree: string; queue: string }) => ({
  treeType: a.treeType,
  tree: a.tree,
  queue: a.queue,
  cpiContext: null,
  nextTreeContext: null,
});

export function accountV2(a: AccountRecord) {
  return {
    hash: b58(a.hash),
    address: a.address && b58(a.address),
    data: dataJson(a.data),
    owner: b58(a.owner),
    lamports: u64(a.lamports),
    leafIndex: a.leafIndex,
    seq: a.seq === null ? null : u64(a.seq),
    slotCreated: u64(a.slotCreated),
    proveByIndex: a.inOutputQueue,
    merkleContext: merkleContext(a),
  };
}

/** A data slice of the returned `data.data` (Photon's dataSlice: offset past the end gives empty). */
export function sliced(a: AccountRecord, slice: { offset: number; length: number } | undefined): AccountRecord {
  if (!slice || !a.data) return a;
  return { ...a, data: { ...a.data, data: a.data.data.subarray(slice.offset, slice.offset + slice.length) } };
}

export const tokenDataJson = (t: TokenData) => ({
  mint: b58(t.mint),
  owner: b58(t.owner),
  amount: u64(t.amount),
  delegate: t.delegate && b58(t.delegate),
  state: t.state,
  tlv: t.tlv && Buffer.from(t.tlv).toString('base64'),
});

export const signatureJson = (s: SignatureEntry) => ({
  signature: b58(s.signature),
  slot: u64(s.slot),
  blockTime: s.blockTime,
});

export const signatureWithErrorJson = (s: SignatureEntry) => ({ ...signatureJson(s), error: s.error });

/** Signature cursors: base58(slot u64 LE ‖ signature), the last item's. */
export function signatureCursor(items: SignatureEntry[], limit: number): string | null {
  const last = items[items.length - 1];
  if (!last || items.length < limit) return null;
  const b = Buffer.alloc(72);
  b.writeBigUInt64LE(last.slot);
  b.set(last.signature, 8);
  return b58(b);
}
