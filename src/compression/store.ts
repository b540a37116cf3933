// The compressed-account index in the ledger's LMDB environment (tables `cmp-…`): account bodies
// by hash, and the secondary indexes Photon's methods read (by owner, address, token owner,
// delegate, mint; balances; signatures). Written only by ingest, inside the ledger's transaction;
// keys are ordered bytes so each paginated method is one range read in Photon's order.
import type { Database, RootDatabase } from 'lmdb';
import type { TokenData } from './token-data.js';

export interface AccountRecord {
  hash: Uint8Array;
  owner: Uint8Array;
  lamports: bigint;
  address: Uint8Array | null;
  data: { discriminator: Uint8Array; data: Uint8Array; dataHash: Uint8Array } | null;
  /** The state tree (base58); for V2 the batched tree, never the output queue. */
  tree: string;
  /** V1: the tree's nullifier queue; V2: its output queue. */
  queue: string;
  treeType: 1 | 3;
  leafIndex: number;
  /** V1: the tree sequence number of the append; V2: null while in the output queue. */
  seq: bigint | null;
  slotCreated: bigint;
  inOutputQueue: boolean;
  spent: boolean;
  /** V2 spends: Poseidon(hash, leafIndex, txHash), its input-queue position and the tx hash. */
  nullifier: Uint8Array | null;
  nullifierQueueIndex: number | null;
  txHash: Uint8Array | null;
  token: TokenData | null;
}

export interface TxCompression {
  slot: bigint;
  /** Accounts the transaction created and spent, by hash. */
  opened: Uint8Array[];
  closed: Uint8Array[];
}

/** Signature lists: by account hash, address, owner, token owner. */
export const SIG_INDEX = { account: 0x68, address: 0x61, owner: 0x6f, tokenOwner: 0x74 } as const;
export type SigIndex = keyof typeof SIG_INDEX;

export interface SignatureEntry {
  signature: Uint8Array;
  slot: bigint;
  blockTime: number;
  error: string | null;
}

const u64be = (v: bigint | number) => {
  const b = Buffer.allocUnsafe(8);
  b.writeBigUInt64BE(BigInt(v));
  return b;
};
const key = (...parts: (Uint8Array | Buffer)[]) => Buffer.concat(parts);
const invert = (b: Uint8Array) => Buffer.from(b.map((x) => 255 - x));
const EMPTY = Buffer.alloc(0);
/** The byte string just above every key starting with `prefix` (end of a prefix range). */
const after = (prefix: Buffer) => Buffer.concat([prefix, Buffer.alloc(200, 0xff)]);

export class CompressionStore {
  readonly accounts: Database<AccountRecord, Buffer>;
  /** owner ‖ leafIndex u64 ‖ hash → '' (unspent): Photon orders an owner's accounts by leaf index, then hash. */
  private readonly byOwner: Database<Buffer, Buffer>;
  /** address → hash of the unspent account holding it. */
  private readonly byAddress: Database<Buffer, Buffer>;
  /** owner ‖ mint ‖ hash and delegate ‖ mint ‖ hash → '' (unspent token accounts, Photon's mint, hash order). */
  private readonly tokenByOwner: Database<Buffer, Buffer>;
  private readonly tokenByDelegate: Database<Buffer, Buffer>;
  /** owner ‖ mint → balance (rows stay at zero, as Photon's do). */
  private readonly tokenBalances: Database<bigint, Buffer>;
  /** mint ‖ ~balance ‖ ~owner → '': holders by balance, then owner, both descending. */
  private readonly holdersByMint: Database<Buffer, Buffer>;
  private readonly ownerBalances: Database<bigint, Buffer>;
  /** slot ‖ signature → entry: every ledger transaction / those that used compression. */
  private readonly allSigs: Database<{ blockTime: number; error: string | null }, Buffer>;
  private readonly compressionSigs: Database<number, Buffer>;
  /** kind ‖ key 32 ‖ slot ‖ signature → blockTime. */
  private readonly sigsBy: Database<number, Buffer>;
  readonly txs: Database<TxCompression, Buffer>;

