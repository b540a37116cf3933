// On-chain layouts the asset index reads (get-asset.md §6): Token Metadata `Metadata`, SPL Token
// and Token-2022 mints and token accounts (base layout). Metadata parsing is tolerant the way
// Token Metadata's own `meta_deser_unchecked` is: strict through `edition_nonce`; if any of
// token_standard / collection / uses fails, all three are None; failing later fields are None.
import { encodeBase58 } from '../zk/base58.js';

export const TOKEN_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

export const TOKEN_STANDARDS = [
  'NonFungible',
  'FungibleAsset',
  'Fungible',
  'NonFungibleEdition',
  'ProgrammableNonFungible',
  'ProgrammableNonFungibleEdition',
] as const;
export type TokenStandard = (typeof TOKEN_STANDARDS)[number];
const USE_METHODS = ['Burn', 'Multiple', 'Single'] as const;

export interface Metadata {
  updateAuthority: string;
  mint: string;
  name: string;
  symbol: string;
  uri: string;
  sellerFeeBasisPoints: number;
  creators: { address: string; verified: boolean; share: number }[];
  primarySaleHappened: boolean;
  isMutable: boolean;
  editionNonce: number | null;
  tokenStandard: TokenStandard | null;
  collection: { verified: boolean; key: string } | null;
  uses: { useMethod: (typeof USE_METHODS)[number]; remaining: string; total: string } | null;
}

export interface Mint {
  mintAuthority: string | null;
  supply: string;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
  tokenProgram: string;
}

export interface TokenAccount {
  mint: string;
  owner: string;
  amount: string;
  delegate: string | null;
  /** 0 uninitialized, 1 initialized, 2 frozen */
  state: number;
  /** Absent in records indexed before these were parsed (read as 0 and none). */
  delegatedAmount?: string;
  closeAuthority?: string | null;
}

/** A bounds-checked little-endian reader over account data (Borsh and the SPL layouts). */
export class Cursor {
  offset = 0;
  constructor(private readonly b: Buffer) {}
  need(n: number): void {
    if (this.offset + n > this.b.length) throw new RangeError('account data ends early');
  }
  u8(): number {
    this.need(1);
    return this.b.readUInt8(this.offset++);
  }
  bool(): boolean {
    const v = this.u8();
    if (v > 1) throw new RangeError(`invalid bool ${v}`);
    return v === 1;
  }
  u16(): number {
    this.need(2);
    const v = this.b.readUInt16LE(this.offset);
    this.offset += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.b.readUInt32LE(this.offset);
    this.offset += 4;
    return v;
  }
  u64(): string {
    this.need(8);
    const v = this.b.readBigUInt64LE(this.offset);
    this.offset += 8;
    return v.toString();
  }
  i16(): number {
    this.need(2);
    const v = this.b.readInt16LE(this.offset);
    this.offset += 2;
    return v;
  }
  i64(): string {
    this.need(8);
    const v = this.b.readBigInt64LE(this.offset);
    this.offset += 8;
    return v.toString();
  }
  /** OptionalNonZeroPubkey (SPL): 32 bytes, all zeros meaning none. */
  optionalNonZeroPubkey(): string | null {
    this.need(32);
    const s = this.b.subarray(this.offset, this.offset + 32);
    this.offset += 32;
    return s.every((x) => x === 0) ? null : encodeBase58(s);
  }
  bytes(n: number): Buffer {
    this.need(n);
    const v = this.b.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }
  pubkey(): string {
    this.need(32);
    const v = encodeBase58(this.b.subarray(this.offset, this.offset + 32));
    this.offset += 32;
    return v;
  }
  string(): string {
    const n = this.u32();
    this.need(n);
    const v = this.b.toString('utf8', this.offset, this.offset + n);
    this.offset += n;
    return v;
  }
  option<T>(read: () => T): T | null {
    const tag = this.u8();
    if (tag === 0) return null;
    if (tag !== 1) throw new RangeError(`invalid option tag ${tag}`);
    return read();
  }
}

const clean = (s: string) => s.replace(/\0/g, '');

