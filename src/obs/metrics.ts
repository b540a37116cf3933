// A small Prometheus registry (text exposition format 0.0.4): counters, gauges and histograms with labels.
// Hand-written because the hot path is one map lookup per update, and the gateway needs nothing more.
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const SEP = '\u0001';

interface Metric {
  render(out: string[]): void;
}

function labelText(names: readonly string[], key: string, extra?: string): string {
  const values = key === '' && names.length === 0 ? [] : key.split(SEP);
  const parts = names.map((n, i) => `${n}="${escapeLabel(values[i] ?? '')}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** Counters and gauges: one number per label set. */
abstract class ValueMetric implements Metric {
  protected readonly values = new Map<string, number>();
  protected abstract readonly type: 'counter' | 'gauge';
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labels: readonly string[],
  ) {}

  inc(labelValues: readonly string[] = [], by = 1): void {
    const key = labelValues.join(SEP);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  get(labelValues: readonly string[] = []): number {
    return this.values.get(labelValues.join(SEP)) ?? 0;
  }

  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`);
    for (const [k, v] of this.values) out.push(`${this.name}${labelText(this.labels, k)} ${formatValue(v)}`);
  }
}

export class Counter extends ValueMetric {
  protected readonly type = 'counter';
}

export class Gauge extends ValueMetric {
  protected readonly type = 'gauge';
  constructor(
    name: string,
    help: string,
    labels: readonly string[],
    private collect?: () => number,
  ) {
    super(name, help, labels);
  }

  /** Reads from `collect` from now on (a part made again: see MetricsRegistry.again). */
  rebind(collect: (() => number) | undefined): void {
    this.collect = collect;
  }

  set(v: number, labelValues: readonly string[] = []): void {
    this.values.set(labelValues.join(SEP), v);
  }

  dec(labelValues: readonly string[] = [], by = 1): void {
    this.inc(labelValues, -by);
  }

  override render(out: string[]): void {
    if (this.collect) this.values.set('', this.collect());
    super.render(out);
  }
}

interface HistogramSeries {
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram implements Metric {
  private readonly series = new Map<string, HistogramSeries>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labels: readonly string[],
    readonly buckets: readonly number[],
  ) {}

