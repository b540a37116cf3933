// The embedded ledger: one long-lived litesvm VM holding the chain state zkgate simulates against,
// with every committed account write mirrored to LMDB (so state survives restarts), a slot clock
// (a slot every `slotMs`, a new blockhash per slot, the last 300 kept) and transaction records for
// getSignatureStatuses / getTransaction. All VM calls are synchronous on this thread, so a request
// never observes another one half-done.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { RootDatabase } from 'lmdb';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import { AccountIndexes } from './account-indexes.js';
import { SignatureIndex, type SignaturePage } from './signature-index.js';
import { loadsTokenProgram, tokenBalances, type TokenBalance } from './token-balances.js';
import { solanaTxError, txError, type SolanaTxError } from './tx-error.js';
import { isStaticWritable, parseTransaction, type ParsedTransaction } from './tx-wire.js';
import {
  accountView,
  decodeAccount,
  encodeAccount,
  openLedgerDbs,
  type LedgerDbs,
  type StoredAccount,
  type BlockRecord,
  type TxRecord,
} from './store.js';
import { litesvm, type Account, type FailedTransactionMetadata, type LiteSvm, type TransactionMetadata } from './vm.js';

export const SYSTEM_PROGRAM = new Uint8Array(32);
/** Blockhashes a transaction may cite: agave's MAX_PROCESSING_AGE. */
export const MAX_PROCESSING_AGE = 150;
/** Epochs of a fixed length (no warm-up), as getEpochInfo and getEpochSchedule answer. */
export const SLOTS_PER_EPOCH = 432_000n;
/** A slot's nominal length: the slot timer's default, and what time travel converts slots and time by. */
export const SLOT_MS = 400;
const KEPT_BLOCKHASHES = 300;
/** Agave's MAX_ENTRIES of the SlotHashes sysvar. */
const SLOT_HASHES_KEPT = 512;
const LAMPORTS_PER_SIGNATURE = 5000n;
const COMPUTE_BUDGET = Buffer.from(decodeBase58('ComputeBudget111111111111111111111111111111'));

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/**
 * Something kept in step with the ledger's accounts (the DAS asset index): it gets every account
 * write inside the same LMDB transaction, so the two can never disagree after a crash.
 */
export interface AccountIndexer {
  apply(pubkey: Uint8Array, account: StoredAccount | undefined, slot: bigint): void;
  /** True until every stored account has been applied once (a new index over an existing ledger). */
  needsBackfill(): boolean;
  markBackfilled(slot: bigint): void;
}

/** An instruction a program invoked (CPI), as the VM reports it; indices are into the transaction's keys. */
export interface InnerInstruction {
  programIdIndex: number;
  accounts: Uint8Array;
  data: Uint8Array;
  /** 2 for an instruction invoked by a top-level one, 3 for one it invoked, … */
  stackHeight: number;
}

/**
 * An inner instruction whose accounts, data and stack height are read from the VM when first
 * asked: indexers look at every instruction's program but at few instructions' bytes, and each
 * read is a call into the VM's native module.
 */
function lazyInnerInstruction(
  i: ReturnType<TransactionMetadata['innerInstructions']>[number][number],
): InnerInstruction {
  const c = i.instruction();
  let accounts: Uint8Array | undefined;
  let data: Uint8Array | undefined;
  let stackHeight: number | undefined;
  return {
    programIdIndex: c.programIdIndex(),
    get accounts() {
      return (accounts ??= c.accounts());
    },
    get data() {
      return (data ??= c.data());
    },
    get stackHeight() {
      return (stackHeight ??= i.stackHeight());
    },
  };
}

/** Inner instructions as a record keeps them: only top-level instructions that invoked any. */
function compiledInner(list: InnerInstruction[][]): NonNullable<TxRecord['inner']> {
  const out: NonNullable<TxRecord['inner']> = [];
  list.forEach((ixs, index) => {
    if (ixs.length > 0)
      out.push({
        index,
        instructions: ixs.map((i) => ({
          programIdIndex: i.programIdIndex,
          accounts: [...i.accounts],
          data: Buffer.from(i.data.buffer, i.data.byteOffset, i.data.length).toString('base64'),
          stackHeight: i.stackHeight,
        })),
      });
  });
  return out;
}

/** Return data is logged ("Program return: …") whenever a program sets it: the VM is asked only then. */
function returnDataOf(logs: string[], meta: TransactionMetadata): Pick<TxRecord, 'returnData'> {
  if (!logs.some((l) => l.startsWith('Program return: ') || l === 'Log truncated')) return {};
  const ret = meta.returnData();
  const data = ret.data();
  return data.length > 0
    ? { returnData: { programId: encodeBase58(ret.programId()), data: Buffer.from(data).toString('base64') } }
    : {};
}

/**
 * A transaction as any block source gives it (the embedded ledger, or a followed cluster's RPC:
 * src/ingest): what indexers read of a transaction wherever it ran.
 */
