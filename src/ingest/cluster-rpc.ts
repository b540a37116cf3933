// The followed cluster's JSON-RPC (--cluster-rpc), as the block source calls it: the standard
// methods only, each call retried with backoff while the provider is rate limiting, failing,
// slow, or answering bodies that are not JSON-RPC. A retry episode is logged once when it starts
// and once when it ends; every retry is counted by its reason. Nothing here gives up on its own:
// the caller stops it (its signal), so a provider that is down for an hour costs an hour's lag,
// never a crash or a skipped block.
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import { answerResult, RelayedRpcError, upstreamCall, UpstreamError, type UpstreamFailure } from '../wire/upstream.js';
import type { Prefetched } from './prefetch.js';

/** The methods a follower may call: what every Solana RPC provider serves (issue 50 §1). */
export const CLUSTER_METHODS = [
  'getSlot',
  'getBlocks',
  'getBlocksWithLimit',
  'getBlock',
  'getSignaturesForAddress',
  'getTransaction',
  'getAccountInfo',
  'getMultipleAccounts',
  'getProgramAccounts',
  'getGenesisHash',
  'getVersion',
  'getEpochInfo',
  'getLatestBlockhash',
  'getFirstAvailableBlock',
  'minimumLedgerSlot',
  'getHealth',
] as const;
export type ClusterMethod = (typeof CLUSTER_METHODS)[number];

/**
 * JSON-RPC errors a node answers while it is catching up or the block is not there yet (Agave's
 * codes): tried again, as a 5xx is. Others are the answer and go to the caller.
 */
const TRANSIENT_RPC_CODES = new Set([
  -32004, // block not available for slot (not yet)
  -32005, // node is unhealthy / behind
  -32014, // block status not yet available
  -32016, // minimum context slot not reached
]);

export type RetryReason = UpstreamFailure | 'rpc_transient';

export interface ClusterRpcOptions {
  url: string;
  /** One call's timeout, ms. */
  timeoutMs: number;
  log: Logger;
  metrics?: MetricsRegistry;
  /** First backoff, ms (doubled per retry up to maxBackoffMs, with jitter). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

/** The cluster's URL as logs show it: its origin only (a provider's URL carries its key). */
export function clusterOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the cluster';
  }
}

export class ClusterRpc {
  readonly origin: string;
  private readonly minBackoff: number;
  private readonly maxBackoff: number;
  private readonly retries;
  private readonly calls;
  /** The retry episode under way: since when, how many retries, the first reason. */
  private episode: { since: number; retries: number; reason: string } | undefined;

  constructor(private readonly o: ClusterRpcOptions) {
    this.origin = clusterOrigin(o.url);
    this.minBackoff = o.minBackoffMs ?? 250;
    this.maxBackoff = o.maxBackoffMs ?? 10_000;
    this.retries = o.metrics?.counter(
      'zkgate_cluster_rpc_retries_total',
      'Calls to the followed cluster tried again, by reason.',
      ['reason'],
    );
    this.calls = o.metrics?.counter('zkgate_cluster_rpc_calls_total', 'Calls to the followed cluster, by method.', [
      'method',
    ]);
  }

  /**
   * One call, retried until it answers or `signal` aborts (then the abort's error is thrown). A
   * JSON-RPC error that is the answer (a skipped slot, bad params) is thrown as RelayedRpcError.
   * `ahead`: the same call made ahead (a Prefetcher's): the first attempt's answer or failure,
   * when it was made.
   */
  async call<T>(
    method: ClusterMethod,
    params: unknown[],
    signal?: AbortSignal,
    ahead?: Promise<Prefetched>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      this.calls?.inc([method]);
      let reason: RetryReason;
      let wait: number | undefined;
      let message: string;
      try {
        const made = attempt === 0 && ahead ? await abortable(ahead, signal) : undefined;
        if (made instanceof UpstreamError) throw made;
        const result = (
          made
            ? answerResult(this.o.url, method, made)
            : await upstreamCall(this.o.url, method, params, this.o.timeoutMs, JSON.parse, signal)
        ) as T;
        this.recovered();
        return result;
      } catch (e) {
        signal?.throwIfAborted();
        if (e instanceof UpstreamError) {
          reason = e.failure;
          wait = e.retryAfterMs;
          message = e.message;
        } else if (e instanceof RelayedRpcError && TRANSIENT_RPC_CODES.has(e.code)) {
          reason = 'rpc_transient';
          message = `${method} at ${this.origin}: ${e.code} ${e.message}`;
        } else {
          this.recovered();
          throw e;
        }
      }
      this.retries?.inc([reason]);
      if (!this.episode) {
        this.episode = { since: Date.now(), retries: 0, reason };
        this.o.log.warn('cluster RPC failing: retrying with backoff', { cluster: this.origin, reason, error: message });
      }
      this.episode.retries++;
      const backoff = Math.min(this.maxBackoff, this.minBackoff * 2 ** Math.min(attempt, 16));
      // A provider's Retry-After is followed, within the longest backoff; jitter spreads fronts.
      const ms = Math.min(this.maxBackoff * 3, wait ?? backoff * (0.5 + Math.random() / 2));
      await sleep(ms, signal);
    }
  }

  /** The retry episode under way, described (for /health); undefined while the cluster answers. */
  get failing(): string | undefined {
    const e = this.episode;
    return e && `${e.reason} since ${new Date(e.since).toISOString()}, ${e.retries} retries`;
  }

  private recovered(): void {
    if (!this.episode) return;
    const { since, retries, reason } = this.episode;
    this.episode = undefined;
    this.o.log.info('cluster RPC answering again', {
      cluster: this.origin,
      reason,
      retries,
      ms: Date.now() - since,
    });
  }
}

/** `p`, or the signal's reason as soon as it aborts. */
function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Waits `ms`, or throws the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
