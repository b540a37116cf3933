import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MetricsRegistry, registerProcessMetrics } from '../../src/obs/metrics.js';

test('Prometheus text format: counters, gauges, cumulative histograms, escaped labels', () => {
  const reg = new MetricsRegistry();
  const c = reg.counter('t_calls_total', 'Calls.', ['method']);
  c.inc(['a']);
  c.inc(['a'], 2);
  c.inc(['we"ird\\\n']);
  const g = reg.gauge('t_in_flight', 'In flight.');
  g.inc();
  g.inc();
  g.dec();
  const h = reg.histogram('t_seconds', 'Latency.', ['m'], [0.1, 1]);
  h.observe(0.05, ['x']);
  h.observe(0.5, ['x']);
  h.observe(5, ['x']);
  assert.equal(
    reg.render(),
    [
      '# HELP t_calls_total Calls.',
      '# TYPE t_calls_total counter',
      't_calls_total{method="a"} 3',
      't_calls_total{method="we\\"ird\\\\\\n"} 1',
      '# HELP t_in_flight In flight.',
      '# TYPE t_in_flight gauge',
      't_in_flight 1',
      '# HELP t_seconds Latency.',
      '# TYPE t_seconds histogram',
      't_seconds_bucket{m="x",le="0.1"} 1',
      't_seconds_bucket{m="x",le="1"} 2',
      't_seconds_bucket{m="x",le="+Inf"} 3',
      't_seconds_sum{m="x"} 5.55',
      't_seconds_count{m="x"} 3',
      '',
    ].join('\n'),
  );
  assert.throws(() => reg.counter('t_calls_total', 'again'), /registered twice/);
});

test('process metrics: resident memory split, heap, event-loop delay windows', () => {
  const reg = new MetricsRegistry();
  registerProcessMetrics(reg);
  const text = reg.render();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  for (const name of ['process_resident_memory_bytes', 'process_resident_anon_bytes', 'nodejs_heap_used_bytes'])
    assert.ok(value(name) > 1e6, `${name}: ${value(name)}`);
  assert.ok(value('process_resident_file_bytes') > 0);
  // Before the first window closes, no delay has been measured yet: zero, not absent.
  for (const name of ['nodejs_eventloop_delay_max_seconds', 'nodejs_eventloop_delay_p99_seconds']) {
    assert.match(text, new RegExp(`^# TYPE ${name} gauge$`, 'm'));
    assert.ok(value(name) >= 0 && value(name) < 60, `${name}: ${value(name)}`);
  }
});
