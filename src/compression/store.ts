// The compressed-account index in the ledger's LMDB environment (tables `cmp-…`): account bodies
// by hash, and the secondary indexes Photon's methods read (by owner, address, token owner,
// delegate, mint; balances; signatures). Written only by ingest, inside the ledger's transaction;
// keys are ordered bytes so each paginated method is one range read in Photon's order.
import type { Database, RootDatabase } from 'lmdb';
import { readAhead } from '../util/read-ahead.js';
import { decodeRecord, encodeRecord } from './record-codec.js';
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
  /** V2 spends: the input-queue position and the transaction hash (the nullifier derives from them). */
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
const u32be = (v: number) => {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(v >>> 0);
  return b;
};
const readU64 = (b: Buffer | undefined): bigint => (b ? b.readBigUInt64BE(0) : 0n);
const key = (...parts: (Uint8Array | Buffer)[]) => Buffer.concat(parts);
const invert = (b: Uint8Array) => Buffer.from(b.map((x) => 255 - x));
const EMPTY = Buffer.alloc(0);
/** A Buffer over the same bytes (no copy): lmdb takes Buffer keys. */
const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
/** The byte string just above every key starting with `prefix` (end of a prefix range). */
const FF = Buffer.alloc(200, 0xff);
const after = (prefix: Buffer) => Buffer.concat([prefix, FF]);

function encodeTx(tx: TxCompression): Buffer {
  const b = Buffer.allocUnsafe(16 + 32 * (tx.opened.length + tx.closed.length));
  b.writeBigUInt64BE(tx.slot, 0);
  let at = 8;
  for (const list of [tx.opened, tx.closed]) {
    at = b.writeUInt32BE(list.length, at);
    for (const h of list) {
      b.set(h, at);
      at += 32;
    }
  }
  return b;
}

function decodeTx(b: Buffer): TxCompression {
  let at = 8;
  const list = () => {
    const out: Uint8Array[] = [];
    for (let n = b.readUInt32BE((at += 4) - 4); n > 0; n--, at += 32) out.push(new Uint8Array(b.subarray(at, at + 32)));
    return out;
  };
  const opened = list();
  return { slot: b.readBigUInt64BE(0), opened, closed: list() };
}

/** Balance changes of one transaction, summed per owner (and mint) before they are written. */
export class BalanceDeltas {
  readonly lamportDeltas = new Map<string, bigint>();
  readonly tokenDeltas = new Map<string, bigint>();

  lamports(owner: Uint8Array, delta: bigint): void {
    const k = Buffer.from(owner).toString('latin1');
    this.lamportDeltas.set(k, (this.lamportDeltas.get(k) ?? 0n) + delta);
  }

  tokens(owner: Uint8Array, mint: Uint8Array, delta: bigint): void {
    const k = Buffer.concat([owner, mint]).toString('latin1');
    this.tokenDeltas.set(k, (this.tokenDeltas.get(k) ?? 0n) + delta);
  }

  /** Adds another's changes to these. */
  add(other: BalanceDeltas): void {
    for (const [k, v] of other.lamportDeltas) this.lamportDeltas.set(k, (this.lamportDeltas.get(k) ?? 0n) + v);
    for (const [k, v] of other.tokenDeltas) this.tokenDeltas.set(k, (this.tokenDeltas.get(k) ?? 0n) + v);
  }
}