  constructor(root: RootDatabase) {
    const bin = { keyEncoding: 'binary', encoding: 'binary' } as const;
    // No lmdb cache on tables ingest writes: it keeps values of rolled-back (skipped) events.
    this.accounts = root.openDB<AccountRecord, Buffer>({ name: 'cmp-accounts', keyEncoding: 'binary' });
    this.byOwner = root.openDB({ name: 'cmp-by-owner', ...bin });
    this.byAddress = root.openDB({ name: 'cmp-by-address', ...bin });
    this.tokenByOwner = root.openDB({ name: 'cmp-token-by-owner', ...bin });
    this.tokenByDelegate = root.openDB({ name: 'cmp-token-by-delegate', ...bin });
    this.tokenBalances = root.openDB<bigint, Buffer>({ name: 'cmp-token-balances', keyEncoding: 'binary' });
    this.holdersByMint = root.openDB({ name: 'cmp-mint-holders', ...bin });
    this.ownerBalances = root.openDB<bigint, Buffer>({ name: 'cmp-owner-balances', keyEncoding: 'binary' });
    this.allSigs = root.openDB({ name: 'cmp-sigs-all', keyEncoding: 'binary' });
    this.compressionSigs = root.openDB<number, Buffer>({ name: 'cmp-sigs-compression', keyEncoding: 'binary' });
    this.sigsBy = root.openDB<number, Buffer>({ name: 'cmp-sigs-by', keyEncoding: 'binary' });
    this.txs = root.openDB<TxCompression, Buffer>({ name: 'cmp-txs', keyEncoding: 'binary' });
  }

  // ---- writes (ingest only, inside the ledger's transaction) ----

  /** A new compressed account (an output of a transaction). */
  addAccount(a: AccountRecord): void {
    const hash = Buffer.from(a.hash);
    this.accounts.put(hash, a);
    this.byOwner.put(key(a.owner, u64be(a.leafIndex), hash), EMPTY);
    if (a.address) this.byAddress.put(Buffer.from(a.address), hash);
    this.addLamports(a.owner, a.lamports);
    if (a.token) {
      this.tokenByOwner.put(key(a.token.owner, a.token.mint, hash), EMPTY);
      if (a.token.delegate) this.tokenByDelegate.put(key(a.token.delegate, a.token.mint, hash), EMPTY);
      this.addTokenBalance(a.token.owner, a.token.mint, a.token.amount);
    }
  }

  /** Marks an account spent and drops it from the indexes of live accounts. */
  spendAccount(
    hash: Uint8Array,
    spend: { nullifier: Uint8Array | null; nullifierQueueIndex: number | null; txHash: Uint8Array | null },
  ): AccountRecord | undefined {
    const k = Buffer.from(hash);
    const a = this.accounts.get(k);
    if (!a || a.spent) return undefined;
    const next: AccountRecord = { ...a, spent: true, ...spend };
    this.accounts.put(k, next);
    this.byOwner.remove(key(a.owner, u64be(a.leafIndex), k));
    if (a.address && Buffer.from(this.byAddress.get(Buffer.from(a.address)) ?? EMPTY).equals(k))
      this.byAddress.remove(Buffer.from(a.address));
    this.addLamports(a.owner, -a.lamports);
    if (a.token) {
      this.tokenByOwner.remove(key(a.token.owner, a.token.mint, k));
      if (a.token.delegate) this.tokenByDelegate.remove(key(a.token.delegate, a.token.mint, k));
      this.addTokenBalance(a.token.owner, a.token.mint, -a.token.amount);
    }
    return next;
  }

