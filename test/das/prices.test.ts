// The price source: cached 600 s (an injectable clock), only the top mints by 24-hour volume.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PriceSource } from '../../src/das/index.js';
import { tempDir } from '../helpers/gateway.js';

test('prices are cached for 600 s and limited to the top mints by volume', async () => {
  const file = join(tempDir(), 'prices.json');
  const write = (a: number) =>
    writeFileSync(
      file,
      JSON.stringify({
        A: { price: a, volume24h: 1000 },
        B: { price: 2, volume24h: 500 },
        C: { price: 3, volume24h: 10 },
        D: { price: 'bad', volume24h: 99999 },
      }),
    );
  write(1);
  let now = 1_000_000;
  const prices = new PriceSource(file, { top: 2, now: () => now });
  assert.equal(await prices.priceOf('A'), 1);
  assert.equal(await prices.priceOf('B'), 2);
  assert.equal(await prices.priceOf('C'), undefined, 'outside the top 2 by volume');
  assert.equal(await prices.priceOf('D'), undefined, 'malformed entries are skipped');
  write(5);
  now += 599_999;
  assert.equal(await prices.priceOf('A'), 1, 'still cached');
  now += 1;
  assert.equal(await prices.priceOf('A'), 5, 'reloaded after 600 s');
  writeFileSync(file, 'not json');
  now += 600_000;
  assert.equal(await prices.priceOf('A'), 5, 'a broken source keeps the last good prices');
  assert.match(prices.lastError ?? '', /JSON/);
});