export class CompressionStore {
  /** hash → the account (record-codec.ts). */
  private readonly accounts: Database<Buffer, Buffer>;
  /** owner ‖ leafIndex u64 ‖ hash → '' (unspent): Photon orders an owner's accounts by leaf index, then hash. */
  private readonly byOwner: Database<Buffer, Buffer>;
  /** address → hash of the unspent account holding it. */
  private readonly byAddress: Database<Buffer, Buffer>;
  /** owner ‖ mint ‖ hash and delegate ‖ mint ‖ hash → '' (unspent token accounts, Photon's mint, hash order). */
  private readonly tokenByOwner: Database<Buffer, Buffer>;
  private readonly tokenByDelegate: Database<Buffer, Buffer>;
  /** owner ‖ mint → balance (rows stay at zero, as Photon's do). */
  private readonly tokenBalances: Database<Buffer, Buffer>;
  /** mint ‖ ~balance ‖ ~owner → '': holders by balance, then owner, both descending. */
  private readonly holdersByMint: Database<Buffer, Buffer>;
  private readonly ownerBalances: Database<Buffer, Buffer>;
  /** slot ‖ signature → entry: every ledger transaction / those that used compression. */
  /** Values: block time u32 ‖ the error's text (empty: none). */
  private readonly allSigs: Database<Buffer, Buffer>;
  private readonly compressionSigs: Database<Buffer, Buffer>;
  /** kind ‖ key 32 ‖ slot ‖ signature → blockTime. */
  private readonly sigsBy: Database<Buffer, Buffer>;
  /** signature → slot u64 ‖ opened count u32 ‖ their hashes ‖ closed count u32 ‖ their hashes. */
  private readonly txs: Database<Buffer, Buffer>;

  constructor(root: RootDatabase) {
    const bin = { keyEncoding: 'binary', encoding: 'binary' } as const;
    // No lmdb cache on tables ingest writes: it keeps values of rolled-back (skipped) events.
    this.accounts = root.openDB({ name: 'cmp-accounts-v2', ...bin });
    this.byOwner = root.openDB({ name: 'cmp-by-owner', ...bin });
    this.byAddress = root.openDB({ name: 'cmp-by-address', ...bin });
    this.tokenByOwner = root.openDB({ name: 'cmp-token-by-owner', ...bin });
    this.tokenByDelegate = root.openDB({ name: 'cmp-token-by-delegate', ...bin });
    // Balances are u64 big-endian and signature entries block time u32 (+ error text): plain bytes.
    this.tokenBalances = root.openDB({ name: 'cmp-token-balances', ...bin });
    this.holdersByMint = root.openDB({ name: 'cmp-mint-holders', ...bin });
    this.ownerBalances = root.openDB({ name: 'cmp-owner-balances', ...bin });
    this.allSigs = root.openDB({ name: 'cmp-sigs-all', ...bin });
    this.compressionSigs = root.openDB({ name: 'cmp-sigs-compression', ...bin });
    this.sigsBy = root.openDB({ name: 'cmp-sigs-by', ...bin });
    this.txs = root.openDB({ name: 'cmp-txs-v2', ...bin });
  }

  // ---- writes (ingest only, inside the ledger's transaction) ----

  /** A new compressed account (an output of a transaction); its balances go into `deltas`. */
  addAccount(a: AccountRecord, deltas: BalanceDeltas): void {
    const hash = asBuffer(a.hash);
    this.accounts.put(hash, encodeRecord(a));
    this.byOwner.put(key(a.owner, u64be(a.leafIndex), hash), EMPTY);
    if (a.address) this.byAddress.put(Buffer.from(a.address), hash);
    deltas.lamports(a.owner, a.lamports);
    if (a.token) {
      this.tokenByOwner.put(key(a.token.owner, a.token.mint, hash), EMPTY);
      if (a.token.delegate) this.tokenByDelegate.put(key(a.token.delegate, a.token.mint, hash), EMPTY);
      deltas.tokens(a.token.owner, a.token.mint, a.token.amount);
    }
  }

