// The consistency monitor's comparison (differences): a tree as indexed against Light's tree
// account, here the localnet genesis accounts Light ships: equal for an empty tree; the cluster
// ahead leaves nothing to say yet; the index ahead, or another root at the same sequence, is a
// difference naming both sides.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { differences } from '../../src/ingest/consistency.js';
import { genesisAccountsDir, readGenesisTrees } from '../../src/ledger/index.js';
import { TreeStore } from '../../src/state/index.js';
import { loadPoseidon } from '../../src/zk/index.js';
import { tempDir } from '../helpers/gateway.js';

const dir = tempDir();
let store: TreeStore;
before(async () => {
  await loadPoseidon();
  store = await TreeStore.open(dir);
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const account = (file: string) =>
  Buffer.from(
    (JSON.parse(readFileSync(join(genesisAccountsDir(), file), 'utf8')) as { account: { data: [string] } }).account
      .data[0],
    'base64',
  );

test('an empty tree equals its genesis account; the cluster ahead says nothing yet; the index ahead or another root differs', () => {
  const smt1 = readGenesisTrees().find((t) => t.pubkey === 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT')!;
  const info = store.registerTree({
    pubkey: smt1.pubkey,
    kind: 'state',
    version: 1,
    height: smt1.height,
    rootHistoryCapacity: smt1.rootHistoryCapacity,
  });
  const data = account(smt1.file);
  assert.deepEqual(differences(info, data, undefined), []);
  // The index one leaf ahead of the account.
  const ahead = { ...info, nextIndex: 1, rootSeq: 1n, root: 7n };
  assert.deepEqual(differences(ahead, data, undefined), [
    'root sequence: zkgate 1, cluster 0',
    'next index: zkgate 1, cluster 0',
  ]);
  // The account one leaf ahead of the index: the index has not got there yet.
  const behind = Buffer.from(data);
  behind.writeBigUInt64LE(1n, 240); // next index
  behind.writeBigUInt64LE(1n, 248); // sequence
  assert.equal(differences(info, behind, undefined), undefined);
  // Same sequence, another root.
  assert.deepEqual(differences({ ...info, root: 7n }, data, undefined), [
    `root at sequence 0: zkgate 0x${'0'.repeat(63)}7, cluster 0x${smt1.root.toString(16).padStart(64, '0')}`,
  ]);
  assert.deepEqual(differences(info, undefined, undefined), ['no Light tree account on the cluster']);
});
