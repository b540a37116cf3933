// A gateway killed (SIGKILL) while its forester proves a batch loses nothing: the queues are on
// chain, so the next start proves the same batches again and drains them, and zkgate's trees equal
// the tree accounts throughout.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Keypair } from '@solana/web3.js';
import { compress, confirmTx, createRpc, type TreeInfo } from '@lightprotocol/stateless.js';
import { runCli } from '../helpers/cli.js';
import { assertTreesInSync } from '../compression/helpers.js';
import { linkKeyCache, rpcCall, startTestGateway, tempDir, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

const dataDir = tempDir('zkgate-forester-restart-');
let gw: TestGateway | undefined;
after(() => gw?.stop());

test('kill -9 between proving and sending loses nothing', { timeout: 900_000 }, async () => {
  linkKeyCache(dataDir);
  gw = await startTestGateway({ slotTimeMs: 100 }, {}, { prover: true, ledger: true, dataDir });
  let rpc = createRpc(gw.url, gw.url);
  const payer = Keypair.generate();
  await confirmTx(rpc, await rpc.requestAirdrop(payer.publicKey, 10_000_000_000));
  const bmt4 = (await rpc.getStateTreeInfos()).find((t) => t.tree.toBase58().startsWith('bmt4'))! as TreeInfo;
  for (let i = 0; i < 20; i++) await compress(rpc, payer, 1_000_000, payer.publicKey, bmt4);
  await gw.stop();
  gw = undefined;

  // The real CLI, forester on: killed as soon as it starts proving.
  const child = runCli([
    'start',
    '--data-dir',
    dataDir,
    '--rpc-port',
    '0',
    '--grpc-port',
    '0',
    '--prove-port',
    '0',
    '--api-keys',
    TEST_KEY,
    '--preload-circuits',
    '',
    '--slot-time-ms',
    '100',
  ]);
  const until = Date.now() + 300_000;
  while (!child.stdout().includes('forester: proving a batch') && Date.now() < until) {
    if (child.child.exitCode !== null) assert.fail(`the gateway exited: ${child.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.match(child.stdout(), /forester: proving a batch/);
  child.child.kill('SIGKILL');
  assert.equal((await child.exited).signal, 'SIGKILL');
  assert.doesNotMatch(child.stdout(), /batch in the tree/, 'killed before sending');

  gw = await startTestGateway({ forester: 'on', slotTimeMs: 100 }, {}, { prover: true, ledger: true, dataDir });
  rpc = createRpc(gw.url, gw.url);
  const deadline = Date.now() + 300_000;
  for (;;) {
    const s: { queues: { readyBatches: number }[] } = (await rpcCall(gw.url, 'zkgate_getForesterStatus', [])).result;
    if (s.queues.every((q: { readyBatches: number }) => q.readyBatches === 0)) break;
    if (Date.now() > deadline) assert.fail(`not drained: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  await gw.gateway.chain!.forester!.idle();
  assertTreesInSync(gw.gateway.chain!, 'after the restart');
  const { compression } = gw.gateway.chain!;
  assert.equal(compression.trees.info(bmt4.tree.toBase58()).nextIndex, 20);
  assert.equal(gw.gateway.chain!.forester!.status().lastError, null);
  assert.equal((await rpc.getCompressedBalanceByOwner(payer.publicKey)).toString(), '20000000');
  const accounts = (await rpc.getCompressedAccountsByOwner(payer.publicKey)).items;
  assert.equal(accounts.filter((a) => a.proveByIndex).length, 0, 'all in the tree');
});
