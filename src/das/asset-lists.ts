// The DAS list indexes: owner, creator, authority and collection → assets, kept beside the asset
// index in the ledger's LMDB store and written in the same transaction as the account that
// changed them (asset-index.ts calls in here), so a list never disagrees with getAsset.
//
// Keys are raw bytes, `key (32) ‖ asset id (32)`: LMDB orders them bytewise, which is the order the
// DAS reference sorts asset ids in (Postgres bytea), so `sortBy: id` and the before/after/cursor
// keysets are range scans. Values: the creator or collection's `verified` flag, or, for owners,
// how many of the owner's token accounts hold the mint (an owner may hold one mint in several).
//
// Each list has a twin ordered by creation, `key ‖ created slot (8, BE) ‖ asset id` with the same
// value, so `sortBy: created` is a range scan too. An asset's created slot is the slot it was first
// seen in, stored once (`das-created-v1`) and never changed, so an entry is always removed under
// the key it was added with.
import type { Database, RootDatabase } from 'lmdb';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import type { CoreAccount } from './mpl-core.js';
import type { EditionAccount, Metadata, TokenAccount } from './layouts.js';

export type ListKind = 'owner' | 'creator' | 'authority' | 'group';
/** Every asset id the index knows (searchAssets without a narrower list). */
export const ALL = 'all' as const;
/** Token accounts by their owner or their mint (value: whether the balance is above zero). */
export type TokenListKind = 'tokenOwner' | 'tokenMint';

/** One scan of a list: ids after/before a bound, in either direction, at most `limit`. */
export interface ListScan {
  /** Exclusive lower bound on the asset id. */
  after?: Uint8Array;
  /** Exclusive upper bound on the asset id. */
  before?: Uint8Array;
  descending: boolean;
  /** Ids to skip first (page mode). */
  offset: number;
  limit: number;
  /** Which entries count (e.g. verified creators only); every entry when absent. */
  accept?: (id: string, verified: boolean) => boolean;
  /** Most entries to look at; past it the scan stops with ScanBudgetExceeded (no request scans without bound). */
  budget?: number;
}

/** A scan needed more entries than its budget allowed. */
export class ScanBudgetExceeded extends Error {
  constructor(readonly budget: number) {
    super(`more than ${budget} entries to examine`);
  }
}

const key = (a: string, id: string): Buffer => Buffer.concat([decodeBase58(a), decodeBase58(id)]);

type AssetListKind = ListKind | typeof ALL;

export class AssetLists {
  private readonly dbs: Record<ListKind | TokenListKind | typeof ALL, Database<number | boolean, Buffer>>;
  /** The lists again, ordered by the assets' created slots. */
  private readonly byCreated: Record<AssetListKind, Database<number | boolean, Buffer>>;
  /** Asset id → the slot it was first seen in (8 bytes, BE); written once. */
  private readonly createdAt: Database<Buffer, Buffer>;
  /** The slot being applied (set by the asset index before each account write). */
  slot = 0n;
  /** Master edition PDA ‖ edition number (u64 BE) → the print's Edition account. */
  private readonly prints: Database<string, Buffer>;
  /** Edition account (PDA) → its mint, from the mints' metadata. */
  private readonly editionMints: Database<string, string>;

  constructor(
    root: RootDatabase,
    /** Where an asset's created slot is already known (its metadata or Core record, from before this table). */
    private readonly knownCreated: (id: string) => bigint | undefined = () => undefined,
  ) {
    const open = (name: string) => root.openDB<number | boolean, Buffer>({ name, keyEncoding: 'binary' });
    this.dbs = {
      owner: open('das-list-owner-v1'),
      creator: open('das-list-creator-v1'),
      authority: open('das-list-authority-v1'),
      group: open('das-list-group-v1'),
      tokenOwner: open('das-list-token-owner-v1'),
      tokenMint: open('das-list-token-mint-v1'),
      all: open('das-list-all-v1'),
    };
    this.byCreated = {
      owner: open('das-list-owner-created-v1'),
      creator: open('das-list-creator-created-v1'),
      authority: open('das-list-authority-created-v1'),
      group: open('das-list-group-created-v1'),
      all: open('das-list-all-created-v1'),
    };
    this.createdAt = root.openDB<Buffer, Buffer>({ name: 'das-created-v1', keyEncoding: 'binary', encoding: 'binary' });
    this.prints = root.openDB<string, Buffer>({ name: 'das-list-prints-v1', keyEncoding: 'binary' });
    this.editionMints = root.openDB<string, string>({ name: 'das-edition-mints-v1' });
  }

  /** The slot an asset was first seen in: stored the first time it is asked for, then fixed. */
  private created(id: Uint8Array): Buffer {
    const k = Buffer.from(id);
    const stored = this.createdAt.get(k);
    if (stored) return stored;
    const slot = Buffer.alloc(8);
    slot.writeBigUInt64BE(this.knownCreated(encodeBase58(id)) ?? this.slot);
    this.createdAt.put(k, slot);
    return slot;
  }

