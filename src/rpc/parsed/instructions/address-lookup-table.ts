// The address lookup table program (Agave's parse_address_lookup_table): bincode, u32 variant tag.
import { type Info, type Parsed, Reader, checkAccounts, fail, int, key as k, requireAnyAccount } from './common.js';

export function parseAddressLookupTable(a: readonly string[], data: Uint8Array): Parsed {
  const r = new Reader(data);
  const tag = r.u32();
  switch (tag) {
    case 0: {
      const recentSlot = int(r.u64());
      const bumpSeed = r.u8();
      requireAnyAccount(a);
      checkAccounts(a, 4);
      const info = {
        lookupTableAccount: k(a, 0),
        lookupTableAuthority: k(a, 1),
        payerAccount: k(a, 2),
        systemProgram: k(a, 3),
        recentSlot,
        bumpSeed,
      };
      return { type: 'createLookupTable', info };
    }
    case 2: {
      const newAddresses = r.vec(() => r.pubkey(), 32);
      requireAnyAccount(a);
      checkAccounts(a, 2);
      const info: Info = { lookupTableAccount: k(a, 0), lookupTableAuthority: k(a, 1), newAddresses };
      // The payer and system program come only when the table must grow.
      if (a.length >= 4) {
        info.payerAccount = k(a, 2);
        info.systemProgram = k(a, 3);
      }
      return { type: 'extendLookupTable', info };
    }
    case 1:
    case 3:
    case 4: {
      requireAnyAccount(a);
      const type = tag === 1 ? 'freezeLookupTable' : tag === 3 ? 'deactivateLookupTable' : 'closeLookupTable';
      checkAccounts(a, tag === 4 ? 3 : 2);
      const info: Info = { lookupTableAccount: k(a, 0), lookupTableAuthority: k(a, 1) };
      if (tag === 4) info.recipient = k(a, 2);
      return { type, info };
    }
    default:
      return fail();
  }
}