export interface ChainTransaction {
  signature: Uint8Array;
  slot: bigint;
  /** Its place among its slot's transactions (execution order). */
  position: number;
  /** Unix seconds; 0 where the source has none. */
  blockTime: number;
  tx: ParsedTransaction;
  /** Every key the transaction loads, in index order: static keys, lookup writables, lookup readonlys. */
  accountKeys: Uint8Array[];
  err: SolanaTxError | null;
  logs: string[];
  /** The instructions each top-level instruction invoked, in order (the ledger reads them from the VM on first use). */
  innerInstructions(): InnerInstruction[][];
  /** Its token accounts before, then after (the meta's pre/postTokenBalances). */
  tokenBalances: readonly TokenBalance[];
}

/** A transaction as transaction indexers see it: committed, inside the LMDB transaction committing it. */
export interface CommittedTransaction extends ChainTransaction {
  /** An account as the transaction left it. */
  account(pubkey: Uint8Array): StoredAccount | undefined;
}

/**
 * A transaction read back from its record, for an indexer created after it committed: its
 * accounts are as they are now (the VM's state at the time is gone), its token accounts' mints as
 * the record's token balances name them.
 */
export interface StoredTransaction {
  signature: Uint8Array;
  slot: bigint;
  position: number;
  tx: ParsedTransaction;
  accountKeys: Uint8Array[];
  failed: boolean;
  tokenBalances: readonly TokenBalance[];
  account(pubkey: Uint8Array): StoredAccount | undefined;
}

/**
 * Something kept in step with the ledger's transactions (the compression index): it sees every
 * committed transaction inside the LMDB transaction that writes its accounts and its record.
 * One that can be derived from records alone may also take the transactions stored before it
 * existed, once, at the ledger's open (`backfill`).
 */
export interface TransactionIndexer {
  applyTransaction(t: CommittedTransaction): void;
  backfill?: {
    needed(): boolean;
    apply(t: StoredTransaction): void;
    done(): void;
  };
}

/** An account as a change left it (undefined: closed). */
export interface AccountChange {
  pubkey: Uint8Array;
  account: StoredAccount | undefined;
}

/**
 * What the ledger tells its observers (websocket subscriptions), after the change has committed:
 * a transaction (airdrops too) with the accounts it wrote, accounts written by other means
 * (fork fetches, cheatcodes), and each new slot.
 */
export type LedgerEvent =
  | {
      type: 'transaction';
      slot: bigint;
      signature: Uint8Array;
      /** Solana's JSON form of the error, or null. */
      err: unknown;
      logs: string[];
      accountKeys: Uint8Array[];
      /** The keys it locked for writing, and its compute-unit price (prioritization fees). */
      writableKeys: Uint8Array[];
      computeUnitPrice: bigint;
      accounts: AccountChange[];
    }
  | { type: 'accounts'; slot: bigint; accounts: AccountChange[] }
  | { type: 'slot'; slot: bigint; parent: bigint };

export interface LedgerOptions {
  dir: string;
  slotMs?: number;
  /** Accounts the ledger starts with (genesis, fixtures): written where the ledger holds none. */
  accounts?: { pubkey: Uint8Array; account: StoredAccount }[];
  /** Programs loaded at every start (litesvm deploys them under the upgradeable loader). */
  programs?: { id: Uint8Array; bytes: Uint8Array }[];
  /** Indexers over the ledger's accounts, created on its store (they may open their own tables). */
  indexers?: ((root: RootDatabase) => AccountIndexer)[];
  /** Indexers over its committed transactions, likewise. */
  transactionIndexers?: ((root: RootDatabase) => TransactionIndexer)[];
  /** Told when a transaction indexer throws (its writes for that transaction are dropped). */
  onIndexerError?: (error: unknown, t: CommittedTransaction) => void;
}

export interface ExecutionResult {
  signature: Uint8Array;
  err: SolanaTxError | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: { programId: Uint8Array; data: Uint8Array } | null;
  fee: bigint;
  /** Writable accounts after execution, as the VM's own objects (simulation only; empty on failure). */
  postAccounts: { pubkey: Uint8Array; account: Account }[];
}

export const toStored = (a: Account): StoredAccount => ({
  lamports: a.lamports(),
  data: a.data(),
  owner: a.owner(),
  executable: a.executable(),
  rentEpoch: a.rentEpoch(),
});

const EMPTY: StoredAccount = {
  lamports: 0n,
  data: new Uint8Array(0),
  owner: SYSTEM_PROGRAM,
  executable: false,
  rentEpoch: 0n,
};

const slotKey = (slot: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(slot, 0);
  return b;
};

const toVm = (a: StoredAccount): Account => new litesvm.Account(a.lamports, a.data, a.owner, a.executable, a.rentEpoch);