  /** An entry of an asset list, and its twin in creation order. */
  private put(kind: AssetListKind, of: string, id: string, value: number | boolean): void {
    const asset = decodeBase58(id);
    const prefix = kind === ALL ? Buffer.alloc(0) : decodeBase58(of);
    this.dbs[kind].put(Buffer.concat([prefix, asset]), value);
    this.byCreated[kind].put(Buffer.concat([prefix, this.created(asset), asset]), value);
  }

  private remove(kind: AssetListKind, of: string, id: string): void {
    const asset = decodeBase58(id);
    const prefix = kind === ALL ? Buffer.alloc(0) : decodeBase58(of);
    this.dbs[kind].remove(Buffer.concat([prefix, asset]));
    this.byCreated[kind].remove(Buffer.concat([prefix, this.created(asset), asset]));
  }

  /** An asset the index knows (a mint, its metadata, a Core asset): listed for good, burnt or not. */
  known(id: string): void {
    if (this.dbs.all.get(Buffer.from(decodeBase58(id))) === undefined) this.put(ALL, '', id, true);
  }

  /** Whether an owner holds a balance of a mint (or owns a Core asset). */
  holds(owner: string, id: string): boolean {
    return this.dbs.owner.get(key(owner, id)) !== undefined;
  }

  /** A Token Metadata record written (or replaced): its creators, update authority and collection. */
  metadata(before: Metadata | undefined, after: Metadata | undefined): void {
    const id = (after ?? before)?.mint;
    if (id === undefined) return;
    if (before) {
      for (const c of before.creators) this.remove('creator', c.address, id);
      this.remove('authority', before.updateAuthority, id);
      if (before.collection) this.remove('group', before.collection.key, id);
    }
    if (after) {
      for (const c of after.creators) this.put('creator', c.address, id, c.verified);
      this.put('authority', after.updateAuthority, id, true);
      if (after.collection) this.put('group', after.collection.key, id, after.collection.verified);
    }
  }

  /**
   * A token account changed: the owner holds the mint while one of its accounts has a balance;
   * the account is listed under its owner and its mint whatever its balance (showZeroBalance).
   */
  tokenAccount(address: string, before: TokenAccount | undefined, after: TokenAccount | undefined): void {
    const holds = (t: TokenAccount | undefined) => t !== undefined && BigInt(t.amount) > 0n;
    if (holds(before)) this.count(before!.owner, before!.mint, -1);
    if (holds(after)) this.count(after!.owner, after!.mint, 1);
    if (before) {
      this.dbs.tokenOwner.remove(key(before.owner, address));
      this.dbs.tokenMint.remove(key(before.mint, address));
    }
    if (after) {
      this.dbs.tokenOwner.put(key(after.owner, address), holds(after));
      this.dbs.tokenMint.put(key(after.mint, address), holds(after));
    }
  }

  /** A print Edition account written (or closed: `after` undefined). */
  print(address: string, before: EditionAccount | undefined, after: EditionAccount | undefined): void {
    const k = (e: { parent: string; edition: string }) => {
      const n = Buffer.alloc(8);
      n.writeBigUInt64BE(BigInt(e.edition));
      return Buffer.concat([decodeBase58(e.parent), n]);
    };
    if (before?.kind === 'print') this.prints.remove(k(before));
    if (after?.kind === 'print') this.prints.put(k(after), address);
  }

  /** Which mint an Edition account belongs to (learnt from the mint's metadata). */
  editionMint(edition: string, mint: string): void {
    if (this.editionMints.get(edition) !== mint) this.editionMints.put(edition, mint);
  }

  mintOfEdition(edition: string): string | undefined {
    return this.editionMints.get(edition);
  }

