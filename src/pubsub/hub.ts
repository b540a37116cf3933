// The subscriptions of every websocket client and what the ledger's events mean for them, with
// Agave's commitment semantics: a change in slot S reaches a `processed` subscription at once, a
// `confirmed` one when S is confirmed (the next slot) and a `finalized` one when S is finalized
// (32 slots on), each as the change left the account. Transport-free: connections are Clients.
import type { AccountChange, Ledger, LedgerEvent, StoredAccount } from '../ledger/index.js';
import { encodeUiAccount, matchesFilters, parseContext, type AccountParseContext } from '../rpc/account-encoding.js';
import { SubscriptionLimitError, UnsupportedTransactionVersionError } from '../rpc/errors.js';
import { blockEntries, blockJson } from '../rpc/methods/transaction-json.js';
import { mentionedKeys } from './mentions.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import type { SubscriptionSpec } from './params.js';

/** One websocket connection as the hub sees it. */
export interface Client {
  readonly keyId: string;
  /** Queues a notification; the transport enforces its own buffer limit. */
  notify(method: string, subscription: number, result: unknown): void;
}

interface Subscription {
  id: number;
  client: Client;
  spec: SubscriptionSpec;
  /** signatureSubscribe: the slot the signature landed in and its error, once it has. */
  landed?: { slot: bigint; err: unknown };
}

export interface HubLimits {
  perConnection: number;
  perKey: number;
}

export interface HubCounters {
  subscribed(method: string, delta: number): void;
}

/** A notification waiting for its slot to reach the subscription's commitment. */
interface Waiting {
  slot: bigint;
  sub: Subscription;
  /** Built at delivery (an account's rendering is paid only for what is sent). */
  result: () => unknown;
  /** Account notifications of one slot collapse to the last state (Agave sends one per slot). */
  key?: string;
}

export class Hub {
  private nextId = 0;
  private readonly byId = new Map<number, Subscription>();
  private readonly byClient = new Map<Client, Set<Subscription>>();
  private readonly perKey = new Map<string, number>();
  private readonly accountSubs = new Map<string, Set<Subscription>>();
  private readonly programSubs = new Map<string, Set<Subscription>>();
  private readonly signatureSubs = new Map<string, Set<Subscription>>();
  private readonly landedSignatures = new Set<Subscription>();
  private readonly others = {
    logs: new Set<Subscription>(),
    slot: new Set<Subscription>(),
    root: new Set<Subscription>(),
    slotsUpdates: new Set<Subscription>(),
    block: new Set<Subscription>(),
  };
  /** The newest slot whose block has been offered to block subscriptions, by commitment. */
  private readonly blocksSeen = { confirmed: -1n, finalized: -1n };
  private readonly waiting: Record<'confirmed' | 'finalized', Waiting[]> = { confirmed: [], finalized: [] };
  private readonly collapsed = new Map<string, Waiting>();
  /** Transactions per slot, for slotsUpdates' frozen stats. */
  private slotStats = { slot: -1n, ok: 0, failed: 0 };
  private readonly stop: () => void;
  /** What jsonParsed notifications read besides the account (a token account's mint, the clock). */
  private readonly parse: AccountParseContext;

  constructor(
    private readonly ledger: Ledger,
    private readonly limits: HubLimits,
    private readonly counters?: HubCounters,
  ) {
    this.parse = parseContext(ledger);
    this.stop = ledger.onEvent((e) => this.onLedger(e));
  }

  close(): void {
    this.stop();
  }

  get size(): number {
    return this.byId.size;
  }

  /**
   * Adds a subscription; returns its id and what to send right after the subscription's answer
   * (a signature that already reached the commitment is notified then, and the subscription ends).
   */
  subscribe(client: Client, spec: SubscriptionSpec): { id: number; after?: () => void } {
    const mine = this.byClient.get(client) ?? new Set<Subscription>();
    if (mine.size >= this.limits.perConnection)
      throw new SubscriptionLimitError(
        `Subscription refused: this connection holds ${mine.size} subscriptions, the most one may hold (--ws-max-subscriptions-per-connection)`,
      );
    const keyCount = this.perKey.get(client.keyId) ?? 0;
    if (keyCount >= this.limits.perKey)
      throw new SubscriptionLimitError(
        `Subscription refused: this API key holds ${keyCount} subscriptions, the most one may hold (--ws-max-subscriptions-per-key)`,
      );
    const sub: Subscription = { id: this.nextId++, client, spec };
    if (spec.kind === 'signature') {
      const rec = this.ledger.transaction(decodeBase58(spec.signature));
      if (rec) {
        sub.landed = { slot: BigInt(rec.slot), err: rec.err };
        if (sub.landed.slot <= this.ledger.slotAt(spec.commitment)) {
          // Already there: answered, notified, gone (never registered).
          return { id: sub.id, after: () => this.signatureDone(sub, false) };
        }
      }
    }
    mine.add(sub);
    this.byClient.set(client, mine);
    this.perKey.set(client.keyId, keyCount + 1);
    this.byId.set(sub.id, sub);
    this.index(sub, true);
    if (sub.landed) this.landedSignatures.add(sub);
    this.counters?.subscribed(spec.method, 1);
    return { id: sub.id };
  }

