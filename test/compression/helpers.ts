// An embedded ledger with Light's localnet and the compression ingest, without HTTP: what the
// gateway opens, for tests that drive the ledger directly with Light instructions.
import {
  ComputeBudgetProgram,
  Keypair,
  TransactionMessage,
  VersionedTransaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import { LightSystemProgram, localTestActiveStateTreeInfos, type TreeInfo } from '@lightprotocol/stateless.js';
import { openCompression, type Compression } from '../../src/compression/index.js';
import {
  bootstrapLocalnetTrees,
  Ledger,
  lightLocalnet,
  parseTransaction,
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

export async function openLightLedger(dir: string): Promise<LightLedger> {
  await loadPoseidon();
  const logs: string[] = [];
  const log = createLogger('warn', (chunk) => logs.push(...chunk.trimEnd().split('\n')));
  const light = lightLocalnet();
  const seen: CommittedTransaction[] = [];
  let compression: Compression | undefined;
  const ledger = Ledger.open({
    dir,
    slotMs: 0,
    accounts: light.accounts,
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
