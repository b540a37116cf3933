// The ledger's secondary indexes over its accounts: program (owner) → accounts, and token owner /
// delegate → SPL Token and Token-2022 accounts. An AccountIndexer: every account write updates
// them inside the LMDB transaction that writes the account, so they never disagree after a crash.
import type { Database, RootDatabase } from 'lmdb';
import { decodeBase58 } from '../zk/base58.js';
import { prefixRange } from './key-range.js';
import type { AccountIndexer } from './ledger.js';
import type { StoredAccount } from './store.js';

// 2: Token-2022 token accounts were missed by version 1 (a wrong program id); rebuilt on open.
const VERSION = 2;
export const TOKEN_PROGRAM = decodeBase58('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const TOKEN_2022_PROGRAM = decodeBase58('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
const TOKEN_ACCOUNT_LEN = 165;
const ACCOUNT_TYPE_ACCOUNT = 2;

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** An initialized SPL Token / Token-2022 account: its mint, owner and delegate. */
export function tokenAccountKeys(
  a: StoredAccount,
): { mint: Uint8Array; owner: Uint8Array; delegate: Uint8Array | undefined } | undefined {
  if (!same(a.owner, TOKEN_PROGRAM) && !same(a.owner, TOKEN_2022_PROGRAM)) return undefined;
  const d = a.data;
  if (d.length < TOKEN_ACCOUNT_LEN) return undefined;
  // Token-2022 accounts with extensions carry their type after the base layout; mints are 82 bytes + padding.
  if (d.length > TOKEN_ACCOUNT_LEN && d[TOKEN_ACCOUNT_LEN] !== ACCOUNT_TYPE_ACCOUNT) return undefined;
  if (d[108] === 0) return undefined;
  const hasDelegate = d[72] === 1;
  return {
    mint: d.subarray(0, 32),
    owner: d.subarray(32, 64),
    delegate: hasDelegate ? d.subarray(76, 108) : undefined,
  };
}

/** What the index holds for one account, to undo it when the account changes. */
const encodeKeys = (owner: Uint8Array, tokenOwner?: Uint8Array, delegate?: Uint8Array) =>
  Buffer.concat([owner, tokenOwner ?? Buffer.alloc(0), delegate ?? Buffer.alloc(0)]);

export class AccountIndexes implements AccountIndexer {
  private readonly byOwner: Database<Buffer, Buffer>;
  private readonly byTokenOwner: Database<Buffer, Buffer>;
  private readonly byDelegate: Database<Buffer, Buffer>;
  private readonly indexed: Database<Buffer, Buffer>;
  private readonly meta: Database<unknown, string>;

  constructor(root: RootDatabase) {
    const bin = { keyEncoding: 'binary', encoding: 'binary' } as const;
    this.byOwner = root.openDB<Buffer, Buffer>({ name: 'idx-program-accounts-v1', ...bin });
    this.byTokenOwner = root.openDB<Buffer, Buffer>({ name: 'idx-token-owner-v1', ...bin });
    this.byDelegate = root.openDB<Buffer, Buffer>({ name: 'idx-token-delegate-v1', ...bin });
    this.indexed = root.openDB<Buffer, Buffer>({ name: 'idx-account-keys-v1', ...bin });
    this.meta = root.openDB<unknown, string>({ name: 'idx-meta', encoding: 'json' });
  }

  needsBackfill(): boolean {
    return this.meta.get('version') !== VERSION;
  }

  markBackfilled(): void {
    this.meta.put('version', VERSION);
  }

  apply(pubkey: Uint8Array, account: StoredAccount | undefined): void {
    const key = Buffer.from(pubkey);
    const prev = this.indexed.get(key);
    const token = account ? tokenAccountKeys(account) : undefined;
    const next = account ? encodeKeys(account.owner, token?.owner, token?.delegate) : undefined;
    if (prev && next && prev.equals(next)) return;
    if (prev) {
      this.byOwner.remove(Buffer.concat([prev.subarray(0, 32), key]));
      if (prev.length >= 64) this.byTokenOwner.remove(Buffer.concat([prev.subarray(32, 64), key]));
      if (prev.length >= 96) this.byDelegate.remove(Buffer.concat([prev.subarray(64, 96), key]));
      this.indexed.remove(key);
    }
    if (!account || !next) return;
    const empty = Buffer.alloc(0);
    this.byOwner.put(Buffer.concat([account.owner, key]), empty);
    if (token) {
      this.byTokenOwner.put(Buffer.concat([token.owner, key]), empty);
      if (token.delegate) this.byDelegate.put(Buffer.concat([token.delegate, key]), empty);
    }
    this.indexed.put(key, next);
  }

  /** The accounts a program owns, in pubkey order. */
  programAccounts(program: Uint8Array): Uint8Array[] {
    return this.under(this.byOwner, program);
  }

  /** Token accounts (SPL Token and Token-2022) held by an owner, in pubkey order. */
  tokenAccountsByOwner(owner: Uint8Array): Uint8Array[] {
    return this.under(this.byTokenOwner, owner);
  }

  tokenAccountsByDelegate(delegate: Uint8Array): Uint8Array[] {
    return this.under(this.byDelegate, delegate);
  }

  private under(db: Database<Buffer, Buffer>, prefix: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (const k of db.getKeys(prefixRange(prefix))) out.push(new Uint8Array((k as Buffer).subarray(32)));
    return out;
  }
}