export class Ledger {
  private readonly svm: LiteSvm;
  /** A slot started since the SlotHashes sysvar was last written (see the vm getter). */
  private slotHashesStale = false;
  private slotValue: bigint;
  /** Most recent last. */
  private blockhashes: { hash: string; slot: bigint }[];
  private blockhashSlots = new Map<string, bigint>();
  private readonly recentSignatures = new Map<string, bigint>();
  private blockhashBytes = new Map<string, bigint>();
  /** SlotHashes entries for slots without a kept blockhash (see syncSlotHashes). */
  private readonly derivedSlotHashes = new Map<bigint, string>();
  private timer?: NodeJS.Timeout;
  private readonly slotMs: number;
  /** The ledger's time is the wall clock plus this (time travel moves it). */
  private timeShiftMs = 0;
  /** The ledger's time while the clock is paused (it stands still). */
  private pausedAt: number | undefined;
  /**
   * The current slot's time (unix seconds), as its Clock sysvar holds it: its block's time and
   * every transaction's in it, as a validator's block time is one per block.
   */
  private slotUnix = 0;
  private readonly indexers: AccountIndexer[];
  /** Program → accounts and token owner / delegate → token accounts, kept with the accounts. */
  readonly indexes: AccountIndexes;
  private readonly signatureIndex: SignatureIndex;
  private readonly txIndexers: TransactionIndexer[];
  private readonly onIndexerError: (error: unknown, t: CommittedTransaction) => void;
  private readonly listeners = new Set<(e: LedgerEvent) => void>();
  /** Account writes outside transactions, told once their LMDB transaction has committed. */
  private looseWrites: AccountChange[] | undefined;
  private readonly genesis: string;
  /** This node's identity and vote account (base58). */
  readonly node: { identity: string; vote: string };

  private constructor(
    private readonly dbs: LedgerDbs,
    opts: LedgerOptions,
  ) {
    this.svm = new litesvm.LiteSvm();
    // zkgate checks blockhash age and signatures itself (the VM knows one blockhash and checks
    // signatures per transaction, where Jito verifies a whole bundle up front).
    this.vm.setBlockhashCheck(false);
    this.vm.setSigverify(false);
    this.vm.setLogBytesLimit(10_000n);
    // zkgate keeps the status cache itself (isRecentSignature): bundles execute for real in the VM
    // and are undone, which the VM's own history would then refuse to run twice.
    this.vm.setTransactionHistory(0n);
    const meta = dbs.meta.get('clock') as
      { slot: string; blockhashes: { hash: string; slot: string }[]; timeShiftMs?: number } | undefined;
    this.timeShiftMs = meta?.timeShiftMs ?? 0;
    this.slotValue = meta ? BigInt(meta.slot) : this.vm.getClock().slot;
    this.blockhashes = meta
      ? meta.blockhashes.map((b) => ({ hash: b.hash, slot: BigInt(b.slot) }))
      : [{ hash: this.vm.latestBlockhash(), slot: this.slotValue }];
    this.syncClock();
    this.syncSlotHashes();
    this.indexBlockhashes();
    // A ledger from before the genesis hash was kept takes its oldest blockhash as its genesis.
    this.genesis = (dbs.meta.get('genesis') as string | undefined) ?? this.blockhashes[0]!.hash;
    dbs.meta.putSync('genesis', this.genesis);
    // The node's identity and vote account as a single-node cluster reports them (made once, kept).
    const node = (dbs.meta.get('node') as { identity: string; vote: string } | undefined) ?? {
      identity: encodeBase58(randomBytes(32)),
      vote: encodeBase58(randomBytes(32)),
    };
    dbs.meta.putSync('node', node);
    this.node = node;
    for (const { key, value } of dbs.accounts.getRange())
      this.vm.setAccount(new Uint8Array(key), toVm(decodeAccount(value)));
    this.indexes = new AccountIndexes(dbs.root);
    this.signatureIndex = new SignatureIndex(dbs.root);
    this.indexers = [this.indexes, ...(opts.indexers ?? []).map((make) => make(dbs.root))];
    this.txIndexers = (opts.transactionIndexers ?? []).map((make) => make(dbs.root));
    this.onIndexerError = opts.onIndexerError ?? (() => {});
    for (const ix of this.indexers) {
      if (!ix.needsBackfill()) continue;
      dbs.root.transactionSync(() => {
        for (const { key, value } of dbs.accounts.getRange())
          ix.apply(new Uint8Array(key), decodeAccount(value), this.slotValue);
        ix.markBackfilled(this.slotValue);
      });
    }
    for (const ix of this.txIndexers) {
      if (!ix.backfill?.needed()) continue;
      const backfill = ix.backfill;
      dbs.root.transactionSync(() => {
        for (const { key, value } of dbs.txs.getRange()) {
          // Airdrops are recorded without a transaction: the faucet's credits touch no program.
          if (value.tx === '') continue;
          backfill.apply(this.storedTransaction(key, value));
        }
        backfill.done();
      });
    }
    dbs.root.transactionSync(() => {
      for (const g of opts.accounts ?? [])
        if (!dbs.accounts.get(Buffer.from(g.pubkey))) this.writeAccount(g.pubkey, g.account);
    });
    for (const p of opts.programs ?? []) this.vm.addProgram(p.id, p.bytes);
    this.slotMs = opts.slotMs ?? SLOT_MS;
    this.startTimer();
  }

  private storedTransaction(signature: Buffer, rec: TxRecord): StoredTransaction {
    const tx = parseTransaction(Buffer.from(rec.tx, 'base64'));
    const loaded = [...(rec.loaded?.writable ?? []), ...(rec.loaded?.readonly ?? [])].map(decodeBase58);
    return {
      signature: new Uint8Array(signature),
      slot: BigInt(rec.slot),
      position: this.signatureIndex.placeOf(signature)?.position ?? 0,
      tx,
      accountKeys: [...tx.staticKeys, ...loaded],
      failed: rec.err !== null,
      tokenBalances: [...(rec.preTokenBalances ?? []), ...(rec.postTokenBalances ?? [])],
      // From the stored copy, not the VM: a backfill replays every transaction in one synchronous
      // run, and each VM read is a native copy (a state tree's account is over 1 MB) that is freed
      // only when the event loop turns: 20,000 transactions held 23 GB.
      account: (k) => this.storedAccount(k),
    };
  }