/** A Token Metadata `Metadata` account (key 4), or undefined when the data is not one. */
export function parseMetadata(data: Uint8Array): Metadata | undefined {
  const c = new Cursor(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  try {
    if (c.u8() !== 4) return undefined;
    const updateAuthority = c.pubkey();
    const mint = c.pubkey();
    const name = clean(c.string());
    const symbol = clean(c.string());
    const uri = clean(c.string()).trim();
    const sellerFeeBasisPoints = c.u16();
    const creators =
      c.option(() =>
        Array.from({ length: c.u32() }, () => ({ address: c.pubkey(), verified: c.bool(), share: c.u8() })),
      ) ?? [];
    const primarySaleHappened = c.bool();
    const isMutable = c.bool();
    const editionNonce = c.option(() => c.u8());
    let tokenStandard: Metadata['tokenStandard'] = null;
    let collection: Metadata['collection'] = null;
    let uses: Metadata['uses'] = null;
    try {
      const ts = c.option(() => c.u8());
      if (ts !== null && (ts < 0 || ts >= TOKEN_STANDARDS.length)) throw new RangeError(`token standard ${ts}`);
      const col = c.option(() => ({ verified: c.bool(), key: c.pubkey() }));
      const u = c.option(() => {
        const m = c.u8();
        if (m >= USE_METHODS.length) throw new RangeError(`use method ${m}`);
        return { useMethod: USE_METHODS[m]!, remaining: c.u64(), total: c.u64() };
      });
      tokenStandard = ts === null ? null : TOKEN_STANDARDS[ts]!;
      collection = col;
      uses = u;
    } catch {
      // Old accounts carry garbage after edition_nonce: all three degrade to None together.
    }
    return {
      updateAuthority,
      mint,
      name,
      symbol,
      uri,
      sellerFeeBasisPoints,
      creators,
      primarySaleHappened,
      isMutable,
      editionNonce,
      tokenStandard,
      collection,
      uses,
    };
  } catch {
    return undefined;
  }
}

function cOptionPubkey(b: Buffer, at: number): string | null {
  return b.readUInt32LE(at) === 1 ? encodeBase58(b.subarray(at + 4, at + 36)) : null;
}

/** Token-2022 accounts carry their type at byte 165 when they have extensions (1 mint, 2 account). */
function kind(b: Buffer, program: string): 'mint' | 'account' | undefined {
  if (b.length === 82) return 'mint';
  if (b.length === 165) return 'account';
  if (program === TOKEN_2022_PROGRAM && b.length > 165)
    return b[165] === 1 ? 'mint' : b[165] === 2 ? 'account' : undefined;
  return undefined;
}

export function parseTokenProgramAccount(
  data: Uint8Array,
  program: string,
): { mint: Mint } | { account: TokenAccount } | undefined {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const k = kind(b, program);
  if (k === 'mint') {
    if (b[45] !== 1) return undefined;
    return {
      mint: {
        mintAuthority: cOptionPubkey(b, 0),
        supply: b.readBigUInt64LE(36).toString(),
        decimals: b[44]!,
        isInitialized: true,
        freezeAuthority: cOptionPubkey(b, 46),
        tokenProgram: program,
      },
    };
  }
  if (k === 'account') {
    if (b[108] === 0) return undefined;
    return {
      account: {
        mint: encodeBase58(b.subarray(0, 32)),
        owner: encodeBase58(b.subarray(32, 64)),
        amount: b.readBigUInt64LE(64).toString(),
        delegate: cOptionPubkey(b, 72),
        state: b[108]!,
        delegatedAmount: b.readBigUInt64LE(121).toString(),
        closeAuthority: cOptionPubkey(b, 129),
      },
    };
  }
  return undefined;
}

export type EditionAccount =
  { kind: 'master'; supply: string; maxSupply: string | null } | { kind: 'print'; parent: string; edition: string };

/** Token Metadata `MasterEditionV2` (key 6) or `Edition` (key 1). */
export function parseEdition(data: Uint8Array): EditionAccount | undefined {
  const c = new Cursor(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  try {
    const key = c.u8();
    if (key === 6) return { kind: 'master', supply: c.u64(), maxSupply: c.option(() => c.u64()) };
    if (key === 1) return { kind: 'print', parent: c.pubkey(), edition: c.u64() };
    return undefined;
  } catch {
    return undefined;
  }
}
