// Large StateSync writes are applied in chunks (the event loop is served between them) yet end
// exactly as one call would, are refused whole for a bad item, and land whole or not at all
// across a kill -9 (the journal is rolled forward when the store opens).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { TreeStore, type TreeInfo } from '../../src/state/index.js';
import { CHUNK_ITEMS } from '../../src/state/large-writes.js';
import { tempDir } from '../helpers/gateway.js';
import { LOADER, sibling } from '../helpers/paths.js';

const dirs: string[] = [];
async function freshStore(): Promise<TreeStore> {
  const dir = tempDir('zkgate-large-');
  dirs.push(dir);
  return TreeStore.open(dir);
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const values = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => BigInt(i + 1) * 1_000_003n + BigInt(seed));

function snapshot(store: TreeStore, tree: string): { info: TreeInfo; history: unknown } {
  const info = store.info(tree);
  const t = info.kind === 'state' ? store.stateTree(tree) : store.addressTree(tree);
  return { info, history: t.rootHistory() };
}

describe('chunked writes end as one call would', () => {
  for (const version of [1, 2] as const) {
    test(`V${version} append, nullify and address insert`, async () => {
      const one = await freshStore();
      const chunked = await freshStore();
      for (const s of [one, chunked]) {
        s.registerTree({ pubkey: 'st', kind: 'state', version, height: 26, rootHistoryCapacity: 64 });
        s.registerTree({
          pubkey: 'ad',
          kind: 'address',
          version,
          height: version === 1 ? 26 : 40,
          rootHistoryCapacity: 64,
        });
      }
      const leaves = values(1000, 7);
      const nullify = Array.from({ length: 600 }, (_, i) => ({
        leafIndex: i * 1 + 100,
        ...(version === 2 ? { txHash: BigInt(i + 5) } : {}),
      }));
      const addresses = values(300, 11).reverse();

      one.stateTree('st').append(leaves, 5n);
      one.stateTree('st').nullify(nullify, 6n);
      one.addressTree('ad').insert(addresses, 7n);

      const a = await chunked.exclusive(() => chunked.write({ op: 'append', tree: 'st', leaves, slot: 5n }));
      assert.equal(a.firstIndex, 0);
      await chunked.exclusive(() => chunked.write({ op: 'nullify', tree: 'st', entries: nullify, slot: 6n }));
      await chunked.exclusive(() => chunked.write({ op: 'insert', tree: 'ad', addresses, slot: 7n }));

      for (const tree of ['st', 'ad']) assert.deepEqual(snapshot(chunked, tree), snapshot(one, tree), tree);
      assert.equal(chunked.stateTree('st').findLeaf(leaves[0]!), 0);
      assert.equal(chunked.stateTree('st').findLeaf(leaves[100]!), undefined);
      const low = chunked.addressTree('ad').lowElement(addresses[0]! + 1n)!;
      assert.deepEqual(low, one.addressTree('ad').lowElement(addresses[0]! + 1n));
    });
  }

  test('a bad item anywhere refuses the whole write and changes nothing', async () => {
    const s = await freshStore();
    s.registerTree({ pubkey: 'ad', kind: 'address', version: 1 });
    s.registerTree({ pubkey: 'st', kind: 'state', version: 1 });
    s.stateTree('st').append(values(10, 1));
    const before = { ad: snapshot(s, 'ad'), st: snapshot(s, 'st') };
    const dup = values(500, 3);
    dup.push(dup[17]!);
    await assert.rejects(
      s.exclusive(() => s.write({ op: 'insert', tree: 'ad', addresses: dup })),
      /already exists in address tree ad/,
    );
    const over = [...values(400, 5), 2n ** 248n];
    await assert.rejects(
      s.exclusive(() => s.write({ op: 'insert', tree: 'ad', addresses: over })),
      /is not below 2\^248/,
    );
    const entries = Array.from({ length: 300 }, (_, i) => ({ leafIndex: i % 10 }));
    await assert.rejects(
      s.exclusive(() => s.write({ op: 'nullify', tree: 'st', entries })),
      /already nullified/,
    );
    assert.deepEqual({ ad: snapshot(s, 'ad'), st: snapshot(s, 'st') }, before);
  });

  // How long the loop waits (at most 50 ms) is measured in `npm run bench -- stalls`, through a
  // gateway; here what is checked is the order of events: the loop turns between chunks.
  test('the event loop is served between chunks: a 5,000-address insert lets timers and callbacks run throughout', async () => {
    const s = await freshStore();
    s.registerTree({ pubkey: 'ad', kind: 'address', version: 2, height: 40 });
    const events: string[] = [];
    // Due at once: one call would run it only after the whole write.
    setTimeout(() => events.push('timer'), 0);
    await s.exclusive(() =>
      s.write({ op: 'insert', tree: 'ad', addresses: values(5000, 13) }, (done) => {
        events.push(`chunk ${done}`);
        // Queued after this chunk committed: it runs only if the loop turns before the next one.
        setImmediate(() => events.push(`turn after ${done}`));
      }),
    );
    events.push('written');
    assert.equal(s.info('ad').nextIndex, 5001);
    const chunks = events.filter((e) => e.startsWith('chunk '));
    assert.equal(chunks.length, Math.ceil(5000 / CHUNK_ITEMS.insert) - 1, 'onChunk hears of each chunk but the last');
    for (const [i, chunk] of chunks.entries()) {
      const turn = events.indexOf(`turn after ${chunk.slice(6)}`);
      const next = i + 1 < chunks.length ? events.indexOf(chunks[i + 1]!) : events.indexOf('written');
      assert.ok(turn > events.indexOf(chunk) && turn < next, `the loop turned between ${chunk} and the next`);
    }
    assert.ok(events.indexOf('timer') < events.indexOf(chunks.at(-1)!), 'the timer ran while the write went on');
  });
});

test('kill -9 during a large write: after reopening, whole writes only, the cut one finished', async () => {
  const CHILD = sibling(import.meta.url, 'large-write-child');
  const BATCH = 1500;
  const dir = tempDir('zkgate-large-crash-');
  dirs.push(dir);
  const child = spawn(process.execPath, [...LOADER, CHILD, dir, String(BATCH)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      // Inside the third write, once its first chunks are in (dozens more to go).
      if (/^chunk 2 /m.test(out)) child.kill('SIGKILL');
    });
    child.on('exit', () => resolve());
    child.on('error', reject);
  });
  const committed = (out.match(/committed/g) ?? []).length;
  const store = await TreeStore.open(dir);
  const n = store.info('addr').nextIndex - 2;
  assert.equal(n % BATCH, 0, `${n} addresses is not a whole number of writes`);
  assert.ok(n >= committed * BATCH);
  assert.match(store.recovered ?? '', /^insert of 1500 items into addr \(\d+ left\)$/, `recovered: ${store.recovered}`);
  // Exactly the tree of those addresses inserted in one call each.
  const ref = await freshStore();
  ref.registerTree({ pubkey: 'addr', kind: 'address', version: 1 });
  for (let b = 0; b * BATCH < n; b++)
    ref.addressTree('addr').insert(Array.from({ length: BATCH }, (_, i) => BigInt(b * BATCH + i + 2) * 7919n + 3n));
  assert.deepEqual(snapshot(store, 'addr'), snapshot(ref, 'addr'));
  await store.close();
});
