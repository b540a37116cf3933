// A cluster's blocks through its standard JSON-RPC (--cluster-rpc): which slots have blocks from
// getBlocksWithLimit, the blocks from getBlock, fetched ahead in parallel (bounded) and handed on
// in slot order. At the tip it polls getSlot. Every call is retried by ClusterRpc; a block the
// node answers malformed is asked for again after a backoff, so a bad answer delays the index and
// never puts a wrong block into it.
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { Prefetcher } from './prefetch.js';
import { RelayedRpcError } from '../wire/upstream.js';
import type { BlockSource, SourceBlock } from './block-source.js';
import { sleep, type ClusterRpc } from './cluster-rpc.js';
import { MalformedBlockError, readBlock } from './rpc-block.js';

export type ClusterCommitment = 'finalized' | 'confirmed';

/** Agave's answers for a slot that has no block: skipped, or not kept by this node. */
const NO_BLOCK_CODES = new Set([-32007, -32009]);

/** Signatures per getSignaturesForAddress page (Agave's most). */
const SIGNATURE_PAGE = 1000;

/** Slots listed per getBlocksWithLimit call (Agave allows far more; this bounds one answer's size). */
const LIST_LIMIT = 500;

/** Listed slots handed to the prefetcher ahead of those being read, at most (its own window is smaller). */
const WANT_AHEAD = 512;

export interface RpcBlockSourceOptions {
  rpc: ClusterRpc;
  commitment: ClusterCommitment;
  /** getBlock's encoding: base64 (smaller, the default) or json. */
  encoding?: 'base64' | 'json';
  /** Blocks fetched ahead of the one being handed on. */
  ahead?: number;
  /** How often the tip is polled once caught up, ms. */
  pollMs?: number;
  /**
   * Backfill through these programs' signatures (getSignaturesForAddress) rather than every block:
   * when the start is more than `sparseFromSlots` behind the tip, only the blocks holding a
   * transaction that loads one of them are read up to that tip; from there, every block.
   */
  sparse?: { programs: readonly string[]; sparseFromSlots: number };
  /**
   * Makes the getBlock calls of the listed slots ahead, on a thread of its own: the cluster's node
   * answers them while this thread applies a run of blocks.
   */
  prefetch?: Prefetcher;
  log: Logger;
  metrics?: MetricsRegistry;
}

