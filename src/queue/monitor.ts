// The queue's figures in /metrics and its state in /health, read from Redis every 2 s by each
// process that uses the queue (a scrape then costs nothing, and sees the whole fleet's counts).
import type { ComponentStatus } from '../obs/health.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { JobQueue, QueueStats } from './job-queue.js';

export class QueueMonitor {
  private last?: QueueStats;
  private error?: string;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly queue: JobQueue,
    registry: MetricsRegistry,
    intervalMs = 2000,
  ) {
    const depth = registry.gauge('zkgate_queue_jobs', 'Jobs in each queue list (pending, processing, failed)', [
      'list',
    ]);
    const hosts = registry.gauge('zkgate_queue_host_completed', 'Jobs completed by each prover host (fleet-wide)', [
      'host',
    ]);
    const counters = {
      leaseExpiries: registry.gauge('zkgate_queue_lease_expiries', 'Leases that ran out (a host died or stalled)'),
      retries: registry.gauge('zkgate_queue_retries', 'Jobs put back for another try'),
      completed: registry.gauge('zkgate_queue_completed', 'Jobs completed (fleet-wide)'),
      failed: registry.gauge('zkgate_queue_failed', 'Jobs failed for good (fleet-wide)'),
    };
    registry.gauge('zkgate_queue_up', 'Whether Redis answered the last look (1) or not (0)', [], () =>
      this.error === undefined && this.last ? 1 : 0,
    );
    const refresh = async () => {
      try {
        const s = await queue.stats();
        this.last = s;
        this.error = undefined;
        for (const [list, n] of Object.entries(s.lists)) depth.set(n, [list]);
        for (const [host, n] of Object.entries(s.hosts)) hosts.set(n, [host]);
        for (const k of Object.keys(counters) as (keyof typeof counters)[]) counters[k].set(s[k]);
      } catch (e) {
        this.error = (e as Error).message;
      }
    };
    void refresh();
    this.timer = setInterval(() => void refresh(), intervalMs);
    this.timer.unref();
  }

  /** /health: ready with the depth, or degraded naming Redis when it does not answer. */
  async health(): Promise<ComponentStatus> {
    try {
      const ms = await this.queue.ping();
      const s = this.last;
      return {
        status: 'ready',
        detail: `${this.queue.where} (${this.queue.layout.format} lists), ${Math.round(ms)} ms${s ? `; ${s.pending} pending, ${s.processing} processing, ${s.failedList} failed` : ''}`,
      };
    } catch (e) {
      return { status: 'degraded', detail: (e as Error).message };
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
