// An embedded ledger with Light's localnet and the compression ingest, without HTTP: what the
// gateway opens, for tests that drive the ledger directly with Light instructions.
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { bn, LightSystemProgram, localTestActiveStateTreeInfos, type TreeInfo } from '@lightprotocol/stateless.js';
import assert from 'node:assert/strict';
import {
  compareWithChain,
  openCompression,
  type AccountRecord,
  type Compression,
} from '../../src/compression/index.js';
import { decodeBase58 } from '../../src/zk/base58.js';
import {
  bootstrapLocalnetTrees,
  Ledger,
  lightLocalnet,
  parseTransaction,
  type AccountFixture,
  type CommittedTransaction,
} from '../../src/ledger/index.js';
import { createLogger } from '../../src/obs/log.js';
import { loadPoseidon } from '../../src/zk/index.js';

export interface LightLedger {
  ledger: Ledger;
  compression: Compression;
  /** Every committed transaction as the indexers saw it (inner instructions read). */
  seen: CommittedTransaction[];
  /** Log lines so far (warnings and errors). */
  logs(): string[];
}

export async function openLightLedger(dir: string, opts: { accounts?: AccountFixture[] } = {}): Promise<LightLedger> {
  await loadPoseidon();
  const logs: string[] = [];
  const log = createLogger('warn', (chunk) => logs.push(...chunk.trimEnd().split('\n')));
  const light = lightLocalnet();
  const seen: CommittedTransaction[] = [];
  let compression: Compression | undefined;
  const ledger = Ledger.open({
    dir,
    slotMs: 0,
    accounts: [...(opts.accounts ?? []), ...light.accounts],
    programs: light.programs,
    transactionIndexers: [
      (root) => {
        compression = openCompression(root, log);
        bootstrapLocalnetTrees(compression.trees, log, { ledger: true });
        return compression.ingester;
      },
      () => ({
        applyTransaction: (t) => {
          t.innerInstructions();
          seen.push(t);
        },
      }),
    ],
  });
  compression!.ingester.checkAll((k) => ledger.getAccount(k));
  return {
    ledger,
    compression: compression!,
    seen,
    logs: () => {
      log.flush();
      return logs;
    },
  };
}

export const stateTrees = (): { v1: TreeInfo; v2: TreeInfo } => {
  const infos = localTestActiveStateTreeInfos();
  return { v1: infos.find((i) => i.treeType === 1)!, v2: infos.find((i) => i.treeType === 3)! };
};

/** Signs and sends instructions from `payer` on the ledger (a new slot first, as a validator would). */
export function sendIxs(l: Ledger, payer: Keypair, ixs: TransactionInstruction[]) {
  l.advanceSlot();
  const msg = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: l.latestBlockhash().blockhash,
    instructions: [ComputeBudgetProgram.setComputeUnitLimit({ units: 1_000_000 }), ...ixs],
  }).compileToV0Message();
  const tx = new VersionedTransaction(msg);
  tx.sign([payer]);
  return l.send(parseTransaction(tx.serialize()));
}

export async function compressIx(payer: Keypair, lamports: number, tree: TreeInfo): Promise<TransactionInstruction> {
  return LightSystemProgram.compress({
    payer: payer.publicKey,
    toAddress: payer.publicKey,
    lamports,
    outputStateTreeInfo: tree,
  });
}

/**
 * A compressed SOL transfer spending `input` (an account waiting in a V2 output queue, proved by
 * index: no ZK proof), as stateless.js builds it: change back to the owner, `lamports` to `to`.
 */
export async function transferByIndexIx(
  owner: Keypair,
  input: AccountRecord,
  to: PublicKey,
  lamports: bigint,
): Promise<TransactionInstruction> {
  const tree = localTestActiveStateTreeInfos().find((t) => t.tree.toBase58() === input.tree)!;
  return LightSystemProgram.transfer({
    payer: owner.publicKey,
    inputCompressedAccounts: [
      {
        owner: new PublicKey(input.owner),
        lamports: bn(input.lamports.toString()),
        address: null,
        data: null,
        hash: bn(Buffer.from(input.hash).toString('hex'), 'hex'),
        treeInfo: tree,
        leafIndex: input.leafIndex,
        proveByIndex: true,
        readOnly: false,
      },
    ],
    toAddress: to,
    lamports: bn(lamports.toString()),
    recentInputStateRootIndices: [0],
    recentValidityProof: null,
  });
}

/**
 * Compression of `lamports` each to several owners in one Invoke (up to 18 fit a transaction), as
 * Light's system program takes it: what stateless.js's compress builds, with more outputs.
 */
export async function compressManyIx(
  payer: Keypair,
  owners: PublicKey[],
  lamports: bigint,
  tree: TreeInfo,
): Promise<TransactionInstruction> {
  const base = await LightSystemProgram.compress({
    payer: payer.publicKey,
    toAddress: payer.publicKey,
    lamports: Number(lamports) * owners.length,
    outputStateTreeInfo: tree,
  });
  // Invoke: proof None, no inputs, the outputs (owner, lamports, no address, no data, tree index 0),
  // relay fee None, no new addresses, compress lamports Some(total), is_compress.
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const u64 = (n: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(n);
    return b;
  };
  const body = Buffer.concat([
    Buffer.from([0]),
    u32(0),
    u32(owners.length),
    ...owners.map((o) => Buffer.concat([o.toBuffer(), u64(lamports), Buffer.from([0, 0, 0])])),
    Buffer.from([0]),
    u32(0),
    Buffer.from([1]),
    u64(lamports * BigInt(owners.length)),
    Buffer.from([1]),
  ]);
  const data = Buffer.concat([Buffer.from('1a10a90715caf219', 'hex'), u32(body.length), body]);
  return new TransactionInstruction({ programId: base.programId, keys: base.keys, data });
}

/** zkgate's trees and queues equal the ledger's tree and queue accounts; ingest skipped nothing. */
export function assertTreesInSync(c: { compression: Compression; ledger: Ledger }, step: string): void {
  const { compression, ledger } = c;
  compression.ingester.verifyPending();
  for (const info of compression.trees.listTrees())
    if (info.ledger)
      assert.deepEqual(
        compareWithChain(info, (k) => ledger.getAccount(decodeBase58(k))),
        [],
        `${step}: ${info.pubkey}`,
      );
  assert.deepEqual([...compression.ingester.divergent], [], step);
  assert.equal(compression.ingester.stats.skipped, 0, step);
}