const isSlot = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export class RpcBlockSource implements BlockSource {
  readonly name: string;
  /** The cluster's newest slot at the commitment, as last asked. */
  lastTip: bigint | undefined;
  /** Its newest finalized slot, as last asked (following confirmed blocks): blocks up to it are read as final. */
  private finalized: bigint | undefined;
  private readonly counters;

  constructor(private readonly o: RpcBlockSourceOptions) {
    this.name = o.rpc.origin;
    const r = o.metrics;
    this.counters = r && {
      blocks: r.counter('zkgate_cluster_blocks_total', 'Blocks read from the followed cluster.'),
      noBlock: r.counter(
        'zkgate_cluster_missing_blocks_total',
        'Slots the cluster listed with a block that its getBlock then said it has not (skipped or not kept).',
      ),
      malformed: r.counter(
        'zkgate_cluster_malformed_blocks_total',
        'getBlock answers that did not read as a block (asked for again).',
      ),
      unreadable: r.counter(
        'zkgate_cluster_unreadable_transactions_total',
        'Transactions of a block that did not read (skipped, logged with their signature).',
      ),
    };
  }

  /** See BlockSource.behind: blocks listed or in flight past the one handed on. */
  behind = false;

  private woken: (() => void) | undefined;

  /** A new slot is known (a websocket's notification): the source at the tip looks at once. */
  wake(): void {
    this.woken?.();
  }

  /** Waits at the tip until the next poll, or less when woken. */
  private async idle(signal: AbortSignal): Promise<void> {
    const early = new Promise<void>((r) => (this.woken = r));
    const inner = new AbortController();
    const stop = () => inner.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    try {
      await Promise.race([sleep(this.o.pollMs ?? 400, inner.signal), early]);
    } finally {
      this.woken = undefined;
      signal.removeEventListener('abort', stop);
      inner.abort();
    }
    signal.throwIfAborted();
  }

  async tip(signal?: AbortSignal): Promise<bigint> {
    const s = await this.o.rpc.call<unknown>('getSlot', [{ commitment: this.o.commitment }], signal);
    if (!isSlot(s)) throw new MalformedBlockError(`getSlot at ${this.name} answered ${JSON.stringify(s)}, not a slot`);
    this.lastTip = BigInt(s);
    return this.lastTip;
  }

  /** The cluster's newest finalized slot. */
  async finalizedTip(signal?: AbortSignal): Promise<bigint> {
    if (this.o.commitment === 'finalized') return this.tip(signal);
    const s = await this.o.rpc.call<unknown>('getSlot', [{ commitment: 'finalized' }], signal);
    if (!isSlot(s)) throw new MalformedBlockError(`getSlot at ${this.name} answered ${JSON.stringify(s)}, not a slot`);
    this.finalized = BigInt(s);
    return this.finalized;
  }

  /** The hash of the finalized chain's block at `slot`; null when that chain has none there. */
  async finalizedBlockhash(slot: bigint, signal?: AbortSignal): Promise<string | null> {
    const params = [
      Number(slot),
      { commitment: 'finalized', transactionDetails: 'none', rewards: false, maxSupportedTransactionVersion: 0 },
    ];
    try {
      const raw = await this.o.rpc.call<{ blockhash?: unknown }>('getBlock', params, signal);
      if (typeof raw?.blockhash !== 'string')
        throw new MalformedBlockError(`getBlock ${slot} at ${this.name}: no blockhash`);
      return raw.blockhash;
    } catch (e) {
      if (e instanceof RelayedRpcError && NO_BLOCK_CODES.has(e.code)) return null;
      throw e;
    }
  }

  async firstSlot(signal?: AbortSignal): Promise<bigint> {
    const s = await this.o.rpc.call<unknown>('getFirstAvailableBlock', [], signal);
    if (!isSlot(s))
      throw new MalformedBlockError(`getFirstAvailableBlock at ${this.name} answered ${JSON.stringify(s)}, not a slot`);
    return BigInt(s);
  }

  /**
   * The slots with a block from `from` on, up to the tip; empty when `from` is past the tip. `next`
   * is the first slot not covered: past the last listed, or past the tip when the answer ended
   * before its limit (the slots between are skipped).
   */
  private async list(from: bigint, signal: AbortSignal): Promise<{ slots: bigint[]; next: bigint }> {
    for (;;) {
      const tip = await this.tip(signal);
      if (this.o.commitment !== 'finalized') await this.finalizedTip(signal);
      if (tip < from) return { slots: [], next: from };
      const raw = await this.o.rpc.call<unknown>(
        'getBlocksWithLimit',
        [Number(from), LIST_LIMIT, { commitment: this.o.commitment }],
        signal,
      );
      const ok =
        Array.isArray(raw) &&
        raw.length <= LIST_LIMIT &&
        raw.every((s, i) => isSlot(s) && s >= Number(from) && (i === 0 || s > (raw[i - 1] as number)));
      if (!ok) {
        this.counters?.malformed.inc();
        this.o.log.warn('cluster answered getBlocksWithLimit with something other than rising slots; asking again', {
          cluster: this.name,
          from: String(from),
        });
        await sleep(this.o.pollMs ?? 400, signal);
        continue;
      }
      const slots = (raw as number[]).map(BigInt);
      const last = slots.at(-1);
      const full = slots.length === LIST_LIMIT;
      const past = last === undefined ? from : last + 1n;
      const next = full || past > tip ? past : tip + 1n;
      return { slots, next };
    }
  }

  /** getBlock's params for `slot`, and whether its block is read as final. */
  private blockCall(slot: bigint): { params: unknown[]; final: boolean } {
    // A block at or below the finalized slot is asked for as finalized: a fork's block there is
    // then no block, never a block applied as final.
    const final = this.o.commitment === 'finalized' || (this.finalized !== undefined && slot <= this.finalized);
    const params = [
      Number(slot),
      {
        encoding: this.o.encoding ?? 'base64',
        transactionDetails: 'full',
        maxSupportedTransactionVersion: 0,
        rewards: false,
        commitment: final ? 'finalized' : this.o.commitment,
      },
    ];
    return { params, final };
  }

  /** One block, asked for until it reads; undefined when the node says the slot has none. */
  private async fetch(slot: bigint, signal: AbortSignal): Promise<SourceBlock | undefined> {
    const { params, final } = this.blockCall(slot);
    // What the prefetcher got is the first answer (if its call was the same); asking again is this source's.
    let ahead = this.o.prefetch?.take(String(slot), 'getBlock', params);
    for (let attempt = 0; ; attempt++) {
      let raw: unknown;
      try {
        raw = await this.o.rpc.call<unknown>('getBlock', params, signal, ahead);
        ahead = undefined;
      } catch (e) {
        if (e instanceof RelayedRpcError && NO_BLOCK_CODES.has(e.code)) {
          this.counters?.noBlock.inc();
          this.o.log.warn('cluster listed a block it then did not have', {
            cluster: this.name,
            slot: String(slot),
            error: `${e.code} ${e.message}`,
          });
          return undefined;
        }
        throw e;
      }
      try {
        const block = readBlock(slot, raw, final);
        this.counters?.blocks.inc();
        for (const u of block.unreadable) {
          this.counters?.unreadable.inc();
          this.o.log.warn('transaction skipped: it does not read', {
            cluster: this.name,
            slot: String(slot),
            signature: u.signature,
            reason: u.reason,
          });
        }
        return block;
      } catch (e) {
        if (!(e instanceof MalformedBlockError)) throw e;
        this.counters?.malformed.inc();
        if (attempt === 0)
          this.o.log.warn('cluster answered a malformed block; asking again', { cluster: this.name, error: e.message });
        await sleep(Math.min(10_000, 250 * 2 ** Math.min(attempt, 6)), signal);
      }
    }
  }

  /**
   * The slots in [from, to] of the transactions that load one of `programs`, oldest first: each
   * program's signatures walked back from the newest, a page of 1,000 at a time.
   */
  async programSlots(programs: readonly string[], from: bigint, to: bigint, signal: AbortSignal): Promise<bigint[]> {
    const slots = new Set<bigint>();
    for (const program of programs) {
      let before: string | undefined;
      for (;;) {
        const page = await this.o.rpc.call<unknown>(
          'getSignaturesForAddress',
          [program, { limit: SIGNATURE_PAGE, commitment: 'finalized', ...(before ? { before } : {}) }],
          signal,
        );
        if (!Array.isArray(page)) throw new MalformedBlockError(`getSignaturesForAddress at ${this.name}: not a list`);
        let older = false;
        for (const e of page as { signature?: unknown; slot?: unknown }[]) {
          if (typeof e?.signature !== 'string' || !isSlot(e.slot))
            throw new MalformedBlockError(
              `getSignaturesForAddress at ${this.name}: an entry without signature and slot`,
            );
          const slot = BigInt(e.slot);
          if (slot < from) older = true;
          else if (slot <= to) slots.add(slot);
        }
        if (older || page.length < SIGNATURE_PAGE) break;
        before = (page.at(-1) as { signature: string }).signature;
      }
    }
    return [...slots].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async *blocks(from: bigint, signal: AbortSignal): AsyncGenerator<SourceBlock> {
    const ahead = Math.max(1, this.o.ahead ?? 8);
    const listed: bigint[] = [];
    const inflight: Promise<SourceBlock | undefined>[] = [];
    const prefetch = this.o.prefetch;
    /** How many of `listed`'s first slots the prefetcher has been handed. */
    let wanted = 0;
    let next = from;
    try {
      const sparse = this.o.sparse;
      if (sparse) {
        const tip = await this.finalizedTip(signal);
        if (tip - from > BigInt(sparse.sparseFromSlots)) {
          listed.push(...(await this.programSlots(sparse.programs, from, tip, signal)));
          next = tip + 1n;
          this.o.log.info("cluster backfill through Light programs' signatures", {
            cluster: this.name,
            from: String(from),
            to: String(tip),
            blocks: listed.length,
          });
        }
      }
      for (;;) {
        // Listed again when all is read, or, with a prefetcher, when the cluster is known to have
        // more than is listed and fewer than half its slots ahead are left: its window stays full
        // across the lists.
        const more =
          prefetch !== undefined &&
          listed.length < WANT_AHEAD / 2 &&
          this.lastTip !== undefined &&
          next <= this.lastTip;
        if ((listed.length === 0 && inflight.length < ahead) || more) {
          const l = await this.list(next, signal);
          listed.push(...l.slots);
          next = l.next;
        }
        // The prefetcher is handed the next slots to read, a bounded number at a time (a sparse
        // backfill may list hundreds of thousands).
        for (; prefetch && wanted < listed.length && wanted < WANT_AHEAD; wanted++)
          prefetch.want(String(listed[wanted]!), 'getBlock', this.blockCall(listed[wanted]!).params);
        while (inflight.length < ahead && listed.length > 0) {
          if (wanted > 0) wanted--;
          const p = this.fetch(listed.shift()!, signal);
          p.catch(() => undefined); // awaited in order below; an abort must not go unhandled meanwhile
          inflight.push(p);
        }
        const first = inflight.shift();
        if (!first) {
          await this.idle(signal);
          continue;
        }
        const block = await first;
        this.behind = inflight.length > 0 || listed.length > 0;
        if (block) yield block;
      }
    } catch (e) {
      if (signal.aborted) return;
      throw e;
    } finally {
      prefetch?.drop();
    }
  }
}
