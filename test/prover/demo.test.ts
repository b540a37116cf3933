// `zkgate demo`: ingests accounts into a running gateway through StateSync and prints curl commands
// that work as printed.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { loadPoseidon, shutdownZk } from '../../src/zk/index.js';
import { runCli, startCli, type RunningGateway } from '../helpers/cli.js';
import { linkKeyCache, postJson, tempDir } from '../helpers/gateway.js';
import { DEMO_V1_TREE, DEMO_V2_TREE } from '../../src/demo-command.js';
import { verifyV1, verifyV2, warmKeys } from './helpers.js';

const dataDir = tempDir();
let gw: RunningGateway;

before(async () => {
  await loadPoseidon();
  await warmKeys();
  linkKeyCache(dataDir);
  // The snarkjs backend end to end (the other prover tests run the default, native).
  gw = await startCli(
    // Generous deadline: the suite runs beside this test, and snarkjs proves V2 shapes in seconds.
    ['--data-dir', dataDir, '--prover-backend', 'snarkjs', '--proof-timeout-ms', '120000'],
    {},
    60_000,
  );
});

after(async () => {
  gw.child.kill('SIGTERM');
  await gw.exited;
  rmSync(dataDir, { recursive: true, force: true });
  // snarkjs' verifier started the curve's worker threads in this process.
  await shutdownZk();
});

test('zkgate demo --accounts 40 prints curl commands whose proofs verify', async () => {
  const rpcPort = new URL(gw.base).port;
  const grpcPort = gw.grpc.split(':').pop()!;
  const demo = runCli([
    'demo',
    '--accounts',
    '40',
    '--data-dir',
    dataDir,
    '--rpc-port',
    rpcPort,
    '--grpc-port',
    grpcPort,
  ]);
  const { code } = await demo.exited;
  assert.equal(code, 0, demo.stderr());
  assert.match(demo.stderr(), new RegExp(`${DEMO_V1_TREE}: 40 accounts appended`));
  assert.match(demo.stderr(), new RegExp(`${DEMO_V2_TREE}: 40 accounts appended`));
  const curls = demo
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('curl '));
  assert.equal(curls.length, 2);
  const results = [];
  for (const line of curls) {
    const [, url, body] = line.match(/^curl -s '([^']+)' -H 'content-type: application\/json' -d '([^']+)'$/)!;
    const res = await postJson(url!, body!);
    const json = JSON.parse(res.text);
    assert.ok(json.result, res.text);
    results.push(json.result);
  }
  await verifyV1(results[0], 1, 'v1_combined_26_26_1_1');
  await verifyV2(results[1], 'v2_combined_32_40_1_1');
});
