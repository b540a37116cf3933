// --role rpc with the embedded ledger and a --role prover elsewhere: witnesses come from the
// ledger's trees on the rpc side, the remote prover proves them, and the rpc side installs the
// remote key's verification key into its Light system program before answering.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createRpc, type Rpc } from '@lightprotocol/stateless.js';
import { linkKeyCache, startTestGateway, tempDir, type TestGateway } from '../helpers/gateway.js';
import { compressAndSend } from '../helpers/compress-and-send.js';

const proverDir = tempDir();
let prover: TestGateway;
let gw: TestGateway;
let rpc: Rpc;

before(async () => {
  linkKeyCache(proverDir);
  prover = await startTestGateway(
    { role: 'prover' },
    {},
    { prover: true, dataDir: proverDir, keys: ['v1_inclusion_26_1'] },
  );
  gw = await startTestGateway(
    { role: 'rpc', proverUrl: prover.gateway.grpcAddress, proverToken: prover.gateway.grpcToken! },
    {},
    { ledger: true },
  );
  rpc = createRpc(gw.url, gw.url);
});
after(async () => {
  await gw?.stop();
  await prover?.stop();
  rmSync(proverDir, { recursive: true, force: true });
});

test(
  'a transfer proved by a remote prover over the rpc side ledger is accepted on that ledger',
  { timeout: 600_000 },
  async () => {
    const chain = gw.gateway.chain!;
    assert.equal(gw.gateway.prover, undefined);
    assert.equal(chain.lightSystem.installedCount(), 0, 'no key known before the first proof');
    const { payer, bob } = await compressAndSend(rpc);
    assert.equal((await rpc.getCompressedBalanceByOwner(payer.publicKey)).toString(), '750000000');
    assert.equal((await rpc.getCompressedBalanceByOwner(bob.publicKey)).toString(), '250000000');
    const remote = await prover.gateway.prover!.service.verifyingKey('v1_inclusion_26_1', {
      deadline: Date.now() + 60_000,
    });
    assert.equal(chain.lightSystem.keyId('v1_inclusion_26_1'), remote.keySha256);
  },
);