  /** Marks an account spent and drops it from the indexes of live accounts. */
  spendAccount(
    hash: Uint8Array,
    spend: { nullifierQueueIndex: number | null; txHash: Uint8Array | null },
    deltas: BalanceDeltas,
  ): AccountRecord | undefined {
    const k = asBuffer(hash);
    const a = this.account(k);
    if (!a || a.spent) return undefined;
    const next: AccountRecord = { ...a, spent: true, ...spend };
    this.accounts.put(k, encodeRecord(next));
    this.byOwner.remove(key(a.owner, u64be(a.leafIndex), k));
    if (a.address && Buffer.from(this.byAddress.get(Buffer.from(a.address)) ?? EMPTY).equals(k))
      this.byAddress.remove(Buffer.from(a.address));
    deltas.lamports(a.owner, -a.lamports);
    if (a.token) {
      this.tokenByOwner.remove(key(a.token.owner, a.token.mint, k));
      if (a.token.delegate) this.tokenByDelegate.remove(key(a.token.delegate, a.token.mint, k));
      deltas.tokens(a.token.owner, a.token.mint, -a.token.amount);
    }
    return next;
  }

  /** A V2 account a forester appended: no longer in the output queue, proved by Merkle path from now on. */
  markAppended(hash: Uint8Array): void {
    const k = asBuffer(hash);
    const a = this.account(k);
    if (a && a.inOutputQueue) this.accounts.put(k, encodeRecord({ ...a, inOutputQueue: false }));
  }

  /** Balance changes kept while deferringBalances runs, a transaction's each (taken back with it). */
  private deferred: BalanceDeltas[] | undefined;

  /**
   * Runs `fn` with balance changes kept, and writes them summed when it returns: one read and
   * write per owner (and mint) for a run of transactions, all read at once where the engine can.
   */
  deferringBalances<T>(fn: () => T): T {
    if (this.deferred) return fn();
    this.deferred = [];
    try {
      const r = fn();
      const sum = new BalanceDeltas();
      for (const d of this.deferred) sum.add(d);
      this.deferred = undefined;
      const keys = (m: Map<string, bigint>) => () => [...m.keys()].map((k) => Buffer.from(k, 'latin1'));
      readAhead(this.ownerBalances, keys(sum.lamportDeltas));
      readAhead(this.tokenBalances, keys(sum.tokenDeltas));
      this.writeBalances(sum);
      return r;
    } finally {
      this.deferred = undefined;
    }
  }

  /** `fn`, whose balance changes are taken back if it throws (while deferringBalances runs). */
  balancesTransaction<T>(fn: () => T): T {
    const mark = this.deferred?.length;
    try {
      return fn();
    } catch (e) {
      if (mark !== undefined && this.deferred) this.deferred.length = mark;
      throw e;
    }
  }

  /** Writes the balance changes of a transaction's accounts (one read and write per owner and mint). */
  applyBalances(deltas: BalanceDeltas): void {
    if (this.deferred) this.deferred.push(deltas);
    else this.writeBalances(deltas);
  }

  private writeBalances(deltas: BalanceDeltas): void {
    for (const [k, delta] of deltas.lamportDeltas) {
      if (delta === 0n) continue;
      const owner = Buffer.from(k, 'latin1');
      const next = readU64(this.ownerBalances.get(owner)) + delta;
      if (next === 0n) this.ownerBalances.remove(owner);
      else this.ownerBalances.put(owner, u64be(next));
    }
    for (const [k, delta] of deltas.tokenDeltas) {
      const ownerMint = Buffer.from(k, 'latin1');
      const owner = ownerMint.subarray(0, 32);
      const mint = ownerMint.subarray(32);
      const stored = this.tokenBalances.get(ownerMint);
      if (stored !== undefined && delta === 0n) continue;
      const prev = readU64(stored);
      const next = prev + delta;
      if (stored !== undefined) this.holdersByMint.remove(key(mint, invert(u64be(prev)), invert(owner)));
      this.tokenBalances.put(ownerMint, u64be(next));
      this.holdersByMint.put(key(mint, invert(u64be(next)), invert(owner)), EMPTY);
    }
  }

