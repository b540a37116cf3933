// Address lookup tables: bincode ProgramState metadata in the first 56 bytes, then raw addresses.
import { encodeBase58 } from '../../../zk/base58.js';
import { DecodeError, Reader } from './reader.js';

const LOOKUP_TABLE_META_SIZE = 56;

export function parseAddressLookupTable(data: Uint8Array): unknown {
  const r = new Reader(data);
  const tag = r.u32();
  if (tag === 0) return { type: 'uninitialized' };
  if (tag !== 1) throw new DecodeError('unknown lookup table state');
  const deactivationSlot = r.u64();
  const lastExtendedSlot = r.u64();
  const lastExtendedSlotStartIndex = r.u8();
  const authority = r.option(() => r.pubkey());
  r.u16(); // padding, read by bincode all the same
  // The addresses always start at the fixed metadata size, whatever bincode consumed.
  if (data.length < LOOKUP_TABLE_META_SIZE || (data.length - LOOKUP_TABLE_META_SIZE) % 32 !== 0) {
    throw new DecodeError('lookup table addresses are not whole pubkeys');
  }
  const addresses: string[] = [];
  for (let at = LOOKUP_TABLE_META_SIZE; at < data.length; at += 32)
    addresses.push(encodeBase58(data.subarray(at, at + 32)));
  const info: Record<string, unknown> = {
    deactivationSlot: deactivationSlot.toString(),
    lastExtendedSlot: lastExtendedSlot.toString(),
    lastExtendedSlotStartIndex,
  };
  if (authority !== null) info.authority = authority;
  info.addresses = addresses;
  return { type: 'lookupTable', info };
}
