// Several provers behind one front without a queue (--prover-url A,B,…): each call goes to the
// healthy prover with the fewest calls outstanding, and a prover that cannot be reached, or is
// full, hands the call to the next. Proofs from explicit witnesses are the same on every prover
// holding the same keys, so a retry elsewhere is safe; what a prover answers about the request
// itself (a bad input, a missing key) is the answer.
import type { ServingStatus } from '../grpc/health.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import { RemoteProverError, type ProverClient } from './client.js';

/** What a front asks of a prover: ProverClient's proving calls. */
export type ProvingClient = Pick<ProverClient, 'getValidityProof' | 'prove' | 'verifyingKey' | 'warm' | 'close'>;

export interface BalancedHost {
  address: string;
  client: ProverClient;
}

interface HostState extends BalancedHost {
  outstanding: number;
  healthy: boolean;
  /** Why it was last found unhealthy. */
  reason?: string;
}

/** Errors after which the call goes to the next prover: this one was not reached, or is full. */
const elsewhere = (e: unknown): boolean =>
  e instanceof RemoteProverError && (e.kind === 'prover_unavailable' || e.kind === 'prover_busy');

export class BalancedProverClient implements ProvingClient {
  private readonly hosts: HostState[];
  private readonly timer: NodeJS.Timeout;
  private next = 0;
  private readonly served?: ReturnType<MetricsRegistry['counter']>;

  constructor(
    hosts: readonly BalancedHost[],
    private readonly o: {
      /** A host's gRPC health, as the front's health check reads it. */
      check: (address: string) => Promise<ServingStatus>;
      intervalMs?: number;
      log?: Logger;
      metrics?: MetricsRegistry;
    },
  ) {
    if (hosts.length === 0) throw new Error('at least one prover');
    this.hosts = hosts.map((h) => ({ ...h, outstanding: 0, healthy: true }));
    this.timer = setInterval(() => void this.checkAll(), o.intervalMs ?? 2000);
    this.timer.unref();
    const m = o.metrics;
    if (m) {
      this.served = m.counter('zkgate_prover_host_calls_total', 'Calls to each --prover-url host, by outcome', [
        'host',
        'outcome',
      ]);
      m.gauge('zkgate_prover_hosts_healthy', 'Healthy --prover-url hosts', [], () =>
        this.hosts.reduce((n, h) => n + Number(h.healthy), 0),
      );
    }
  }

  /** Each host: healthy or not, with why, and its calls outstanding. */
  status(): { address: string; healthy: boolean; outstanding: number; reason?: string }[] {
    return this.hosts.map(({ address, healthy, outstanding, reason }) => ({
      address,
      healthy,
      outstanding,
      ...(reason ? { reason } : {}),
    }));
  }

  /** Health-checks every host now (also done every intervalMs). */
  async checkAll(): Promise<void> {
    await Promise.all(
      this.hosts.map(async (h) => {
        const s = await this.o.check(h.address).catch((e: Error) => e.message as ServingStatus);
        this.mark(h, s === 'SERVING', `health check: ${s}`);
      }),
    );
  }

  private mark(h: HostState, healthy: boolean, reason: string): void {
    if (h.healthy !== healthy)
      this.o.log?.[healthy ? 'info' : 'warn'](healthy ? 'prover host back' : 'prover host down', {
        host: h.address,
        ...(healthy ? {} : { reason }),
      });
    h.healthy = healthy;
    if (healthy) delete h.reason;
    else h.reason = reason;
  }

  /**
   * The hosts in the order to try: healthy ones first, fewest outstanding first, ties taking
   * turns; the unhealthy ones last (a check may be stale, and trying beats failing).
   */
  private order(): HostState[] {
    const start = this.next++ % this.hosts.length;
    const turn = [...this.hosts.slice(start), ...this.hosts.slice(0, start)];
    return turn.sort((a, b) => Number(b.healthy) - Number(a.healthy) || a.outstanding - b.outstanding);
  }

  private async call<T>(fn: (c: ProverClient) => Promise<T>): Promise<T> {
    let last: unknown;
    for (const h of this.order()) {
      h.outstanding++;
      try {
        const r = await fn(h.client);
        this.served?.inc([h.address, 'ok']);
        if (!h.healthy) this.mark(h, true, '');
        return r;
      } catch (e) {
        if (!elsewhere(e)) {
          this.served?.inc([h.address, 'answered_error']);
          throw e;
        }
        last = e;
        const kind = (e as RemoteProverError).kind;
        this.served?.inc([h.address, kind === 'prover_busy' ? 'busy' : 'unavailable']);
        if (kind === 'prover_unavailable') this.mark(h, false, (e as Error).message);
      } finally {
        h.outstanding--;
      }
    }
    throw last;
  }

  getValidityProof(req: Parameters<ProverClient['getValidityProof']>[0]): ReturnType<ProverClient['getValidityProof']> {
    return this.call((c) => c.getValidityProof(req));
  }

  prove(req: object, caller?: string): ReturnType<ProverClient['prove']> {
    return this.call((c) => c.prove(req, caller));
  }

  verifyingKey(circuit: string): ReturnType<ProverClient['verifyingKey']> {
    return this.call((c) => c.verifyingKey(circuit));
  }

  async warm(timeoutMs = 5000): Promise<boolean> {
    const ok = await Promise.all(this.hosts.map((h) => h.client.warm(timeoutMs)));
    return ok.some(Boolean);
  }

  close(): void {
    clearInterval(this.timer);
    for (const h of this.hosts) h.client.close();
  }
}
