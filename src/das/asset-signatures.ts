// getSignaturesForAsset's index: every committed transaction that touched an asset (its mint, its
// metadata, one of its token accounts, or the Core asset itself), kept in the ledger's LMDB
// transaction as `asset (32) ‖ slot (8, BE) ‖ position in the slot (4, BE) ‖ signature (64)` → what
// the transaction did to it (the SPL Token instruction: Transfer, MintTo, Burn, …, else Unknown),
// so a range read is execution order. The accounts are read as
// the transaction left them, so it does not depend on the asset index having seen them yet.
// Successful transactions only. A data dir from before this index has its stored transactions
// replayed into it once, at open.
import type { Database, RootDatabase } from 'lmdb';
import type { CommittedTransaction, StoredTransaction, TransactionIndexer } from '../ledger/index.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import type { AssetIndex } from './asset-index.js';
import {
  parseMetadata,
  parseTokenProgramAccount,
  TOKEN_2022_PROGRAM,
  TOKEN_METADATA_PROGRAM,
  TOKEN_PROGRAM,
} from './layouts.js';
import { MPL_CORE_PROGRAM } from './mpl-core.js';

/** SPL Token instruction tags and the names the answers use. */
const TOKEN_INSTRUCTIONS: Record<number, string> = {
  0: 'InitializeMint',
  1: 'InitializeAccount',
  3: 'Transfer',
  4: 'Approve',
  5: 'Revoke',
  7: 'MintTo',
  8: 'Burn',
  9: 'CloseAccount',
  10: 'Freeze',
  11: 'Thaw',
  12: 'Transfer',
  13: 'Approve',
  14: 'MintTo',
  15: 'Burn',
  16: 'InitializeAccount',
  18: 'InitializeAccount',
  20: 'InitializeMint',
};

/** What the index reads of a transaction, live or replayed from its record. */
type Seen = Pick<
  StoredTransaction,
  'signature' | 'slot' | 'position' | 'tx' | 'accountKeys' | 'tokenBalances' | 'account'
>;

/** Accounts whose asset the backfill remembers at once (about 100 bytes each). */
const REPLAY_MEMO_MAX = 200_000;

export class AssetSignatures implements TransactionIndexer {
  private readonly db: Database<string, Buffer>;
  private readonly state: Database<{ backfilled: boolean }, string>;
  private readonly root: RootDatabase;
  /**
   * While the backfill replays, what assetOf found for each account: the replay reads accounts as
   * they are now, the same for every transaction, and every Light transaction names trees and
   * queues of megabytes (20,000 transactions took 55 s reading them again each time). Bounded.
   */
  private replayed: Map<string, string | undefined> | undefined;

  constructor(
    root: RootDatabase,
    private readonly index: () => AssetIndex | undefined,
    /** Where the ledger committed a transaction: its slot and its position in the slot. */
    private readonly placeOf: (signature: Uint8Array) => { slot: bigint; position: number } | undefined = () =>
      undefined,
  ) {
    this.db = root.openDB<string, Buffer>({ name: 'das-asset-signatures-v2', keyEncoding: 'binary' });
    this.root = root;
    this.state = root.openDB<{ backfilled: boolean }, string>({ name: 'das-asset-signatures-state', encoding: 'json' });
  }

  // A failed transaction changed nothing about an asset (fees aside): it is not the asset's history.
  applyTransaction(t: CommittedTransaction): void {
    if (t.err === null) this.record(t);
  }

  /**
   * The transactions stored before this index existed (a data dir from before it), replayed once
   * from their records: the accounts as they are now, a closed token account's mint from the
   * record's token balances.
   */
  readonly backfill = {
    needed: () => this.state.get('backfill')?.backfilled !== true,
    apply: (t: StoredTransaction) => {
      this.replayed ??= new Map();
      if (!t.failed) this.record(t, this.replayed);
    },
    done: () => {
      this.replayed = undefined;
      this.state.put('backfill', { backfilled: true });
      // v1's keys had no position in the slot; v2 replaces it.
      this.root.openDB({ name: 'das-asset-signatures-v1', keyEncoding: 'binary' }).dropSync();
    },
  };