  private startTimer(): void {
    if (this.slotMs <= 0) return;
    this.timer = setInterval(() => this.advanceSlot(), this.slotMs);
    this.timer.unref();
  }

  static open(opts: LedgerOptions): Ledger {
    mkdirSync(opts.dir, { recursive: true });
    return new Ledger(openLedgerDbs(opts.dir), opts);
  }

  get slot(): bigint {
    return this.slotValue;
  }

  /** processed = the current slot; confirmed one behind; finalized 32 behind (as a validator's lag). */
  slotAt(c: Commitment = 'finalized'): bigint {
    const back = c === 'processed' ? 0n : c === 'confirmed' ? 1n : 32n;
    return this.slotValue > back ? this.slotValue - back : 0n;
  }

  advanceSlot(): void {
    this.produce(this.slotValue + 1n);
  }

  /**
   * Time travel (Surfpool's cheatcode): the clock jumps forward to `slot` and the ledger's time to
   * `timeMs`. The slot that ends gets its block; the slots jumped over get none, as a leader's
   * skipped slots, and blockhashes age by slot as always.
   */
  travel(slot: bigint, timeMs: number): void {
    if (slot < this.slotValue) throw new RangeError(`slot ${slot} is behind the current slot ${this.slotValue}`);
    if (slot > this.slotValue) return this.produce(slot, timeMs);
    this.setTime(timeMs);
    this.syncClock();
    this.saveClock();
  }

  /** Ends the current slot with its block and starts `next`; the time moves to `timeMs` in between when given. */
  private produce(next: bigint, timeMs?: number): void {
    const closing = this.blockhashes[this.blockhashes.length - 1]!;
    const before = this.blockhashes[this.blockhashes.length - 2];
    // The block of the slot that ends: one per slot, empty or not (its transactions are indexed by
    // slot). Written synchronously: it is confirmed the moment the next slot starts, and readers
    // (getBlock, blockSubscribe) look it up then.
    this.dbs.blocks.putSync(slotKey(this.slotValue), {
      blockhash: closing.hash,
      previousBlockhash: before?.hash ?? closing.hash,
      // The last block before it: the previous slot, unless time travel skipped slots.
      parentSlot: (before?.slot ?? (this.slotValue > 0n ? this.slotValue - 1n : 0n)).toString(),
      blockTime: this.slotUnix,
    });
    if (timeMs !== undefined) this.setTime(timeMs);
    const parent = this.slotValue;
    this.slotValue = next;
    const hash = encodeBase58(
      createHash('sha256').update(decodeBase58(closing.hash)).update(this.slotValue.toString()).digest(),
    );
    this.blockhashes.push({ hash, slot: this.slotValue });
    if (this.blockhashes.length > KEPT_BLOCKHASHES) this.blockhashes.shift();
    this.indexBlockhashes();
    this.syncClock();
    this.slotHashesStale = true;
    this.saveClock();
    this.emit({ type: 'slot', slot: this.slotValue, parent });
  }

  private saveClock(): void {
    this.dbs.meta.put('clock', {
      slot: this.slotValue.toString(),
      blockhashes: this.blockhashes.map((b) => ({ hash: b.hash, slot: b.slot.toString() })),
      // A paused clock restarts where it stood.
      timeShiftMs: this.now() - Date.now(),
    });
  }

  /** The ledger's time (ms): the wall clock moved by time travel, standing still while paused. */
  now(): number {
    return this.pausedAt ?? Date.now() + this.timeShiftMs;
  }

  private setTime(ms: number): void {
    if (this.pausedAt !== undefined) this.pausedAt = ms;
    else this.timeShiftMs = ms - Date.now();
  }

  /** The Clock sysvar programs read: the slot, its epoch and the ledger's time (the VM keeps only what it is given). */
  private syncClock(): void {
    const unix = BigInt(Math.floor(this.now() / 1000));
    this.slotUnix = Number(unix);
    const epoch = this.slotValue / SLOTS_PER_EPOCH;
    const sinceEpochStart = ((this.slotValue % SLOTS_PER_EPOCH) * BigInt(SLOT_MS)) / 1000n;
    this.svm.setClock(new litesvm.Clock(this.slotValue, unix - sinceEpochStart, epoch, epoch + 1n, unix));
  }

  /**
   * The SlotHashes sysvar: the 512 slots before the current one, newest first, as a bank keeps them
   * (the address lookup table program accepts only a `recentSlot` found there). Slots whose
   * blockhash has aged out, or that came before this ledger's first slot (which the commitment
   * levels already count as finalized), get a hash derived from the slot.
   */
  private syncSlotHashes(): void {
    const known = new Map(this.blockhashes.map((b) => [b.slot, b.hash]));
    const entries: { slot: bigint; hash: string }[] = [];
    for (let slot = this.slotValue - 1n; slot >= 0n && entries.length < SLOT_HASHES_KEPT; slot--) {
      let hash = known.get(slot) ?? this.derivedSlotHashes.get(slot);
      if (hash === undefined) {
        hash = encodeBase58(createHash('sha256').update(`zkgate slot ${slot}`).digest());
        this.derivedSlotHashes.set(slot, hash);
      }
      entries.push({ slot, hash });
    }
    // Derived hashes are made once per slot (hashing 512 each slot would hold the event loop for ms).
    const oldest = this.slotValue - BigInt(SLOT_HASHES_KEPT);
    for (const slot of this.derivedSlotHashes.keys()) if (slot < oldest) this.derivedSlotHashes.delete(slot);
    this.svm.setSlotHashes(entries);
    this.slotHashesStale = false;
  }

