// Where the index's blocks come from: the embedded ledger (the dev chain) or a cluster followed
// over its JSON-RPC (--cluster-rpc). Both hand the ingesters the same blocks in slot order, so what
// is served never knows which source filled the index (DESIGN.md, "Two block sources, one ingest").
import type { ChainTransaction } from '../ledger/index.js';

/** A transaction as a source gives it: what ingesters read of it, whichever source it came from. */
export type SourceTransaction = ChainTransaction;

/** A transaction of a block that could not be read: counted and logged with its signature, then skipped. */
export interface UnreadableTransaction {
  /** base58, or `#<position>` where even the signature could not be read. */
  signature: string;
  reason: string;
}

export interface SourceBlock {
  slot: bigint;
  parentSlot: bigint;
  blockhash: string;
  previousBlockhash: string;
  /** Unix seconds, null where the cluster has none. */
  blockTime: number | null;
  transactions: SourceTransaction[];
  unreadable: UnreadableTransaction[];
  /**
   * On the finalized chain. A block that is not yet (confirmed) may still be replaced by a fork:
   * what it writes is kept so it can be taken back.
   */
  final: boolean;
}

export interface BlockSource {
  /** For logs and /health: where the blocks come from (an origin, never a URL with its key). */
  readonly name: string;
  /** The newest slot as last seen (for the lag /health reports). */
  readonly lastTip?: bigint | undefined;
  /**
   * More blocks are known past the last one handed on (listed, or on their way): the next comes
   * without waiting for the cluster to make it. A backfill; false at the tip.
   */
  readonly behind?: boolean;
  /** The newest slot the source has a block for, at its commitment. */
  tip(signal?: AbortSignal): Promise<bigint>;
  /** The newest finalized slot (the tip, for a source that gives only finalized blocks). */
  finalizedTip(signal?: AbortSignal): Promise<bigint>;
  /** The hash of the finalized chain's block at `slot`; null where that chain has none. */
  finalizedBlockhash(slot: bigint, signal?: AbortSignal): Promise<string | null>;
  /** The oldest slot it still has blocks from. */
  firstSlot(signal?: AbortSignal): Promise<bigint>;
  /**
   * Its blocks from slot `from` on, in slot order (slots without a block left out), waiting at
   * the tip for new ones; ends when `signal` aborts.
   */
  blocks(from: bigint, signal: AbortSignal): AsyncIterable<SourceBlock>;
}