  /** Ends a subscription of this client; false if it holds none with that id. */
  unsubscribe(client: Client, id: number): boolean {
    const sub = this.byId.get(id);
    if (!sub || sub.client !== client) return false;
    this.remove(sub);
    return true;
  }

  /** Ends every subscription of a client that went away. */
  dropClient(client: Client): void {
    for (const sub of [...(this.byClient.get(client) ?? [])]) this.remove(sub);
    this.byClient.delete(client);
  }

  private remove(sub: Subscription): void {
    if (!this.byId.delete(sub.id)) return;
    this.index(sub, false);
    this.landedSignatures.delete(sub);
    const mine = this.byClient.get(sub.client);
    mine?.delete(sub);
    if (mine?.size === 0) this.byClient.delete(sub.client);
    const n = (this.perKey.get(sub.client.keyId) ?? 1) - 1;
    if (n > 0) this.perKey.set(sub.client.keyId, n);
    else this.perKey.delete(sub.client.keyId);
    this.counters?.subscribed(sub.spec.method, -1);
  }

  private index(sub: Subscription, add: boolean): void {
    const s = sub.spec;
    const into = (m: Map<string, Set<Subscription>>, k: string) => {
      let set = m.get(k);
      if (add) {
        if (!set) m.set(k, (set = new Set()));
        set.add(sub);
      } else if (set) {
        set.delete(sub);
        if (set.size === 0) m.delete(k);
      }
    };
    if (s.kind === 'account') into(this.accountSubs, s.pubkey);
    else if (s.kind === 'program') into(this.programSubs, s.program);
    else if (s.kind === 'signature') into(this.signatureSubs, s.signature);
    else if (add) this.others[s.kind].add(sub);
    else this.others[s.kind].delete(sub);
  }

  // --- ledger events ---

  private onLedger(e: LedgerEvent): void {
    if (e.type === 'slot') return this.onSlot(e.slot, e.parent);
    if (e.type === 'transaction') {
      if (this.slotStats.slot !== e.slot) this.slotStats = { slot: e.slot, ok: 0, failed: 0 };
      if (e.err === null) this.slotStats.ok++;
      else this.slotStats.failed++;
      this.onSignature(e.slot, encodeBase58(e.signature), e.err);
      if (this.others.logs.size > 0) this.onLogs(e);
    }
    if (this.accountSubs.size > 0 || this.programSubs.size > 0) this.onAccounts(e.slot, e.accounts);
  }

  private deliver(sub: Subscription, slot: bigint, result: () => unknown, key?: string): void {
    const c = sub.spec.commitment;
    if (c === 'processed' || slot <= this.ledger.slotAt(c)) {
      this.send(sub, result());
      return;
    }
    if (key !== undefined) {
      const k = `${sub.id}:${slot}:${key}`;
      const w = this.collapsed.get(k);
      if (w) {
        w.result = result;
        return;
      }
      const entry = { slot, sub, result, key: k };
      this.collapsed.set(k, entry);
      this.waiting[c].push(entry);
      return;
    }
    this.waiting[c].push({ slot, sub, result });
  }

  private send(sub: Subscription, result: unknown): void {
    sub.client.notify(`${sub.spec.method.replace(/Subscribe$/, '')}Notification`, sub.id, result);
  }

  private onSignature(slot: bigint, signature: string, err: unknown): void {
    const subs = this.signatureSubs.get(signature);
    if (!subs) return;
    for (const sub of [...subs]) {
      if (sub.spec.kind !== 'signature') continue;
      if (sub.spec.enableReceivedNotification) this.send(sub, { context: { slot }, value: 'receivedSignature' });
      sub.landed = { slot, err };
      if (sub.spec.commitment === 'processed') this.signatureDone(sub, true);
      else this.landedSignatures.add(sub);
    }
  }

  /** Agave: a signature subscription notifies once at its commitment, then is removed. */
  private signatureDone(sub: Subscription, registered: boolean): void {
    const { slot, err } = sub.landed!;
    this.send(sub, { context: { slot }, value: { err } });
    if (registered) this.remove(sub);
  }

  private onLogs(e: Extract<LedgerEvent, { type: 'transaction' }>): void {
    let keys: Set<string> | undefined;
    for (const sub of this.others.logs) {
      const s = sub.spec;
      if (s.kind !== 'logs') continue;
      if (s.mentions !== undefined) {
        keys ??= new Set(e.accountKeys.map((k) => encodeBase58(k)));
        if (!keys.has(s.mentions)) continue;
      }
      const value = { signature: encodeBase58(e.signature), err: e.err, logs: e.logs };
      this.deliver(sub, e.slot, () => ({ context: { slot: e.slot }, value }));
    }
  }

