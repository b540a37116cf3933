// Address → signatures, newest first (getSignaturesForAddress): written in the LMDB transaction
// that records the transaction. Keys order by address, then slot and position in the slot, both
// descending, so a forward range read is Agave's order.
import type { Database, RootDatabase } from 'lmdb';
import { prefixRange } from './key-range.js';

const MAX_U64 = 0xffff_ffff_ffff_ffffn;
const MAX_U32 = 0xffff_ffff;

export interface SignaturePage {
  limit: number;
  before?: Uint8Array;
  until?: Uint8Array;
}

export class SignatureIndex {
  private readonly byAddress: Database<Buffer, Buffer>;
  /** signature → its place (inverted slot ‖ inverted position), to start a page after it. */
  private readonly place: Database<Buffer, Buffer>;
  /** slot ‖ position → signature: the transactions of each block, in execution order. */
  private readonly bySlot: Database<Buffer, Buffer>;
  private slot = -1n;
  private position = 0;

  constructor(root: RootDatabase) {
    const bin = { keyEncoding: 'binary', encoding: 'binary' } as const;
    this.byAddress = root.openDB<Buffer, Buffer>({ name: 'idx-address-signatures-v1', ...bin });
    this.place = root.openDB<Buffer, Buffer>({ name: 'idx-signature-place-v1', ...bin });
    this.bySlot = root.openDB<Buffer, Buffer>({ name: 'idx-slot-signatures-v1', ...bin });
  }

  /**
   * Call inside the LMDB transaction that records the transaction; `inBlock` for real transactions
   * (an airdrop is the faucet's credit, listed for its address but in no block).
   */
  record(signature: Uint8Array, slot: bigint, addresses: readonly Uint8Array[], inBlock: boolean): number {
    if (slot !== this.slot) {
      this.slot = slot;
      // After a restart inside a slot, go on after what that slot holds already.
      this.position = this.slotSignatures(slot).length;
    }
    const position = this.position++;
    const place = Buffer.alloc(12);
    place.writeBigUInt64BE(MAX_U64 - slot, 0);
    place.writeUInt32BE(MAX_U32 - position, 8);
    if (inBlock) {
      const at = Buffer.alloc(12);
      at.writeBigUInt64BE(slot, 0);
      at.writeUInt32BE(position, 8);
      this.bySlot.put(at, Buffer.from(signature));
    }
    this.place.put(Buffer.from(signature), place);
    const seen = new Set<string>();
    for (const a of addresses) {
      const hex = Buffer.from(a).toString('hex');
      if (seen.has(hex)) continue;
      seen.add(hex);
      this.byAddress.put(Buffer.concat([a, place, signature]), Buffer.alloc(0));
    }
    return position;
  }

  /** Where a recorded transaction sits: its slot and its position in the slot. */
  placeOf(signature: Uint8Array): { slot: bigint; position: number } | undefined {
    const place = this.place.get(Buffer.from(signature));
    return place && { slot: MAX_U64 - place.readBigUInt64BE(0), position: MAX_U32 - place.readUInt32BE(8) };
  }

  /** The transactions of a slot's block, in execution order. */
  slotSignatures(slot: bigint): Uint8Array[] {
    const start = Buffer.alloc(8);
    start.writeBigUInt64BE(slot, 0);
    const end = Buffer.alloc(8);
    end.writeBigUInt64BE(slot + 1n, 0);
    return [...this.bySlot.getRange({ start, end })].map((e) => new Uint8Array(e.value));
  }

  /** The newest `limit` transactions of the blocks, newest first. */
  latest(limit: number): Uint8Array[] {
    return [...this.bySlot.getRange({ reverse: true, limit })].map((e) => new Uint8Array(e.value));
  }

  /** Signatures that touched `address`, newest first, after `before` and down to (not including) `until`. */
  signatures(address: Uint8Array, page: SignaturePage): Uint8Array[] {
    const prefix = Buffer.from(address);
    const beforePlace = page.before && this.place.get(Buffer.from(page.before));
    // A `before` signature this ledger never saw: nothing is older than an unknown point (Agave: empty).
    if (page.before && !beforePlace) return [];
    const start = beforePlace
      ? Buffer.concat([prefix, beforePlace, Buffer.from(page.before!), Buffer.from([0])])
      : prefix;
    const untilKey = page.until && this.place.get(Buffer.from(page.until));
    const end = untilKey ? Buffer.concat([prefix, untilKey, Buffer.from(page.until!)]) : prefixRange(prefix).end;
    const out: Uint8Array[] = [];
    const range = end ? { start, end, limit: page.limit } : { start, limit: page.limit };
    for (const k of this.byAddress.getKeys(range)) out.push(new Uint8Array((k as Buffer).subarray(44)));
    return out;
  }
}
