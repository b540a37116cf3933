// Readiness of the gateway's parts. 'disabled' parts (a backend not configured) do not make the
// gateway unhealthy; an 'unavailable' one does; a 'warming' one (starting: the prover loading its
// keys and tables) makes the report warming, not ready yet; a 'degraded' one (serving, but
// something is wrong, e.g. an indexed tree differs from the chain) makes the report degraded.

export type ComponentStatus = (
  | { status: 'ready'; detail?: string }
  | { status: 'degraded'; detail: string }
  | { status: 'unavailable'; detail: string }
  | { status: 'warming'; detail: string; progress: { done: number; total: number } }
  | { status: 'disabled'; detail: string }
) & { keys?: KeysHealth };

/** A prover's proving keys: those on file, and the builds running and queued (provingKeys). */
export interface KeysHealth {
  ready: string[];
  building: { circuit: string; priority: string; step?: string; etaMs?: number }[];
  queued: { circuit: string; priority: string }[];
}

export type HealthCheck = () => Promise<ComponentStatus> | ComponentStatus;

export interface HealthReport {
  status: 'ok' | 'degraded' | 'warming' | 'unavailable';
  components: Record<string, ComponentStatus>;
}

export class HealthRegistry {
  private readonly checks = new Map<string, HealthCheck>();

  add(name: string, check: HealthCheck): void {
    this.checks.set(name, check);
  }

  async report(timeoutMs = 2000): Promise<HealthReport> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]): Promise<[string, ComponentStatus]> => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<ComponentStatus>((resolve) => {
          timer = setTimeout(
            () => resolve({ status: 'unavailable', detail: `health check timed out after ${timeoutMs} ms` }),
            timeoutMs,
          );
        });
        try {
          return [name, await Promise.race([Promise.resolve().then(check), timeout])];
        } catch (e) {
          return [name, { status: 'unavailable', detail: (e as Error).message ?? String(e) }];
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const components = Object.fromEntries(entries);
    const status = entries.some(([, s]) => s.status === 'unavailable')
      ? 'unavailable'
      : entries.some(([, s]) => s.status === 'warming')
        ? 'warming'
        : entries.some(([, s]) => s.status === 'degraded')
          ? 'degraded'
          : 'ok';
    return { status, components };
  }
}