  private addLamports(owner: Uint8Array, delta: bigint): void {
    if (delta === 0n) return;
    const k = Buffer.from(owner);
    const next = (this.ownerBalances.get(k) ?? 0n) + delta;
    if (next === 0n) this.ownerBalances.remove(k);
    else this.ownerBalances.put(k, next);
  }

  private addTokenBalance(owner: Uint8Array, mint: Uint8Array, delta: bigint): void {
    const k = key(owner, mint);
    const prev = this.tokenBalances.get(k);
    const next = (prev ?? 0n) + delta;
    if (prev !== undefined) this.holdersByMint.remove(key(mint, invert(u64be(prev)), invert(owner)));
    this.tokenBalances.put(k, next);
    this.holdersByMint.put(key(mint, invert(u64be(next)), invert(owner)), EMPTY);
  }

  recordTransaction(
    signature: Uint8Array,
    slot: bigint,
    blockTime: number,
    error: string | null,
    compression?: { tx: TxCompression; touched: [SigIndex, Uint8Array][] },
  ): void {
    const sk = key(u64be(slot), signature);
    this.allSigs.put(sk, { blockTime, error });
    if (!compression) return;
    this.compressionSigs.put(sk, blockTime);
    this.txs.put(Buffer.from(signature), compression.tx);
    const seen = new Set<string>();
    for (const [kind, k] of compression.touched) {
      const id = `${kind}:${Buffer.from(k).toString('hex')}`;
      if (seen.has(id)) continue;
      seen.add(id);
      this.sigsBy.put(key(Buffer.of(SIG_INDEX[kind]), k, sk), blockTime);
    }
  }

  // ---- reads ----

  has(hash: Uint8Array): boolean {
    return this.accounts.doesExist(Buffer.from(hash));
  }

  account(hash: Uint8Array): AccountRecord | undefined {
    return this.accounts.get(Buffer.from(hash));
  }

  /** The unspent account at an address. */
  accountByAddress(address: Uint8Array): AccountRecord | undefined {
    const h = this.byAddress.get(Buffer.from(address));
    return h ? this.accounts.get(h) : undefined;
  }

  /**
   * An owner's unspent accounts in (leaf index, hash) order, those with a hash above `cursor`
   * (Photon's quirk: it pages by hash but sorts by leaf index), filtered by `keep`.
   */
  accountsByOwner(
    owner: Uint8Array,
    opts: { cursor?: Uint8Array; limit: number; keep?: (a: AccountRecord) => boolean },
  ): AccountRecord[] {
    const out: AccountRecord[] = [];
    if (opts.limit === 0) return out;
    const prefix = Buffer.from(owner);
    const cursor = opts.cursor && Buffer.from(opts.cursor);
    for (const k of this.byOwner.getKeys({ start: prefix, end: after(prefix) })) {
      const hash = k.subarray(40, 72);
      if (cursor && Buffer.compare(hash, cursor) <= 0) continue;
      const a = this.accounts.get(Buffer.from(hash));
      if (!a || (opts.keep && !opts.keep(a))) continue;
      out.push(a);
      if (out.length >= opts.limit) break;
    }
    return out;
  }

  ownerBalance(owner: Uint8Array): bigint {
    return this.ownerBalances.get(Buffer.from(owner)) ?? 0n;
  }

  /**
   * Unspent token accounts of an owner or delegate in (mint, hash) order. Cursor = mint ‖ hash of
   * the last item: with a mint filter, hash above the cursor's; else (mint, hash) above it.
   */
  tokenAccounts(
    by: 'owner' | 'delegate',
    who: Uint8Array,
    opts: { mint?: Uint8Array; cursor?: Uint8Array; limit: number },
  ): AccountRecord[] {
    const out: AccountRecord[] = [];
    if (opts.limit === 0) return out;
    const db = by === 'owner' ? this.tokenByOwner : this.tokenByDelegate;
    const prefix = opts.mint ? key(who, opts.mint) : Buffer.from(who);
    let start: Buffer = prefix;
    if (opts.cursor) {
      const c = Buffer.from(opts.cursor);
      // Just above the cursor: with a mint filter only the hash part counts.
      start = key(opts.mint ? key(who, opts.mint, c.subarray(32)) : key(who, c), Buffer.of(0));
    }
    for (const k of db.getKeys({ start, end: after(prefix) })) {
      const a = this.accounts.get(Buffer.from(k.subarray(64, 96)));
      if (a) out.push(a);
      if (out.length >= opts.limit) break;
    }
    return out;
  }