  /**
   * The VM, its sysvars up to date. SlotHashes (512 entries) is written when something next uses the
   * VM rather than at every slot: an idle dev chain at 100 ms slots spent 4 ms of each writing it.
   */
  get vm(): LiteSvm {
    if (this.slotHashesStale) this.syncSlotHashes();
    return this.svm;
  }

  /** Stops the slot clock (a cheatcode): no new slots, and the ledger's time stands still. */
  pauseClock(): void {
    if (this.pausedAt !== undefined) return;
    this.pausedAt = this.now();
    clearInterval(this.timer);
    this.timer = undefined;
  }

  resumeClock(): void {
    if (this.pausedAt === undefined) return;
    this.timeShiftMs = this.pausedAt - Date.now();
    this.pausedAt = undefined;
    this.startTimer();
  }

  /** Observes committed changes and new slots; returns the function that stops observing. */
  onEvent(listener: (e: LedgerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(e: LedgerEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // An observer's failure is its own: the ledger has committed already.
      }
    }
  }

  /** Runs `write` in one LMDB transaction and tells observers the accounts it wrote outside transactions. */
  private writing<T>(write: () => T): T {
    const outer = this.looseWrites === undefined;
    if (outer) this.looseWrites = [];
    try {
      const r = this.dbs.root.transactionSync(write);
      const changed = this.looseWrites!;
      if (outer && changed.length > 0 && this.listeners.size > 0)
        this.emit({ type: 'accounts', slot: this.slotValue, accounts: changed });
      return r;
    } finally {
      if (outer) this.looseWrites = undefined;
    }
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint } {
    const b = this.blockhashes[this.blockhashes.length - 1]!;
    return { blockhash: b.hash, lastValidBlockHeight: b.slot + BigInt(MAX_PROCESSING_AGE) };
  }

  /** Whether a blockhash is recent enough to be cited (within `maxAge` slots). */
  isBlockhashValid(hash: string, maxAge = MAX_PROCESSING_AGE): boolean {
    const slot = this.blockhashSlots.get(hash);
    return slot !== undefined && this.slotValue - slot <= BigInt(maxAge);
  }

  /** The same, for the 32 bytes a transaction carries. */
  isBlockhashBytesValid(hash: Uint8Array, maxAge = MAX_PROCESSING_AGE): boolean {
    const slot = this.blockhashBytes.get(Buffer.from(hash).toString('hex'));
    return slot !== undefined && this.slotValue - slot <= BigInt(maxAge);
  }

  private indexBlockhashes(): void {
    this.blockhashSlots = new Map(this.blockhashes.map((b) => [b.hash, b.slot]));
    this.blockhashBytes = new Map(
      this.blockhashes.map((b) => [Buffer.from(decodeBase58(b.hash)).toString('hex'), b.slot]),
    );
  }

  getAccount(pubkey: Uint8Array): StoredAccount | undefined {
    const a = this.vm.getAccount(pubkey);
    return a && a.lamports() > 0n ? toStored(a) : undefined;
  }

  /**
   * An account as stored (the VM's state, mirrored): cheaper than asking the VM when many are read
   * (getProgramAccounts); programs and sysvars the VM loads itself are not stored. Data is a view.
   */
  storedAccount(pubkey: Uint8Array): StoredAccount | undefined {
    const b = this.dbs.accounts.get(Buffer.from(pubkey));
    return b ? accountView(b) : undefined;
  }

  /** Writes an account to the VM and to disk (zero lamports deletes it). Call inside a transaction for atomicity. */
  writeAccount(pubkey: Uint8Array, a: StoredAccount): void {
    this.vm.setAccount(pubkey, toVm(a));
    if (a.lamports === 0n) this.dbs.accounts.remove(Buffer.from(pubkey));
    else this.dbs.accounts.put(Buffer.from(pubkey), encodeAccount(a));
    this.notify(pubkey, a.lamports === 0n ? undefined : a);
    this.looseWrites?.push({ pubkey, account: a.lamports === 0n ? undefined : a });
  }

  /** Writes accounts in one LMDB transaction (cheatcodes, fixtures); observers are told after it commits. */
  writeAccounts(list: readonly AccountChange[]): void {
    this.writing(() => {
      for (const { pubkey, account } of list) this.writeAccount(pubkey, account ?? EMPTY);
    });
  }

  private notify(pubkey: Uint8Array, a: StoredAccount | undefined): void {
    for (const ix of this.indexers) ix.apply(pubkey, a, this.slotValue);
  }

