// Light's localnet genesis accounts, parsed from the account data the CLI package ships: every tree
// the bootstrap registers, with the heights, capacities, queues and roots the spec documents.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { bootstrapLocalnetTrees } from '../../src/ledger/light-trees.js';
import { readGenesisTrees } from '../../src/prover/index.js';
import { createLogger } from '../../src/obs/log.js';
import { TreeStore } from '../../src/state/index.js';
import { fromHex } from '../../src/zk/index.js';
import { tempDir } from '../helpers/gateway.js';

const EMPTY_ROOT_26 = fromHex('0x120c58f143d491e95902f7f5277778a2e0ad5168f6add75669932630ce611518');

test('the genesis trees: types, heights, capacities, queues, roots and root sequences', () => {
  const trees = readGenesisTrees();
  const row = (pubkey: string) => {
    const t = trees.find((x) => x.pubkey === pubkey);
    assert.ok(t, `${pubkey} is among the genesis trees`);
    return [t.kind, t.version, t.height, t.rootHistoryCapacity, t.queue ?? '', t.rootSeq];
  };
  assert.deepEqual(row('smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT'), [
    'state',
    1,
    26,
    2400,
    'nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148',
    0n,
  ]);
  assert.deepEqual(row('smt2rJAFdyJJupwMKAqTNAJwvjhmiZ4JYGZmbVRw1Ho'), [
    'state',
    1,
    26,
    2400,
    'nfq2hgS7NYemXsFaFUCe3EMXSDSfnZnAe27jC6aPP1X',
    0n,
  ]);
  assert.deepEqual(row('amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2'), [
    'address',
    1,
    26,
    2400,
    'aq1S9z4reTSQAdgWHGD2zDaS39sjGrAxbR31vxJ2F4F',
    3n,
  ]);
  assert.deepEqual(row('bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU'), [
    'state',
    2,
    32,
    200,
    'oq1na8gojfdUhsfCpyjNt6h4JaDWtHf1yQj4koBWfto',
    0n,
  ]);
  assert.deepEqual(row('bmt5yU97jC88YXTuSukYHa8Z5Bi2ZDUtmzfkDTA2mG2'), [
    'state',
    2,
    32,
    200,
    'oq5oh5ZR3yGomuQgFduNDzjtGvVWfDRGLuDVjv9a96P',
    0n,
  ]);
  assert.deepEqual(row('amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx'), ['address', 2, 40, 200, '', 0n]);
  const amt2 = trees.find((t) => t.pubkey.startsWith('amt2'))!;
  assert.equal(amt2.root, fromHex('0x1c416bffd0ea3303835f3e82cab1b01ad85140b8c8195f7cf8812c6de5926a4c'));
  assert.equal(trees.find((t) => t.pubkey.startsWith('smt1'))!.root, EMPTY_ROOT_26);
});

const dir = tempDir();
let store: TreeStore;
after(() => store?.close());

test('bootstrap registers each genesis tree once, with zkgate roots equal to the accounts', async () => {
  store = await TreeStore.open(dir);
  const log = createLogger('silent');
  const added = bootstrapLocalnetTrees(store, log);
  assert.equal(added.length, readGenesisTrees().length);
  assert.deepEqual(bootstrapLocalnetTrees(store, log), [], 'a second start adds nothing');
  const amt1 = store.info('amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2');
  assert.equal(amt1.rootSeq, 3n);
  assert.equal(amt1.rootSeq % BigInt(amt1.rootHistoryCapacity), 3n);
});