  /** An owner's token balances by mint (ascending), mints above `cursor` unless a mint is given. */
  tokenBalancesByOwner(
    owner: Uint8Array,
    opts: { mint?: Uint8Array; cursor?: Uint8Array; limit: number },
  ): { mint: Uint8Array; balance: bigint }[] {
    const out: { mint: Uint8Array; balance: bigint }[] = [];
    if (opts.limit === 0) return out;
    const prefix = Buffer.from(owner);
    if (opts.mint) {
      const b = this.tokenBalances.get(key(owner, opts.mint));
      return b === undefined ? out : [{ mint: opts.mint, balance: b }];
    }
    const start = opts.cursor ? key(owner, opts.cursor, Buffer.of(0)) : prefix;
    for (const { key: k, value } of this.tokenBalances.getRange({ start, end: after(prefix) })) {
      out.push({ mint: new Uint8Array(k.subarray(32, 64)), balance: value });
      if (out.length >= opts.limit) break;
    }
    return out;
  }

  /** A mint's holders by balance, then owner, both descending; after (balance, owner) of `cursor`. */
  mintHolders(
    mint: Uint8Array,
    opts: { cursor?: { balance: bigint; owner: Uint8Array }; limit: number },
  ): { owner: Uint8Array; balance: bigint }[] {
    const out: { owner: Uint8Array; balance: bigint }[] = [];
    if (opts.limit === 0) return out;
    const prefix = Buffer.from(mint);
    const start = opts.cursor
      ? key(mint, invert(u64be(opts.cursor.balance)), invert(opts.cursor.owner), Buffer.of(0))
      : prefix;
    for (const k of this.holdersByMint.getKeys({ start, end: after(prefix) })) {
      out.push({ owner: invert(k.subarray(40, 72)), balance: invert(k.subarray(32, 40)).readBigUInt64BE() });
      if (out.length >= opts.limit) break;
    }
    return out;
  }

  /** Signatures newest first (slot, then signature, descending), strictly below `before` (slot ‖ sig). */
  signatures(
    list: { index: SigIndex; key: Uint8Array } | 'all' | 'compression',
    opts: { before?: { slot: bigint; signature: Uint8Array }; limit: number },
  ): SignatureEntry[] {
    const out: SignatureEntry[] = [];
    if (opts.limit === 0) return out;
    const prefix = typeof list === 'string' ? EMPTY : key(Buffer.of(SIG_INDEX[list.index]), list.key);
    const start = opts.before ? key(prefix, u64be(opts.before.slot), opts.before.signature) : after(prefix);
    const db = list === 'all' ? this.allSigs : list === 'compression' ? this.compressionSigs : this.sigsBy;
    for (const { key: k, value } of (db as Database<unknown, Buffer>).getRange({
      start,
      end: prefix,
      reverse: true,
    })) {
      if (opts.before && Buffer.compare(k, start) >= 0) continue;
      const at = prefix.length;
      const v = value as number | { blockTime: number; error: string | null };
      out.push({
        slot: k.readBigUInt64BE(at),
        signature: new Uint8Array(k.subarray(at + 8, at + 72)),
        blockTime: typeof v === 'number' ? v : v.blockTime,
        error: typeof v === 'number' ? null : v.error,
      });
      if (out.length >= opts.limit) break;
    }
    return out;
  }

  transaction(signature: Uint8Array): TxCompression | undefined {
    return this.txs.get(Buffer.from(signature));
  }
}