  /** `memo`: the backfill's, where accounts are read as they are now (never a live transaction's). */
  private record(t: Seen, memo?: Map<string, string | undefined>): void {
    const assets = new Map<string, string>();
    const tokenPrograms = new Set([TOKEN_PROGRAM, TOKEN_2022_PROGRAM]);
    const keys = t.accountKeys.map((k) => encodeBase58(k));
    // What each top-level SPL Token instruction did, by the accounts it named.
    const did = new Map<number, string>();
    for (const ix of t.tx.instructions) {
      if (!tokenPrograms.has(keys[ix.programIdIndex] ?? '')) continue;
      const name = TOKEN_INSTRUCTIONS[ix.data[0] ?? -1];
      if (name) for (const a of ix.accounts) if (!did.has(a)) did.set(a, name);
    }
    const mintOf = new Map(t.tokenBalances.map((b) => [b.accountIndex, b.mint]));
    t.accountKeys.forEach((k, i) => {
      const asset = this.assetOf(k, keys[i]!, t, memo) ?? mintOf.get(i);
      if (asset && !assets.has(asset)) assets.set(asset, did.get(i) ?? 'Unknown');
      else if (asset && assets.get(asset) === 'Unknown' && did.has(i)) assets.set(asset, did.get(i)!);
    });
    const place = Buffer.alloc(12);
    place.writeBigUInt64BE(t.slot);
    place.writeUInt32BE(t.position, 8);
    for (const [asset, what] of assets)
      this.db.put(Buffer.concat([decodeBase58(asset), place, Buffer.from(t.signature)]), what);
  }

  /** The asset an account belongs to, as the transaction left it (or as the index last saw it). */
  private assetOf(
    key: Uint8Array,
    address: string,
    t: Seen,
    memo: Map<string, string | undefined> | undefined,
  ): string | undefined {
    if (!memo) return this.assetNow(key, address, t);
    if (memo.has(address)) return memo.get(address);
    if (memo.size >= REPLAY_MEMO_MAX) memo.clear();
    const asset = this.assetNow(key, address, t);
    memo.set(address, asset);
    return asset;
  }

  private assetNow(key: Uint8Array, address: string, t: Seen): string | undefined {
    const a = t.account(key);
    if (a) {
      const owner = encodeBase58(a.owner);
      if (owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM) {
        const parsed = parseTokenProgramAccount(a.data, owner);
        if (!parsed) return undefined;
        return 'mint' in parsed ? address : parsed.account.mint;
      }
      if (owner === TOKEN_METADATA_PROGRAM) return parseMetadata(a.data)?.mint;
      if (owner === MPL_CORE_PROGRAM) return address;
      return undefined;
    }
    // Closed (a burn's token account): what the index knew of it; else the token balances.
    return this.index()?.tokenAccount(address)?.mint;
  }

  /**
   * An asset's signatures, newest first unless `ascending`, with what each did; `before` / `after`
   * (signatures) bound the history to what is older / newer than them, exclusive. A bound this
   * asset's history does not hold reads as an unknown point: nothing.
   */
  list(
    asset: string,
    s: { offset: number; limit: number; ascending: boolean; before?: Uint8Array; after?: Uint8Array },
  ): [string, string][] {
    const prefix = decodeBase58(asset);
    const at = (sig: Uint8Array) => {
      const place = this.placeOf(sig);
      if (!place) return undefined;
      const k = Buffer.concat([prefix, Buffer.alloc(12), sig]);
      k.writeBigUInt64BE(place.slot, 32);
      k.writeUInt32BE(place.position, 40);
      return k;
    };
    const lo = s.after ? at(s.after) : Buffer.concat([prefix, Buffer.alloc(76, 0)]);
    const hi = s.before ? at(s.before) : Buffer.concat([prefix, Buffer.alloc(76, 0xff)]);
    if (!lo || !hi) return [];
    const out: [string, string][] = [];
    let skip = s.offset;
    for (const { key, value } of this.db.getRange(
      s.ascending ? { start: lo, end: hi } : { start: hi, end: lo, reverse: true },
    )) {
      const k = key as Buffer;
      // Both bounds exclusive (getRange's start is inclusive).
      if (k.equals(lo) || k.equals(hi)) continue;
      if (skip-- > 0) continue;
      out.push([encodeBase58(k.subarray(44)), value]);
      if (out.length >= s.limit) break;
    }
    return out;
  }
}
