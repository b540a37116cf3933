// What the cluster-follow tests share: JSON-RPC calls, stateless.js pointed at A (the cluster) for
// Solana and at an indexer for Photon and proofs, and waiting for B's index to reach A.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRpc, LightSystemProgram, type Rpc, type TreeInfo } from '@lightprotocol/stateless.js';
import { Transaction, type Connection, type Keypair } from '@solana/web3.js';
import { stateTrees } from '../compression/helpers.js';
import { sendAndPoll, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

export type RpcAnswer = { result?: unknown; error?: { code: number; message: string } };

export async function call(url: string, method: string, params: unknown = []): Promise<RpcAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as RpcAnswer;
}

/** stateless.js with `cluster` as the Solana RPC (its websocket too) and `indexer` as Photon and the prover. */
export const rpcOf = (cluster: TestGateway, indexer: TestGateway): Rpc =>
  createRpc(cluster.url, indexer.url, indexer.url, {
    commitment: 'confirmed',
    wsEndpoint: `${cluster.gateway.wsUrl}?api-key=${TEST_KEY}`,
  });

/** `follower` caught up with what `cluster` has confirmed now (it follows finalized blocks: it gets there once they are). */
export async function caughtUp(cluster: TestGateway, follower: TestGateway): Promise<void> {
  const slot = (await call(cluster.url, 'getSlot', [{ commitment: 'confirmed' }])).result as number;
  for (;;) {
    const r = await call(follower.url, 'getIndexerSlot');
    if (typeof r.result === 'number' && r.result >= slot) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Compresses 0.001 SOL of `payer`'s to itself `n` times, V1 and V2 trees in turn (the `sent`-th
 * compression of the test first); returns the count sent after them.
 */
export async function compressInTurn(conn: Connection, payer: Keypair, n: number, sent: number): Promise<number> {
  const { v1, v2 } = stateTrees();
  for (let i = 0; i < n; i++, sent++) {
    const tree: TreeInfo = sent % 2 ? v2 : v1;
    const ix = await LightSystemProgram.compress({
      payer: payer.publicKey,
      toAddress: payer.publicKey,
      lamports: 1_000_000,
      outputStateTreeInfo: tree,
    });
    await sendAndPoll(conn, new Transaction().add(ix), [payer]);
  }
  return sent;
}

/**
 * A slower provider in front of `target`: each getBlock answered `delayMs` late, everything else
 * relayed as it is. A backfill through it lasts long enough to be killed in, however fast the
 * follower reads.
 */
export async function slowBlocks(target: string, delayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString();
    const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await answer.text();
    if ((JSON.parse(body) as { method?: string }).method === 'getBlock')
      await new Promise((r) => setTimeout(r, delayMs));
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
