// The health report's aggregation, and the prover warm-up as a health component.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { warmUpHealth } from '../../src/gateway.js';
import { HealthRegistry } from '../../src/obs/health.js';

test('a warming component makes the report warming; unavailable still wins', async () => {
  const h = new HealthRegistry();
  h.add('a', () => ({ status: 'ready' }));
  h.add('b', () => ({ status: 'degraded', detail: 'x' }));
  h.add('c', () => ({ status: 'warming', detail: 'loading', progress: { done: 1, total: 3 } }));
  assert.equal((await h.report()).status, 'warming');
  h.add('d', () => ({ status: 'unavailable', detail: 'down' }));
  assert.equal((await h.report()).status, 'unavailable');
});

test('the warm-up state as a component: warming with progress, then ready or degraded', () => {
  assert.deepEqual(warmUpHealth({ phase: 'warming', total: 3, done: 1, current: 'v1_inclusion_26_2', failed: [] }), {
    status: 'warming',
    detail: 'loading proving keys and fixed-base tables in every worker: 1 of 3 circuits (now v1_inclusion_26_2)',
    progress: { done: 1, total: 3 },
  });
  assert.deepEqual(warmUpHealth({ phase: 'ready', total: 3, done: 3, failed: [], ms: 1234 }), {
    status: 'ready',
    detail: '3 circuits preloaded in 1234 ms',
  });
  assert.deepEqual(
    warmUpHealth({ phase: 'ready', total: 2, done: 2, failed: [{ circuit: 'v1_inclusion_26_8', error: 'disk full' }] }),
    { status: 'degraded', detail: 'preloading failed for v1_inclusion_26_8 (disk full)' },
  );
  // Shapes left without tables by the memory budget still prove: ready, and named.
  assert.deepEqual(
    warmUpHealth({
      phase: 'ready',
      total: 3,
      done: 3,
      failed: [],
      ms: 99,
      withoutTables: [
        { circuit: 'v1_combined_26_26_3_2', bytes: 215_398_720 },
        { circuit: 'v1_combined_26_26_4_2', bytes: 242_896_832 },
      ],
    }),
    {
      status: 'ready',
      detail:
        '3 circuits preloaded in 99 ms; without fixed-base tables (no room in --prover-memory-mb): v1_combined_26_26_3_2, v1_combined_26_26_4_2',
    },
  );
  assert.deepEqual(
    warmUpHealth({ phase: 'ready', total: 3, done: 3, failed: [], ms: 99, notPreloaded: ['v2_inclusion_32_8'] }),
    {
      status: 'ready',
      detail:
        '2 circuits preloaded in 99 ms; not preloaded (no room in --prover-memory-mb; loaded on first use): v2_inclusion_32_8',
    },
  );
  assert.deepEqual(warmUpHealth({ phase: 'idle', total: 0, done: 0, failed: [] }), { status: 'ready' });
});
