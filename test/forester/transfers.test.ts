// Compressed transfers back to back with the forester on, bounded for the suite: 110 transfers
// through the unmodified stateless.js on one V2 tree (bmt3). Each queues two outputs and one
// nullifier, so the tree's output queue (2 batches of 50) fills and is drained twice over and its
// input queue more than once; the forester on these two cores proves more slowly than the
// client sends, so sends meet full queues and wait for room (sendTransaction's queue wait) rather
// than fail. At the end every transfer has landed, the balances are exact to the lamport, every
// full zkp batch was proved and sent, and zkgate's trees equal the tree accounts. How fast this
// goes, and a client proof's latency meanwhile, is `npm run bench -- forester-sustained`.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startTransferLoad, type TransferLoad } from '../helpers/compressed-load.js';

const TRANSFERS = 110;
let load: TransferLoad | undefined;
after(() => load?.stop());

test(`${TRANSFERS} compressed transfers in a row with the forester on: all land, exact to the lamport, trees equal the chain`, async (t) => {
  // 1 s slots: a blockhash lives 150 s, the longest a send may wait for queue room (on two cores
  // shared with the rest of the suite, freeing a queue batch takes five proofs of seconds each).
  load = await startTransferLoad({ slotTimeMs: 1000 });
  const l = load;
  const forester = l.gw.gateway.chain!.forester!;
  for (let i = 0; i < TRANSFERS; i++) {
    await l.transfer();
    if ((i + 1) % 40 === 0) t.diagnostic(`${i + 1} transfers, ${forester.status().batches.sent} batches sent`);
  }
  assert.equal(l.sent, TRANSFERS);
  await l.drained();
  await l.assertExact();
  // The compression's output and two per transfer, appended in full zkp batches of 10; one
  // nullifier per transfer, nullified in batches of 10.
  const outputs = 1 + 2 * TRANSFERS;
  const info = l.gw.gateway.chain!.compression.trees.info(l.tree.tree.toBase58());
  assert.equal(info.nextIndex, Math.floor(outputs / 10) * 10, 'every full batch of outputs was appended');
  const status = forester.status();
  assert.equal(
    status.batches.sent,
    Math.floor(outputs / 10) + Math.floor(TRANSFERS / 10),
    `batches sent: ${JSON.stringify(status.batches)}`,
  );
  assert.deepEqual(
    status.queues.filter((q) => q.readyBatches > 0),
    [],
    'no full batch is left waiting',
  );
});