  recordTransaction(
    signature: Uint8Array,
    slot: bigint,
    blockTime: number,
    error: string | null,
    compression?: { tx: TxCompression; touched: [SigIndex, Uint8Array][] },
  ): void {
    const sk = key(u64be(slot), signature);
    const time = u32be(blockTime);
    this.allSigs.put(sk, error === null ? time : Buffer.concat([time, Buffer.from(error, 'utf8')]));
    if (!compression) return;
    this.compressionSigs.put(sk, time);
    this.txs.put(asBuffer(signature), encodeTx(compression.tx));
    const seen = new Set<string>();
    for (const [kind, k] of compression.touched) {
      const id = `${kind}:${Buffer.from(k).toString('hex')}`;
      if (seen.has(id)) continue;
      seen.add(id);
      this.sigsBy.put(key(Buffer.of(SIG_INDEX[kind]), k, sk), time);
    }
  }

  // ---- reads ----

  has(hash: Uint8Array): boolean {
    return this.accounts.doesExist(asBuffer(hash));
  }

  account(hash: Uint8Array): AccountRecord | undefined {
    const v = this.accounts.get(asBuffer(hash));
    return v && decodeRecord(v);
  }

  /** The unspent account at an address. */
  accountByAddress(address: Uint8Array): AccountRecord | undefined {
    const h = this.byAddress.get(Buffer.from(address));
    return h ? this.account(h) : undefined;
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
    const hashes = (function* (keys: Iterable<Buffer>) {
      for (const k of keys) {
        const hash = k.subarray(40, 72);
        if (!cursor || Buffer.compare(hash, cursor) > 0) yield hash;
      }
    })(this.byOwner.getKeys({ start: prefix, end: after(prefix) }));
    for (const a of this.accountsAhead(hashes, () => opts.limit - out.length)) {
      if (!a || (opts.keep && !opts.keep(a))) continue;
      out.push(a);
      if (out.length >= opts.limit) break;
    }
    return out;
  }

  ownerBalance(owner: Uint8Array): bigint {
    return readU64(this.ownerBalances.get(Buffer.from(owner)));
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
    const hashes = (function* (keys: Iterable<Buffer>) {
      for (const k of keys) yield k.subarray(64, 96);
    })(db.getKeys({ start, end: after(prefix) }));
    for (const a of this.accountsAhead(hashes, () => opts.limit - out.length)) {
      if (a) out.push(a);
      if (out.length >= opts.limit) break;
    }
    return out;
  }

  /**
   * The accounts of `hashes` in order (undefined where none), read ahead in batches of as many as
   * `wanted()` says are still needed (at least one, at most 1,000).
   */
  private *accountsAhead(hashes: Iterator<Buffer>, wanted: () => number): Generator<AccountRecord | undefined> {
    for (;;) {
      const n = Math.min(1000, Math.max(1, wanted()));
      const batch: Buffer[] = [];
      while (batch.length < n) {
        const r = hashes.next();
        if (r.done) break;
        batch.push(r.value);
      }
      if (batch.length === 0) return;
      readAhead(this.accounts, batch);
      for (const h of batch) yield this.account(h);
      if (batch.length < n) return;
    }
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
      return b === undefined ? out : [{ mint: opts.mint, balance: readU64(b) }];
    }
    const start = opts.cursor ? key(owner, opts.cursor, Buffer.of(0)) : prefix;
    for (const { key: k, value } of this.tokenBalances.getRange({ start, end: after(prefix) })) {
      out.push({ mint: new Uint8Array(k.subarray(32, 64)), balance: readU64(value) });
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
    for (const { key: k, value } of db.getRange({ start, end: prefix, reverse: true })) {
      if (opts.before && Buffer.compare(k, start) >= 0) continue;
      const at = prefix.length;
      out.push({
        slot: k.readBigUInt64BE(at),
        signature: new Uint8Array(k.subarray(at + 8, at + 72)),
        blockTime: value.readUInt32BE(0),
        error: value.length > 4 ? value.toString('utf8', 4) : null,
      });
      if (out.length >= opts.limit) break;
    }
    return out;
  }

  transaction(signature: Uint8Array): TxCompression | undefined {
    const v = this.txs.get(asBuffer(signature));
    return v && decodeTx(v);
  }
}