  /** The prints of a master edition in edition-number order: [edition account, number]. */
  printsOf(master: string, offset: number, limit: number): { edition: string; number: bigint }[] {
    const prefix = decodeBase58(master);
    const out: { edition: string; number: bigint }[] = [];
    let skip = offset;
    for (const { key: k, value } of this.prints.getRange({
      start: Buffer.concat([prefix, Buffer.alloc(8, 0)]),
      end: Buffer.concat([prefix, Buffer.alloc(8, 0xff)]),
    })) {
      if (skip-- > 0) continue;
      out.push({ edition: value, number: (k as Buffer).readBigUInt64BE(32) });
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Token accounts of an owner or a mint, by address (bytewise), after `after` (exclusive). */
  tokenAccounts(
    kind: TokenListKind,
    of: string,
    s: { after?: Uint8Array; offset: number; limit: number; accept: (account: string, funded: boolean) => boolean },
  ): string[] {
    const prefix = decodeBase58(of);
    const lo = Buffer.concat([prefix, s.after ?? Buffer.alloc(32, 0)]);
    const out: string[] = [];
    let skip = s.offset;
    for (const { key: k, value } of this.dbs[kind].getRange({
      start: lo,
      end: Buffer.concat([prefix, Buffer.alloc(32, 0xff)]),
    })) {
      if ((k as Buffer).equals(lo)) continue;
      const account = encodeBase58((k as Buffer).subarray(32));
      if (!s.accept(account, value === true)) continue;
      if (skip-- > 0) continue;
      out.push(account);
      if (out.length >= s.limit) break;
    }
    return out;
  }

  private count(owner: string, mint: string, by: number): void {
    const n = ((this.dbs.owner.get(key(owner, mint)) as number | undefined) ?? 0) + by;
    if (n > 0) this.put('owner', owner, mint, n);
    else this.remove('owner', owner, mint);
  }

  /** An MPL Core asset or collection written or burnt (`after` undefined). */
  core(id: string, before: CoreAccount | undefined, after: CoreAccount | undefined): void {
    const groupOf = (c: CoreAccount) => (c.updateAuthority.kind === 'Collection' ? c.updateAuthority.address : null);
    const authorityOf = (c: CoreAccount) =>
      c.updateAuthority.kind === 'Address' ? c.updateAuthority.address : groupOf(c);
    if (before) {
      if (before.owner) this.remove('owner', before.owner, id);
      const a = authorityOf(before);
      if (a) this.remove('authority', a, id);
      const g = groupOf(before);
      if (g) this.remove('group', g, id);
      for (const c of before.royalties?.creators ?? []) this.remove('creator', c.address, id);
    }
    if (after) {
      if (after.owner) this.put('owner', after.owner, id, 1);
      const a = authorityOf(after);
      if (a) this.put('authority', a, id, true);
      const g = groupOf(after);
      if (g) this.put('group', g, id, true);
      // Core's creators come from its royalties plugin; Core has no creator verification.
      for (const c of after.royalties?.creators ?? []) this.put('creator', c.address, id, false);
    }
  }

  /**
   * Asset ids of one list key in creation order (slot, then id; reversed when descending), after
   * `offset` accepted ones, at most `limit`.
   */
  scanCreated(kind: AssetListKind, of: string, s: Omit<ListScan, 'after' | 'before'>): string[] {
    const prefix = kind === ALL ? Buffer.alloc(0) : decodeBase58(of);
    const lo = Buffer.concat([prefix, Buffer.alloc(40, 0)]);
    const hi = Buffer.concat([prefix, Buffer.alloc(40, 0xff)]);
    return this.walk(this.byCreated[kind], kind, lo, hi, prefix.length + 8, s);
  }

  /** How many entries one list key holds (verified ones only, if asked), without naming them. */
  size(kind: ListKind, of: string, verifiedOnly: boolean, budget: number): number {
    const prefix = decodeBase58(of);
    let n = 0;
    let examined = 0;
    for (const { value } of this.dbs[kind].getRange({
      start: Buffer.concat([prefix, Buffer.alloc(32, 0)]),
      end: Buffer.concat([prefix, Buffer.alloc(32, 0xff)]),
    })) {
      if (++examined > budget) throw new ScanBudgetExceeded(budget);
      if (!verifiedOnly || value === true) n++;
    }
    return n;
  }

  /**
   * Asset ids of one list key in id order (bytewise), after `offset` accepted ones, at most
   * `limit`. Whether each id is verified comes with it.
   */
  scan(kind: ListKind | typeof ALL, of: string, s: ListScan): string[] {
    const prefix = kind === ALL ? Buffer.alloc(0) : decodeBase58(of);
    const lo = Buffer.concat([prefix, s.after ?? Buffer.alloc(32, 0)]);
    const hi = Buffer.concat([prefix, s.before ?? Buffer.alloc(32, 0xff)]);
    return this.walk(this.dbs[kind], kind, lo, hi, prefix.length, s);
  }

  /**
   * One list's (or twin's) entries strictly between `lo` and `hi`, in either direction: the ids
   * (the key from `idAt` on) `accept` takes, after `offset` of them, at most `limit`, within the
   * budget.
   */
  private walk(
    db: Database<number | boolean, Buffer>,
    kind: AssetListKind,
    lo: Buffer,
    hi: Buffer,
    idAt: number,
    s: Omit<ListScan, 'after' | 'before'>,
  ): string[] {
    const out: string[] = [];
    let skip = s.offset;
    let examined = 0;
    for (const { key: k, value } of db.getRange(
      s.descending ? { start: hi, end: lo, reverse: true } : { start: lo, end: hi },
    )) {
      const b = k as Buffer;
      // getRange's start is inclusive: bounds are exclusive here (and the 0x00…/0xff… fillers never ids).
      if (b.equals(lo) || b.equals(hi)) continue;
      if (s.budget !== undefined && ++examined > s.budget) throw new ScanBudgetExceeded(s.budget);
      const id = encodeBase58(b.subarray(idAt));
      const verified = kind === 'owner' || kind === 'authority' ? true : value === true;
      if (s.accept && !s.accept(id, verified)) continue;
      if (skip > 0) {
        skip--;
        continue;
      }
      out.push(id);
      if (out.length >= s.limit) break;
    }
    return out;
  }
}
