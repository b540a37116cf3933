// A data dir whose Light tree account was written over (here by a forced cheatcode, as a bad
// store or a careless admin could) still starts: the tree is reported degraded in /health, named,
// and everything else is served.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { postJson, startTestGateway, tempDir } from '../helpers/gateway.js';

const AMT2 = 'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx';
const call = async (url: string, method: string, params: unknown[] = []) =>
  JSON.parse((await postJson(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).text);

test('a start over a tree account written over comes up, the tree degraded and named', async () => {
  const dataDir = tempDir('zkgate-corrupt-');
  try {
    const first = await startTestGateway({}, {}, { ledger: true, dataDir });
    try {
      const info = (await call(first.url, 'getAccountInfo', [AMT2, { encoding: 'base64' }])).result.value;
      // The reported case: its discriminator kept, everything after it zeroed.
      const bytes = Buffer.from(info.data[0], 'base64');
      const zeroed = bytes.subarray(0, 8).toString('hex') + '00'.repeat(bytes.length - 8);
      const forced = await call(first.url, 'surfnet_setAccount', [AMT2, { data: zeroed }, { force: true }]);
      assert.equal(forced.error, undefined, JSON.stringify(forced));
    } finally {
      await first.stop();
    }
    const again = await startTestGateway({}, {}, { ledger: true, dataDir });
    try {
      const res = await fetch(`${again.base}health`);
      const health = (await res.json()) as {
        status: string;
        components: Record<string, { status: string; detail: string }>;
      };
      // Degraded, not unavailable: everything but that tree is served.
      assert.equal(res.status, 200);
      assert.equal(health.status, 'degraded');
      assert.notEqual(health.components.forester!.status, 'unavailable');
      assert.equal(health.components.compression!.status, 'degraded');
      assert.match(
        health.components.compression!.detail,
        new RegExp(`${AMT2} \\(tree ${AMT2}'s account does not parse as a Light tree: .*unknown V2 tree type 0\\)`),
      );
      assert.equal((await call(again.url, 'getHealth')).result, 'ok');
      assert.equal((await call(again.url, 'getBalance', [AMT2])).result.value > 0, true);
    } finally {
      await again.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