  observe(value: number, labelValues: readonly string[] = []): void {
    const key = labelValues.join(SEP);
    let s = this.series.get(key);
    if (!s) {
      s = { counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    // Non-cumulative per bucket; render() accumulates.
    let i = 0;
    while (i < this.buckets.length && value > this.buckets[i]!) i++;
    if (i < this.buckets.length) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  count(labelValues: readonly string[] = []): number {
    return this.series.get(labelValues.join(SEP))?.count ?? 0;
  }

  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`);
    for (const [k, s] of this.series) {
      let acc = 0;
      this.buckets.forEach((le, i) => {
        acc += s.counts[i]!;
        out.push(`${this.name}_bucket${labelText(this.labels, k, `le="${formatValue(le)}"`)} ${acc}`);
      });
      out.push(`${this.name}_bucket${labelText(this.labels, k, 'le="+Inf"')} ${s.count}`);
      out.push(`${this.name}_sum${labelText(this.labels, k)} ${formatValue(s.sum)}`);
      out.push(`${this.name}_count${labelText(this.labels, k)} ${s.count}`);
    }
  }
}

/** Latency buckets in seconds, 0.5 ms to 30 s: proofs take seconds, adapter calls well under a millisecond. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class MetricsRegistry {
  private readonly metrics: Metric[] = [];
  private readonly names = new Set<string>();

  /**
   * The registry for a part made again and again (the writer's follower, each time this process
   * takes the index's lease): a metric it registered before is handed back, a gauge reading from
   * the newest part. Elsewhere a name registered twice is a mistake, and throws.
   */
  again(): MetricsRegistry {
    const base = this;
    const existing = <M>(name: string, kind: new (...a: never[]) => M): M | undefined => {
      const m = base.metrics.find((x) => (x as { name?: string }).name === name);
      if (m && !(m instanceof kind)) throw new Error(`metric ${name} registered twice, as two kinds`);
      return m as M | undefined;
    };
    return Object.assign(Object.create(base) as MetricsRegistry, {
      counter: (name: string, help: string, labels: readonly string[] = []) =>
        existing(name, Counter) ?? base.counter(name, help, labels),
      gauge: (name: string, help: string, labels: readonly string[] = [], collect?: () => number) => {
        const g = existing(name, Gauge);
        g?.rebind(collect);
        return g ?? base.gauge(name, help, labels, collect);
      },
      histogram: (name: string, help: string, labels: readonly string[] = [], buckets = LATENCY_BUCKETS) =>
        existing(name, Histogram) ?? base.histogram(name, help, labels, buckets),
    });
  }

  private add<M extends Metric & { name: string }>(m: M): M {
    if (this.names.has(m.name)) throw new Error(`metric ${m.name} registered twice`);
    this.names.add(m.name);
    this.metrics.push(m);
    return m;
  }

  counter(name: string, help: string, labels: readonly string[] = []): Counter {
    return this.add(new Counter(name, help, labels));
  }

  gauge(name: string, help: string, labels: readonly string[] = [], collect?: () => number): Gauge {
    return this.add(new Gauge(name, help, labels, collect));
  }

  histogram(name: string, help: string, labels: readonly string[] = [], buckets = LATENCY_BUCKETS): Histogram {
    return this.add(new Histogram(name, help, labels, buckets));
  }

  render(): string {
    const out: string[] = [];
    for (const m of this.metrics) m.render(out);
    return out.join('\n') + '\n';
  }
}

/** Process-level gauges every Prometheus target is expected to expose. */
export function registerProcessMetrics(reg: MetricsRegistry): void {
  const started = Date.now() / 1000;
  reg.gauge(
    'process_start_time_seconds',
    'Start time of the process since the Unix epoch in seconds.',
    [],
    () => started,
  );
  reg.gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', [], () => process.memoryUsage.rss());
  reg.gauge('nodejs_heap_used_bytes', 'V8 heap in use in bytes.', [], () => process.memoryUsage().heapUsed);
  reg.gauge(
    'nodejs_external_memory_bytes',
    'Memory of C++ objects bound to JavaScript (buffers, the native addon), in bytes.',
    [],
    () => process.memoryUsage().external,
  );
  // Resident memory split as Linux counts it: anonymous (heaps, native allocations) vs mapped files
  // (LMDB's map, mapped proving keys: page cache the kernel can drop, not a leak).
  for (const kind of ['anon', 'file'] as const)
    reg.gauge(
      `process_resident_${kind}_bytes`,
      `Resident memory, ${kind === 'anon' ? 'anonymous' : 'file-backed'} (Linux RssAnon/RssFile), in bytes.`,
      [],
      () => residentSplit()[kind] ?? 0,
    );
  // How long ready work waited for the main thread: what a long synchronous step costs every
  // request at that moment (the gateway keeps each under 50 ms; see the stalls benchmark).
  const delay = eventLoopDelay();
  reg.gauge(
    'nodejs_eventloop_delay_max_seconds',
    `Longest event-loop delay in the last ${DELAY_WINDOW_MS / 1000} s window, in seconds.`,
    [],
    () => delay().max,
  );
  reg.gauge(
    'nodejs_eventloop_delay_p99_seconds',
    `99th percentile event-loop delay in the last ${DELAY_WINDOW_MS / 1000} s window, in seconds.`,
    [],
    () => delay().p99,
  );
}

const DELAY_WINDOW_MS = 15_000;
let delayWindow: (() => { max: number; p99: number }) | undefined;

/** One monitor per process (gateways in one test process share it), read by fixed windows. */
function eventLoopDelay(): () => { max: number; p99: number } {
  if (delayWindow) return delayWindow;
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let last = { max: 0, p99: 0 };
  setInterval(() => {
    last = { max: h.max / 1e9, p99: h.percentile(99) / 1e9 };
    h.reset();
  }, DELAY_WINDOW_MS).unref();
  delayWindow = () => last;
  return delayWindow;
}

/** RssAnon / RssFile / RssShmem of /proc/<pid>/status in bytes; empty off Linux. */
export function residentSplit(pid: number | 'self' = 'self'): { anon?: number; file?: number; shmem?: number } {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return {};
  }
  const kb = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const out: { anon?: number; file?: number; shmem?: number } = {};
  const anon = kb('RssAnon');
  const file = kb('RssFile');
  const shmem = kb('RssShmem');
  if (anon !== undefined) out.anon = anon;
  if (file !== undefined) out.file = file;
  if (shmem !== undefined) out.shmem = shmem;
  return out;
}
