// Compressed transfers back to back on one V2 tree of an in-process gateway with the forester on:
// what the suite's bounded forester test checks for correctness and what
// `npm run bench -- forester-sustained` times. The transfers go through the unmodified
// stateless.js (./light-transfer.ts: the library's pieces in a careful client's order).
import assert from 'node:assert/strict';
import { Keypair } from '@solana/web3.js';
import { compress, confirmTx, createRpc, type Rpc, type TreeInfo } from '@lightprotocol/stateless.js';
import type { Config } from '../../src/config.js';
import { assertTreesInSync } from '../compression/helpers.js';
import { startTestGateway, type TestGateway } from './gateway.js';
import { transferCompressed } from './light-transfer.js';

/** The shape a transfer proves with, then the batch shapes the forester drains its queues with. */
export const TRANSFER_KEYS = ['v2_inclusion_32_1', 'batch_append_32_10', 'batch_update_32_10'] as const;
/** What alice compresses at the start; each transfer moves `amount` of it to bob. */
const COMPRESSED = 5_000_000_000;

export interface TransferLoad {
  gw: TestGateway;
  rpc: Rpc;
  alice: Keypair;
  bob: Keypair;
  /** The V2 state tree every transfer spends from and appends to. */
  tree: TreeInfo;
  amount: number;
  /** Transfers that succeeded so far. */
  sent: number;
  /** One more transfer; a failure names which one, with the forester's queues at that moment. */
  transfer(): Promise<void>;
  /** Until no full zkp batch waits and the forester has nothing in hand. */
  drained(): Promise<void>;
  /** Balances to the lamport, zkgate's trees equal to the tree accounts, nothing skipped. */
  assertExact(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A gateway with the ledger, the prover and the forester (`forester: 'off'` for a baseline), alice
 * funded with 5 SOL compressed into `tree` (bmt3 unless named). `dataDir` and `linkKeys` pass to
 * startTestGateway (benchmarks keep their own key cache). With `queue`, a `--role rpc --queue`
 * front instead: no prover of its own, every proof (the forester's too) through the job queue.
 */
export async function startTransferLoad(
  opts: {
    slotTimeMs?: number;
    forester?: 'on' | 'off';
    amount?: number;
    tree?: string;
    dataDir?: string;
    linkKeys?: boolean;
    queue?: string;
    config?: Partial<Config>;
  } = {},
): Promise<TransferLoad> {
  const forester = opts.forester ?? 'on';
  const gw = await startTestGateway(
    {
      forester,
      slotTimeMs: opts.slotTimeMs ?? 400,
      ...(opts.queue ? { role: 'rpc' as const, queue: opts.queue } : {}),
      ...opts.config,
    },
    {},
    {
      prover: !opts.queue,
      ledger: true,
      keys: opts.queue ? [] : forester === 'on' ? [...TRANSFER_KEYS] : [TRANSFER_KEYS[0]],
      ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
      ...(opts.linkKeys !== undefined ? { linkKeys: opts.linkKeys } : {}),
    },
  );
  try {
    const rpc = createRpc(gw.url, gw.url);
    const alice = Keypair.generate();
    const bob = Keypair.generate();
    await confirmTx(rpc, await rpc.requestAirdrop(alice.publicKey, 10_000_000_000));
    const prefix = opts.tree ?? 'bmt3';
    const tree = (await rpc.getStateTreeInfos()).find((t) => t.tree.toBase58().startsWith(prefix)) as TreeInfo;
    assert.ok(tree, `the localnet has a V2 state tree ${prefix}…`);
    await compress(rpc, alice, COMPRESSED, alice.publicKey, tree);
    return transferLoad(gw, rpc, alice, bob, tree, opts.amount ?? 1_000);
  } catch (e) {
    await gw.stop();
    throw e;
  }
}

function transferLoad(
  gw: TestGateway,
  rpc: Rpc,
  alice: Keypair,
  bob: Keypair,
  tree: TreeInfo,
  amount: number,
): TransferLoad {
  const chain = gw.gateway.chain!;
  const load: TransferLoad = {
    gw,
    rpc,
    alice,
    bob,
    tree,
    amount,
    sent: 0,
    async transfer() {
      try {
        await transferCompressed(rpc, alice, amount, alice, bob.publicKey);
      } catch (e) {
        // What a rare failure needs to be understood from a CI log: which transfer, the program's
        // answer, and where the forester and its queues stood.
        const forester = chain.forester?.status();
        const why = e instanceof Error ? (e.stack ?? e.message) : String(e);
        throw new Error(
          `transfer ${load.sent + 1} failed: ${why}\nforester: ${JSON.stringify(forester ?? 'off', null, 1)}`,
        );
      }
      load.sent++;
    },
    async drained() {
      const forester = chain.forester;
      if (!forester) return;
      while (forester.status().queues.some((q) => q.readyBatches > 0)) await new Promise((r) => setTimeout(r, 250));
      await forester.idle();
    },
    async assertExact() {
      assert.equal(
        (await rpc.getCompressedBalanceByOwner(alice.publicKey)).toString(),
        String(COMPRESSED - load.sent * amount),
        'alice’s compressed balance',
      );
      assert.equal(
        (await rpc.getCompressedBalanceByOwner(bob.publicKey)).toString(),
        String(load.sent * amount),
        'bob’s compressed balance',
      );
      assertTreesInSync(chain, 'after the transfers');
    },
    stop: () => gw.stop(),
  };
  return load;
}