  private onAccounts(slot: bigint, accounts: readonly AccountChange[]): void {
    for (const { pubkey, account } of accounts) {
      const key = encodeBase58(pubkey);
      for (const sub of this.accountSubs.get(key) ?? []) {
        const s = sub.spec;
        if (s.kind !== 'account') continue;
        // A closed account is notified as Agave does: zero lamports, no data, owned by the system program.
        const a = account ?? CLOSED;
        this.deliver(
          sub,
          slot,
          () => ({ context: { slot }, value: encodeUiAccount(pubkey, a, s.encoding, s.dataSlice, this.parse) }),
          key,
        );
      }
      if (!account) continue;
      const subs = this.programSubs.get(encodeBase58(account.owner));
      for (const sub of subs ?? []) {
        const s = sub.spec;
        if (s.kind !== 'program' || !matchesFilters(account, s.filters)) continue;
        this.deliver(
          sub,
          slot,
          () => ({
            context: { slot },
            value: { pubkey: key, account: encodeUiAccount(pubkey, account, s.encoding, s.dataSlice, this.parse) },
          }),
          key,
        );
      }
    }
  }

  /**
   * blockSubscribe: each block newly at this commitment, to the subscriptions at it (all blocks, or
   * those with a transaction mentioning the key). A v0 transaction for a subscription that did not
   * set maxSupportedTransactionVersion gives Agave's `{slot, block: null, err}` instead.
   */
  private onBlocks(c: 'confirmed' | 'finalized', level: bigint): void {
    const seen = this.blocksSeen[c];
    this.blocksSeen[c] = level;
    let subs: Subscription[] | undefined;
    for (const sub of this.others.block) if (sub.spec.commitment === c) (subs ??= []).push(sub);
    if (!subs || seen < 0n) return;
    const from = level - seen > MAX_BLOCKS_PER_SLOT_EVENT ? level - MAX_BLOCKS_PER_SLOT_EVENT + 1n : seen + 1n;
    for (let slot = from; slot <= level; slot++) {
      const block = this.ledger.block(slot);
      if (!block) continue;
      const entries = blockEntries(this.ledger, block.signatures);
      // Each transaction's keys are read once per block, whatever the number of filtered subscriptions.
      let keys: ReadonlySet<string>[] | undefined;
      for (const sub of subs) {
        const s = sub.spec;
        if (s.kind !== 'block') continue;
        keys ??= s.mentions === undefined ? undefined : entries.map((e) => mentionedKeys(e.rec));
        const mine = s.mentions === undefined ? entries : entries.filter((_, i) => keys![i]!.has(s.mentions!));
        if (s.mentions !== undefined && mine.length === 0) continue;
        let value: unknown;
        try {
          value = { slot, block: blockJson(slot, block.header, mine, s.details, s.view), err: null };
        } catch (e) {
          if (!(e instanceof UnsupportedTransactionVersionError)) throw e;
          value = { slot, block: null, err: { UnsupportedTransactionVersion: 0 } };
        }
        this.send(sub, { context: { slot }, value });
      }
    }
  }

  private onSlot(slot: bigint, parent: bigint): void {
    const confirmed = this.ledger.slotAt('confirmed');
    const root = this.ledger.slotAt('finalized');
    for (const c of ['confirmed', 'finalized'] as const) {
      const level = c === 'confirmed' ? confirmed : root;
      const q = this.waiting[c];
      let n = 0;
      while (n < q.length && q[n]!.slot <= level) n++;
      if (n === 0) continue;
      for (const w of q.splice(0, n)) {
        if (w.key !== undefined) this.collapsed.delete(w.key);
        if (this.byId.has(w.sub.id)) this.send(w.sub, w.result());
      }
    }
    for (const sub of [...this.landedSignatures])
      if (sub.landed!.slot <= this.ledger.slotAt(sub.spec.commitment)) this.signatureDone(sub, true);
    this.onBlocks('confirmed', confirmed);
    this.onBlocks('finalized', root);
    for (const sub of this.others.slot) this.send(sub, { parent, root, slot });
    for (const sub of this.others.root) this.send(sub, root);
    if (this.others.slotsUpdates.size > 0) {
      const timestamp = Date.now();
      const stats = this.slotStats.slot === parent ? this.slotStats : { ok: 0, failed: 0 };
      const updates = [
        { type: 'createdBank', slot, parent, timestamp },
        {
          type: 'frozen',
          slot: parent,
          timestamp,
          stats: {
            numTransactionEntries: stats.ok + stats.failed,
            numSuccessfulTransactions: stats.ok,
            numFailedTransactions: stats.failed,
            maxTransactionsPerEntry: stats.ok + stats.failed,
          },
        },
        { type: 'optimisticConfirmation', slot: confirmed, timestamp },
        { type: 'root', slot: root, timestamp },
      ];
      for (const sub of this.others.slotsUpdates) for (const u of updates) this.send(sub, u);
    }
  }
}

/** Blocks are offered once each as their slot reaches a commitment; a catch-up never replays more than this. */
const MAX_BLOCKS_PER_SLOT_EVENT = 64n;

const CLOSED: StoredAccount = {
  lamports: 0n,
  data: new Uint8Array(0),
  owner: new Uint8Array(32),
  executable: false,
  rentEpoch: 0n,
};
