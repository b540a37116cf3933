// Token-2022 mint extensions (get-asset.md §2.13): the TLV entries after a mint's account-type
// byte (165), as `mint_extensions` shows them: snake_case keys, pubkeys in base58, an all-zero
// optional pubkey as null. Extensions whose wire form zkgate cannot vouch for (the confidential
// transfer ones, default account state, non-transferable) are left out rather than guessed.
import { encodeBase58 } from '../zk/base58.js';

type Ext = Record<string, unknown>;

class R {
  o = 0;
  constructor(private readonly b: Buffer) {}
  pk(): string {
    const v = encodeBase58(this.b.subarray(this.o, this.o + 32));
    this.o += 32;
    return v;
  }
  /** OptionalNonZeroPubkey: all zeros means none. */
  opk(): string | null {
    const s = this.b.subarray(this.o, this.o + 32);
    this.o += 32;
    return s.every((x) => x === 0) ? null : encodeBase58(s);
  }
  u16(): number {
    const v = this.b.readUInt16LE(this.o);
    this.o += 2;
    return v;
  }
  i16(): number {
    const v = this.b.readInt16LE(this.o);
    this.o += 2;
    return v;
  }
  u32(): number {
    const v = this.b.readUInt32LE(this.o);
    this.o += 4;
    return v;
  }
  u64(): bigint {
    const v = this.b.readBigUInt64LE(this.o);
    this.o += 8;
    return v;
  }
  i64(): bigint {
    const v = this.b.readBigInt64LE(this.o);
    this.o += 8;
    return v;
  }
  str(): string {
    const n = this.u32();
    const v = this.b.toString('utf8', this.o, this.o + n);
    this.o += n;
    return v;
  }
}

/**
 * u64 values beyond 2^53 are kept as `{$u64: "<digits>"}` in the stored record (the store's
 * encoding has no exact big integers) and turned back into bigints when answered: see `u64Values`.
 */
const num = (v: bigint): number | { $u64: string } =>
  v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : { $u64: v.toString() };

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

const fee = (r: R) => ({ epoch: num(r.u64()), maximum_fee: num(r.u64()), transfer_fee_basis_points: r.u16() });

/** Decoders by extension type number; each gets the value bytes of its entry. */
const DECODERS: Record<number, [string, (r: R, len: number) => unknown]> = {
  1: [
    'transfer_fee_config',
    (r) => ({
      transfer_fee_config_authority: r.opk(),
      withdraw_withheld_authority: r.opk(),
      withheld_amount: num(r.u64()),
      older_transfer_fee: fee(r),
      newer_transfer_fee: fee(r),
    }),
  ],
  3: ['mint_close_authority', (r) => ({ close_authority: r.opk() })],
  10: [
    'interest_bearing_config',
    (r) => ({
      rate_authority: r.opk(),
      initialization_timestamp: num(r.i64()),
      pre_update_average_rate: r.i16(),
      last_update_timestamp: num(r.i64()),
      current_rate: r.i16(),
    }),
  ],
  12: ['permanent_delegate', (r) => ({ delegate: r.opk() })],
  14: ['transfer_hook', (r) => ({ authority: r.opk(), program_id: r.opk() })],
  18: [
    'metadata_pointer',
    (r) => {
      r.opk(); // authority: not shown by the reference
      return { metadata_address: r.opk() };
    },
  ],
  19: [
    'metadata',
    (r) => {
      const update_authority = r.opk();
      const mint = r.pk();
      const name = r.str();
      const symbol = r.str();
      const uri = r.str();
      const n = r.u32();
      const additional_metadata = Array.from({ length: n }, () => [r.str(), r.str()]);
      return { update_authority, mint, name, symbol, uri, additional_metadata };
    },
  ],
  20: [
    'group_pointer',
    (r) => {
      r.opk();
      return { group_address: r.opk() };
    },
  ],
  21: ['token_group', (r) => ({ update_authority: r.opk(), mint: r.pk(), size: num(r.u64()), max_size: num(r.u64()) })],
  22: [
    'group_member_pointer',
    (r) => {
      r.opk();
      return { member_address: r.opk() };
    },
  ],
  23: ['token_group_member', (r) => ({ mint: r.pk(), group: r.pk(), member_number: num(r.u64()) })],
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
        const value = d[1](new R(b.subarray(o + 4, o + 4 + len)), len) as Ext;
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