  /**
   * Adds accounts fetched from elsewhere (fork mode), atomically; an account the ledger came to
   * hold meanwhile (written by a transaction while the fetch was in flight) is kept as it is.
   */
  importAccounts(list: readonly { pubkey: Uint8Array; account: StoredAccount }[]): void {
    this.writing(() => {
      for (const { pubkey, account } of list) if (!this.vm.getAccount(pubkey)) this.writeAccount(pubkey, account);
    });
  }

  /**
   * Persists the VM's current state of these accounts (inside the committing transaction); returns
   * them by hex key, so indexers read the post-state without copying big accounts out of the VM again.
   */
  private persist(keys: readonly Uint8Array[]): Map<string, StoredAccount | undefined> {
    const out = new Map<string, StoredAccount | undefined>();
    for (const k of keys) {
      const vmAccount = this.vm.getAccount(k);
      const a = vmAccount && vmAccount.lamports() > 0n ? toStored(vmAccount) : undefined;
      if (a) this.dbs.accounts.put(Buffer.from(k), encodeAccount(a));
      else this.dbs.accounts.remove(Buffer.from(k));
      this.notify(k, a);
      out.set(Buffer.from(k).toString('hex'), a);
    }
    return out;
  }

  /** Deploys (or redeploys) a program into the VM; it is not persisted: programs load at every start. */
  deployProgram(id: Uint8Array, bytes: Uint8Array): void {
    this.vm.addProgram(id, bytes);
  }

  minimumBalanceForRentExemption(len: number): bigint {
    return this.vm.minimumBalanceForRentExemption(BigInt(len));
  }

  /** Every account key a transaction loads: static keys, then lookup-table writables, then readonlys. */
  accountKeys(tx: ParsedTransaction): {
    keys: Uint8Array[];
    writableLookups: Uint8Array[];
    readonlyLookups: Uint8Array[];
  } {
    const writableLookups: Uint8Array[] = [];
    const readonlyLookups: Uint8Array[] = [];
    for (const l of tx.lookups) {
      const table = this.vm.getAccount(l.table);
      const data = table?.data();
      const at = (i: number) =>
        data && 56 + 32 * (i + 1) <= data.length ? data.subarray(56 + 32 * i, 56 + 32 * (i + 1)) : undefined;
      for (const i of l.writable) {
        const k = at(i);
        if (k) writableLookups.push(k);
      }
      for (const i of l.readonly) {
        const k = at(i);
        if (k) readonlyLookups.push(k);
      }
    }
    return { keys: [...tx.staticKeys, ...writableLookups, ...readonlyLookups], writableLookups, readonlyLookups };
  }

  /** The compute-unit price a transaction sets (micro-lamports), 0 if none. */
  computeUnitPrice(tx: ParsedTransaction): bigint {
    for (const ix of tx.instructions) {
      const program = tx.staticKeys[ix.programIdIndex];
      const d = ix.data;
      if (program && Buffer.from(program).equals(COMPUTE_BUDGET) && d[0] === 3 && d.length >= 9)
        return Buffer.from(d).readBigUInt64LE(1);
    }
    return 0n;
  }

  /** Fee as agave charges it: 5,000 lamports a signature plus the compute-unit price × limit. */
  fee(tx: ParsedTransaction): bigint {
    let price = 0n;
    let limit: bigint | undefined;
    let nonBudget = 0;
    for (const ix of tx.instructions) {
      const program = tx.staticKeys[ix.programIdIndex];
      if (program && Buffer.from(program).equals(COMPUTE_BUDGET)) {
        const d = ix.data;
        if (d[0] === 2 && d.length >= 5) limit = BigInt(Buffer.from(d).readUInt32LE(1));
        if (d[0] === 3 && d.length >= 9) price = Buffer.from(d).readBigUInt64LE(1);
      } else nonBudget++;
    }
    const units = limit ?? BigInt(Math.min(1_400_000, 200_000 * nonBudget));
    const priority = (price * units + 999_999n) / 1_000_000n;
    return LAMPORTS_PER_SIGNATURE * BigInt(tx.numRequiredSignatures) + priority;
  }

  /** Runs a transaction without committing; the VM's view includes earlier writes of the caller's overlay. */
  simulate(tx: ParsedTransaction, bytes: Uint8Array = tx.bytes): ExecutionResult {
    if (this.isRecentSignature(tx.signatures[0] ?? new Uint8Array(64))) {
      return {
        signature: tx.signatures[0]!,
        err: txError('AlreadyProcessed'),
        logs: [],
        unitsConsumed: 0n,
        returnData: null,
        fee: this.fee(tx),
        postAccounts: [],
      };
    }
    const r = this.vm.simulateVersionedTransaction(bytes);
    const failed = 'err' in r;
    return {
      ...this.outcome(tx, r.meta(), failed ? r.err() : null),
      postAccounts: failed ? [] : r.postAccounts().map((p) => ({ pubkey: p.address, account: p.account() })),
    };
  }

  /**
   * Executes a transaction in the VM without persisting or recording it: the caller snapshots the
   * writable accounts first and restores them after (simulateBundle's overlay). Fees are charged
   * to the payer even when execution fails, as a validator does.
   */
  executeInVm(tx: ParsedTransaction, bytes: Uint8Array = tx.bytes): Omit<ExecutionResult, 'postAccounts'> {
    const r = this.vm.sendVersionedTransaction(bytes);
    return 'err' in r ? this.outcome(tx, r.meta(), r.err()) : this.outcome(tx, r, null);
  }

