// Token-2022 mint extensions (get-asset.md §2.13): the TLV entries after a mint's account-type
// byte (165), as `mint_extensions` shows them: snake_case keys, pubkeys in base58, an all-zero
// optional pubkey as null. Extensions whose wire form zkgate cannot vouch for (the confidential
// transfer ones, default account state, non-transferable) are left out rather than guessed.
import { Cursor } from './layouts.js';

type Ext = Record<string, unknown>;

/**
 * u64 values beyond 2^53 are kept as `{$u64: "<digits>"}` in the stored record (the store's
 * encoding has no exact big integers) and turned back into bigints when answered: see `u64Values`.
 */
const num = (digits: string): number | { $u64: string } => {
  const v = BigInt(digits);
  return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : { $u64: digits };
};

/** A stored extensions object with its `{$u64}` placeholders as exact bigints. */
export function u64Values(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(u64Values);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.$u64 === 'string' && Object.keys(o).length === 1) return BigInt(o.$u64);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, u64Values(x)]));
  }
  return v;
}

const fee = (r: Cursor) => ({ epoch: num(r.u64()), maximum_fee: num(r.u64()), transfer_fee_basis_points: r.u16() });

/** Decoders by extension type number; each gets the value bytes of its entry. */
const DECODERS: Record<number, [string, (r: Cursor, len: number) => unknown]> = {
  1: [
    'transfer_fee_config',
    (r) => ({
      transfer_fee_config_authority: r.optionalNonZeroPubkey(),
      withdraw_withheld_authority: r.optionalNonZeroPubkey(),
      withheld_amount: num(r.u64()),
      older_transfer_fee: fee(r),
      newer_transfer_fee: fee(r),
    }),
  ],
  3: ['mint_close_authority', (r) => ({ close_authority: r.optionalNonZeroPubkey() })],
  10: [
    'interest_bearing_config',
    (r) => ({
      rate_authority: r.optionalNonZeroPubkey(),
      initialization_timestamp: num(r.i64()),
      pre_update_average_rate: r.i16(),
      last_update_timestamp: num(r.i64()),
      current_rate: r.i16(),
    }),
  ],
  12: ['permanent_delegate', (r) => ({ delegate: r.optionalNonZeroPubkey() })],
  14: ['transfer_hook', (r) => ({ authority: r.optionalNonZeroPubkey(), program_id: r.optionalNonZeroPubkey() })],
  18: [
    'metadata_pointer',
    (r) => {
      r.optionalNonZeroPubkey(); // authority: not shown by the reference
      return { metadata_address: r.optionalNonZeroPubkey() };
    },
  ],
  19: [
    'metadata',
    (r) => {
      const update_authority = r.optionalNonZeroPubkey();
      const mint = r.pubkey();
      const name = r.string();
      const symbol = r.string();
      const uri = r.string();
      const n = r.u32();
      const additional_metadata = Array.from({ length: n }, () => [r.string(), r.string()]);
      return { update_authority, mint, name, symbol, uri, additional_metadata };
    },
  ],
  20: [
    'group_pointer',
    (r) => {
      r.optionalNonZeroPubkey();
      return { group_address: r.optionalNonZeroPubkey() };
    },
  ],
  21: [
    'token_group',
    (r) => ({
      update_authority: r.optionalNonZeroPubkey(),
      mint: r.pubkey(),
      size: num(r.u64()),
      max_size: num(r.u64()),
    }),
  ],
  22: [
    'group_member_pointer',
    (r) => {
      r.optionalNonZeroPubkey();
      return { member_address: r.optionalNonZeroPubkey() };
    },
  ],
  23: ['token_group_member', (r) => ({ mint: r.pubkey(), group: r.pubkey(), member_number: num(r.u64()) })],
};

export interface Token2022Metadata {
  updateAuthority: string | null;
  name: string;
  symbol: string;
  uri: string;
}

/** The mint's extensions, or undefined when it has none (a plain 82-byte mint). */
export function parseMintExtensions(data: Uint8Array): { extensions: Ext; metadata?: Token2022Metadata } | undefined {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (b.length <= 166 || b[165] !== 1) return undefined;
  const extensions: Ext = {};
  let metadata: Token2022Metadata | undefined;
  let o = 166;
  while (o + 4 <= b.length) {
    const type = b.readUInt16LE(o);
    const len = b.readUInt16LE(o + 2);
    if (type === 0 || o + 4 + len > b.length) break;
    const d = DECODERS[type];
    if (d) {
      try {
        const value = d[1](new Cursor(b.subarray(o + 4, o + 4 + len)), len) as Ext;
        extensions[d[0]] = value;
        if (d[0] === 'metadata')
          metadata = {
            updateAuthority: value.update_authority as string | null,
            name: value.name as string,
            symbol: value.symbol as string,
            uri: value.uri as string,
          };
      } catch {
        // A malformed extension is left out; the rest still parse.
      }
    }
    o += 4 + len;
  }
  return { extensions, ...(metadata ? { metadata } : {}) };
}
