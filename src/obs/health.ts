// Readiness of the gateway's parts. 'disabled' parts (a backend not configured) do not make the
// gateway unhealthy; an 'unavailable' one does.

export type ComponentStatus =
  | { status: 'ready'; detail?: string }
  | { status: 'unavailable'; detail: string }
  | { status: 'disabled'; detail: string };

export type HealthCheck = () => Promise<ComponentStatus> | ComponentStatus;

export interface HealthReport {
  status: 'ok' | 'unavailable';
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
    const ok = entries.every(([, s]) => s.status !== 'unavailable');
    return { status: ok ? 'ok' : 'unavailable', components };
  }
}
