// Where jobs live in Redis, for each --queue-format. Both formats keep Light's list entries
// (`{"id","type","payload","created_at"}`, docs/light-queue-formats.md §2), so one set of scripts
// serves them; `light` uses Light's own list and key names, so a zkgate host can pull from a Light
// prover deployment's Redis, and `zkgate` keeps its own names so the two never meet by accident.
// What Light has no place for (the ids hosts claim, leases, per-job state and attempts,
// de-duplication, statistics, verifying keys) lives under `zkgate:` in both: Light's processes
// never read those keys.

export type QueueFormat = 'zkgate' | 'light';

/**
 * A job's kind: a proof from explicit witnesses (Light's /prove body), one of zkgate's forester's
 * batches, or one of Light's batch bodies queued for Light's workers (no zkgate host takes those).
 */
export type JobKind = 'prove' | 'batch' | 'light';
export const JOB_KINDS: readonly JobKind[] = ['prove', 'batch', 'light'];
/** The kinds zkgate's hosts prove. */
export const HOST_KINDS: readonly JobKind[] = ['prove', 'batch'];

/** Light's circuit types that go to its batch lists; zkgate's /prove does not parse their bodies. */
export const LIGHT_BATCH_TYPES = ['update', 'append-with-proofs', 'append', 'address-append'] as const;

/** The circuitType of a zkgate batch job's payload: no Light process claims it. */
export const ZKGATE_BATCH_TYPE = 'zkgate-batch';

export interface QueueLayout {
  format: QueueFormat;
  /** Pending lists, in the order workers look at them (client proofs before the forester's). */
  pending: readonly string[];
  /** The processing twin of a pending list. */
  processing(list: string): string;
  failed: string;
  /** Light's list of results (bounded here to RESULTS_LIST_MAX); none in zkgate's format. */
  resultsList?: string;
  resultKey(id: string): string;
  /** The pending list a job goes to ('light' jobs exist with Light's lists only). */
  route(kind: JobKind, circuitType: string): string;
}

const ZK = 'zkgate:';

/** zkgate's own keys, in both formats. */
export const KEYS = {
  leases: `${ZK}leases`,
  leased: `${ZK}leased`,
  /** The ids of a kind's queued jobs, in order: what hosts claim from (scripts.ts). */
  ready: (kind: JobKind) => `${ZK}ready:${kind}`,
  stats: `${ZK}stats`,
  /** When a reaper last ran (Redis's clock): a long gap is a stall, not dead hosts (scripts.ts REAP). */
  reapedAt: `${ZK}reaped_at`,
  hostJobs: `${ZK}host_jobs`,
  job: (id: string) => `${ZK}job:${id}`,
  dedup: (hash: string) => `${ZK}dedup:${hash}`,
  vk: (circuit: string, sha256: string) => `${ZK}vk:${circuit}:${sha256}`,
  /** Pub/sub: a job was added (workers wake) and a job ended (waiters look). */
  added: `${ZK}added`,
  ended: `${ZK}ended`,
} as const;

export const RESULTS_LIST_MAX = 1000;
export const FAILED_LIST_MAX = 10_000;

const LIGHT: QueueLayout = {
  format: 'light',
  // zkgate's own jobs stay in zkgate's lists: in Light's, a claim had to find them past every body
  // queued ahead (10,000 of Light's batch bodies made each claim block Redis for milliseconds).
  // Light's lists hold Light's bodies: the batch bodies a front queues for Light's workers, and
  // the jobs Light's own processes write, which zkgate hosts take in from the head.
  pending: [`${ZK}proof_queue`, 'zk_update_queue', 'zk_append_queue', 'zk_address_append_queue', `${ZK}batch_queue`],
  processing: (list) => list.replace(/_queue$/, '_processing_queue'),
  failed: 'zk_failed_queue',
  resultsList: 'zk_results_queue',
  resultKey: (id) => `zk_result_${id}`,
  // Light's bodies as Light routes them (A:server.go:676-687): every non-batch circuit shares the
  // update list.
  route: (kind, circuitType) =>
    kind === 'batch'
      ? `${ZK}batch_queue`
      : kind === 'prove'
        ? `${ZK}proof_queue`
        : circuitType === 'append-with-proofs' || circuitType === 'append'
          ? 'zk_append_queue'
          : circuitType === 'address-append'
            ? 'zk_address_append_queue'
            : 'zk_update_queue',
};

const NATIVE: QueueLayout = {
  format: 'zkgate',
  pending: [`${ZK}proof_queue`, `${ZK}batch_queue`],
  processing: (list) => list.replace(/_queue$/, '_processing_queue'),
  failed: `${ZK}failed_queue`,
  resultKey: (id) => `${ZK}result:${id}`,
  route: (kind) => (kind === 'batch' ? `${ZK}batch_queue` : `${ZK}proof_queue`),
};

export const layoutOf = (format: QueueFormat): QueueLayout => (format === 'light' ? LIGHT : NATIVE);

/** Every list a layout uses: pending, processing and failed (what /queue/stats counts). */
export function listsOf(l: QueueLayout): { pending: string[]; processing: string[]; failed: string } {
  return { pending: [...l.pending], processing: l.pending.map((p) => l.processing(p)), failed: l.failed };
}
