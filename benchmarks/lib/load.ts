// HTTP load with autocannon, reported as requests/s and latency percentiles.
import autocannon from 'autocannon';

export interface LoadResult {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  body?: string;
  connections?: number;
  durationSec?: number;
  headers?: Record<string, string>;
}

function run(opts: LoadOptions, durationSec: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: opts.url,
        method: opts.body === undefined ? 'GET' : 'POST',
        body: opts.body,
        headers: { 'content-type': 'application/json', ...opts.headers },
        connections: opts.connections ?? 50,
        duration: durationSec,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

export async function measure(label: string, opts: LoadOptions): Promise<LoadResult> {
  await run(opts, 2); // warm-up: JIT, connection pools
  const r = await run(opts, opts.durationSec ?? 10);
  return {
    label,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

export function printTable(rows: LoadResult[]): void {
  const head = ['target', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'errors', 'non-2xx'];
  const lines = rows.map((r) => [
    r.label,
    r.rps.toFixed(0),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    String(r.requests),
    String(r.errors),
    String(r.non2xx),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(fmt(head));
  for (const l of lines) console.log(fmt(l));
}