  private outcome(
    tx: ParsedTransaction,
    meta: TransactionMetadata,
    err: ReturnType<FailedTransactionMetadata['err']> | null,
  ): Omit<ExecutionResult, 'postAccounts'> {
    const logs = meta.logs();
    // Return data is logged ("Program return: <id> <base64>") whenever a program sets it, so the
    // NAPI round trips for it are only paid when there is some (or the logs were cut short).
    let returnData: ExecutionResult['returnData'] = null;
    if (logs.some((l) => l.startsWith('Program return: ') || l === 'Log truncated')) {
      const ret = meta.returnData();
      const data = ret.data();
      if (data.length > 0) returnData = { programId: ret.programId(), data };
    }
    return {
      signature: tx.signatures[0] ?? new Uint8Array(64),
      err: err === null ? null : solanaTxError(err),
      logs,
      unitsConsumed: meta.computeUnitsConsumed(),
      returnData,
      fee: this.fee(tx),
    };
  }

  /** Keys a transaction may write: writable static keys and writable lookup-table keys. */
  writableKeys(tx: ParsedTransaction, writableLookups: Uint8Array[]): Uint8Array[] {
    return [...tx.staticKeys.filter((_, i) => isStaticWritable(tx, i)), ...writableLookups];
  }

  /**
   * Executes and commits a transaction (fees are charged even when it fails), and records it: its
   * account writes, its record and what transaction indexers derive from it commit together.
   */
  send(tx: ParsedTransaction): { signature: Uint8Array; err: SolanaTxError | null } {
    if (this.isRecentSignature(tx.signatures[0]!))
      return { signature: tx.signatures[0]!, err: txError('AlreadyProcessed') };
    const { keys, writableLookups, readonlyLookups } = this.accountKeys(tx);
    const pre = keys.map((k) => this.vm.getBalance(k) ?? 0n);
    // Token balances are read only for transactions that load a token program (others hold none).
    const invoked = new Set(tx.instructions.map((ix) => ix.programIdIndex));
    const readTokens = loadsTokenProgram(keys);
    const account = (k: Uint8Array) => this.getAccount(k);
    const preTokenBalances = readTokens ? tokenBalances(keys, invoked, account) : [];
    const r = this.vm.sendVersionedTransaction(tx.bytes);
    const failed = 'err' in r;
    const meta = failed ? r.meta() : r;
    const err = failed ? solanaTxError(r.err()) : null;
    const post = keys.map((k) => this.vm.getBalance(k) ?? 0n);
    const signature = tx.signatures[0]!;
    const logs = meta.logs();
    const blockTime = this.slotUnix;
    let inner: InnerInstruction[][] | undefined;
    const innerInstructions = () => (inner ??= meta.innerInstructions().map((list) => list.map(lazyInnerInstruction)));
    const rec: TxRecord = {
      slot: this.slotValue.toString(),
      err: err?.json ?? null,
      logs,
      fee: this.fee(tx).toString(),
      computeUnits: meta.computeUnitsConsumed().toString(),
      preBalances: pre.map(String),
      postBalances: post.map(String),
      tx: Buffer.from(tx.bytes).toString('base64'),
      blockTime,
      ...(tx.version === 0
        ? { loaded: { writable: writableLookups.map(encodeBase58), readonly: readonlyLookups.map(encodeBase58) } }
        : {}),
      inner: compiledInner(innerInstructions()),
      preTokenBalances,
      postTokenBalances: readTokens ? tokenBalances(keys, invoked, account) : [],
      ...returnDataOf(logs, meta),
    };
    let written: Map<string, StoredAccount | undefined> | undefined;
    const committed: CommittedTransaction = {
      signature,
      slot: this.slotValue,
      position: 0,
      blockTime,
      tx,
      accountKeys: keys,
      err,
      logs,
      innerInstructions,
      tokenBalances: [...(rec.preTokenBalances ?? []), ...(rec.postTokenBalances ?? [])],
      account: (k) => {
        const hex = Buffer.from(k).toString('hex');
        return written?.has(hex) ? written.get(hex) : this.getAccount(k);
      },
    };
    // Only writable accounts can change; read-only ones (programs, sysvars) stay the VM's own.
    const writable = this.writableKeys(tx, writableLookups);
    this.dbs.root.transactionSync(() => {
      written = this.persist(writable);
      this.dbs.txs.put(Buffer.from(signature), rec);
      committed.position = this.signatureIndex.record(signature, this.slotValue, keys, true);
      for (const ix of this.txIndexers) {
        // A failing indexer loses its own writes (a nested transaction), never the transaction's.
        try {
          this.dbs.root.transactionSync(() => ix.applyTransaction(committed));
        } catch (e) {
          this.onIndexerError(e, committed);
        }
      }
    });
    this.noteSignature(signature);
    if (this.listeners.size > 0)
      this.emit({
        type: 'transaction',
        slot: this.slotValue,
        signature,
        err: rec.err,
        logs,
        accountKeys: keys,
        writableKeys: writable,
        computeUnitPrice: this.computeUnitPrice(tx),
        accounts: writable.map((pubkey) => ({ pubkey, account: written!.get(Buffer.from(pubkey).toString('hex')) })),
      });
    return { signature, err };
  }

