// The websocket on the RPC port + 1 (the default), where clients look for it without being told:
// stateless.js's airdropSol confirms through web3.js's derived websocket URL.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { Keypair } from '@solana/web3.js';
import { airdropSol, createRpc } from '@lightprotocol/stateless.js';
import { closeWeb3Websocket, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** A gateway on a port whose next port is free too (another process may take it meanwhile: try again). */
async function onPortPair(): Promise<TestGateway> {
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (!(await isFree(port)) || !(await isFree(port + 1))) continue;
    try {
      return await startTestGateway({ rpcPort: port, wsPort: null }, {}, { ledger: true });
    } catch (e) {
      if (attempt >= 5) throw e;
    }
  }
}

test('the websocket listens on the RPC port + 1; airdropSol (stateless.js, web3.js underneath) confirms there', async () => {
  const gw = await onPortPair();
  try {
    assert.equal(new URL(gw.gateway.wsUrl!).port, String(gw.gateway.rpcPort + 1));
    const rpc = createRpc(gw.url, gw.url);
    const kp = Keypair.generate();
    await airdropSol({ connection: rpc, lamports: 1_500_000_000, recipientPublicKey: kp.publicKey });
    assert.equal(await rpc.getBalance(kp.publicKey), 1_500_000_000);
    await closeWeb3Websocket(rpc);
  } finally {
    await gw.stop();
  }
});