  /** Credits lamports (the ledger's faucet) and records a transaction-like entry for the signature. */
  airdrop(pubkey: Uint8Array, lamports: bigint): Uint8Array {
    const current = this.getAccount(pubkey);
    const next: StoredAccount = current
      ? { ...current, lamports: current.lamports + lamports }
      : { lamports, data: new Uint8Array(0), owner: SYSTEM_PROGRAM, executable: false, rentEpoch: 0n };
    const signature = new Uint8Array(randomBytes(64));
    this.writing(() => {
      this.writeAccount(pubkey, next);
      this.signatureIndex.record(signature, this.slotValue, [pubkey], false);
      this.dbs.txs.put(Buffer.from(signature), {
        slot: this.slotValue.toString(),
        err: null,
        logs: [],
        fee: '0',
        computeUnits: '0',
        preBalances: [(current?.lamports ?? 0n).toString()],
        postBalances: [next.lamports.toString()],
        tx: '',
        blockTime: this.slotUnix,
      });
    });
    this.noteSignature(signature);
    if (this.listeners.size > 0)
      this.emit({
        type: 'transaction',
        slot: this.slotValue,
        signature,
        err: null,
        logs: [],
        accountKeys: [pubkey],
        writableKeys: [pubkey],
        computeUnitPrice: 0n,
        accounts: [],
      });
    return signature;
  }

  /**
   * Kept only for the blockhash window: entries go in slot order (a Map iterates in insertion
   * order), so the expired ones are always at the front and leave as new ones arrive.
   */
  private noteSignature(signature: Uint8Array): void {
    const key = Buffer.from(signature).toString('hex');
    this.recentSignatures.delete(key);
    this.recentSignatures.set(key, this.slotValue);
    for (const [k, slot] of this.recentSignatures) {
      if (this.slotValue - slot <= BigInt(KEPT_BLOCKHASHES)) break;
      this.recentSignatures.delete(k);
    }
  }

  /**
   * Whether a transaction with this signature was processed within the blockhash window: the
   * status cache a validator checks (AlreadyProcessed). Older ones carry an expired blockhash anyway.
   */
  isRecentSignature(signature: Uint8Array): boolean {
    const slot = this.recentSignatures.get(Buffer.from(signature).toString('hex'));
    return slot !== undefined && this.slotValue - slot <= BigInt(KEPT_BLOCKHASHES);
  }

  /** Transactions the ledger has recorded (airdrops included), as getTransactionCount counts them. */
  transactionCount(): number {
    return (this.dbs.txs.getStats() as { entryCount: number }).entryCount;
  }

  /** Every stored account's address and lamports (supply and largest-accounts scans). */
  *balances(): Generator<{ pubkey: Uint8Array; lamports: bigint }> {
    for (const { key, value } of this.dbs.accounts.getRange())
      yield { pubkey: new Uint8Array(key), lamports: (value as Buffer).readBigUInt64BE(0) };
  }

  /** The hash of the ledger's first block, fixed when the ledger was created. */
  get genesisHash(): string {
    return this.genesis;
  }

  /** Signatures of the transactions that loaded `address`, newest first (getSignaturesForAddress). */
  signaturesForAddress(address: Uint8Array, page: SignaturePage): { signature: Uint8Array; record: TxRecord }[] {
    return this.signatureIndex.signatures(address, page).flatMap((signature) => {
      const record = this.transaction(signature);
      return record ? [{ signature, record }] : [];
    });
  }

  /** The newest transactions of the ledger's blocks, newest first (airdrops are in none). */
  latestTransactions(limit: number): { signature: Uint8Array; record: TxRecord }[] {
    return this.signatureIndex.latest(limit).flatMap((signature) => {
      const record = this.transaction(signature);
      return record ? [{ signature, record }] : [];
    });
  }

  /** A produced block: its header and its transactions' signatures in order; undefined if none. */
  block(slot: bigint): { header: BlockRecord; signatures: Uint8Array[] } | undefined {
    const header = this.dbs.blocks.get(slotKey(slot));
    return header ? { header, signatures: this.signatureIndex.slotSignatures(slot) } : undefined;
  }

  /** Slots of the blocks produced from `start` to `end` (inclusive), ascending, at most `limit`. */
  blockSlots(start: bigint, end: bigint, limit: number): bigint[] {
    const out: bigint[] = [];
    for (const k of this.dbs.blocks.getKeys({ start: slotKey(start), end: slotKey(end + 1n), limit }))
      out.push((k as Buffer).readBigUInt64BE(0));
    return out;
  }

  /** The first block this ledger holds (the slot it started at, for a new ledger). */
  firstBlock(): bigint | undefined {
    for (const k of this.dbs.blocks.getKeys({ limit: 1 })) return (k as Buffer).readBigUInt64BE(0);
    return undefined;
  }

  /** Where the ledger recorded a transaction (or an airdrop): its slot and position in the slot. */
  placeOf(signature: Uint8Array): { slot: bigint; position: number } | undefined {
    return this.signatureIndex.placeOf(signature);
  }

  transaction(signature: Uint8Array): TxRecord | undefined {
    return this.dbs.txs.get(Buffer.from(signature));
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.dbs.root.close();
  }
}
