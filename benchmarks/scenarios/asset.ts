// getAsset through HTTP with auth (a gateway in a child process, autocannon, 50 connections)
// beside getHealth in the same run; and the asset index's update rate in process.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getMetadataAccountDataSerializer, TokenStandard } from '@metaplex-foundation/mpl-token-metadata';
import { publicKey } from '@metaplex-foundation/umi';
import { AccountLayout, ACCOUNT_SIZE, MintLayout, MINT_SIZE } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { AssetIndex } from '../../src/das/index.js';
import { Ledger, type StoredAccount } from '../../src/ledger/index.js';
import { decodeBase58 } from '../../src/zk/base58.js';
import { measure, printTable } from '../lib/load.js';
import { startProcess } from '../lib/processes.js';
import { ROOT as root, BENCH_KEY as KEY, QUIET_GATEWAY_ARGS } from '../lib/paths.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ASSETS = Number(process.env.BENCH_ASSETS ?? 2000);
const TM = new PublicKey('metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s');
const TOKEN = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');

/**
 * A pNFT: its mint, Metadata PDA and the token account holding it, as real account bytes; held by
 * `holder` (default: one owner per asset), in `collection` (default: one per asset).
 */
export function nft(
  i: number,
  holder?: PublicKey,
  collection?: PublicKey,
): { pubkey: PublicKey; owner: PublicKey; data: Uint8Array }[] {
  const seed = (tag: number) => {
    const b = Buffer.alloc(32);
    b.writeUInt32LE(i, 0);
    b[31] = tag;
    return new PublicKey(b);
  };
  const mint = seed(1);
  const mintData = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: 1,
      mintAuthority: seed(2),
      supply: 1n,
      decimals: 0,
      isInitialized: true,
      freezeAuthorityOption: 1,
      freezeAuthority: seed(2),
    },
    mintData,
  );
  const md = getMetadataAccountDataSerializer().serialize({
    updateAuthority: publicKey(seed(3).toBase58()),
    mint: publicKey(mint.toBase58()),
    name: `Bench #${i}`,
    symbol: 'BENCH',
    uri: `https://bench.invalid/${i}.json`,
    sellerFeeBasisPoints: 500,
    creators: [{ address: publicKey(seed(3).toBase58()), verified: true, share: 100 }],
    primarySaleHappened: true,
    isMutable: true,
    editionNonce: 254,
    tokenStandard: TokenStandard.ProgrammableNonFungible,
    collection: { verified: true, key: publicKey((collection ?? seed(4)).toBase58()) },
    uses: null,
    collectionDetails: null,
    programmableConfig: null,
  });
  const ta = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint,
      owner: holder ?? seed(5),
      amount: 1n,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: 2,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    ta,
  );
  const pda = PublicKey.findProgramAddressSync([Buffer.from('metadata'), TM.toBuffer(), mint.toBuffer()], TM)[0];
  return [
    { pubkey: mint, owner: TOKEN, data: mintData },
    { pubkey: pda, owner: TM, data: md },
    { pubkey: seed(6), owner: TOKEN, data: ta },
  ];
}

/** An account record of one of these builders' accounts. */
export function storedAccount(a: { owner: PublicKey; data: Uint8Array }): StoredAccount {
  return {
    lamports: 10_000_000n,
    data: a.data,
    owner: decodeBase58(a.owner.toBase58()),
    executable: false,
    rentEpoch: 0n,
  };
}

/**
 * A fresh in-process ledger with the asset index, and a way to run writes in one LMDB transaction
 * of its store (as a committing transaction does), for timing the index alone.
 */
export function indexLedger(dir: string): { ledger: Ledger; index: AssetIndex; transaction(f: () => void): void } {
  let index: AssetIndex | undefined;
  const ledger = Ledger.open({ dir, slotMs: 0, indexers: [(r) => (index = new AssetIndex(r))] });
  const root = (ledger as unknown as { dbs: { root: { transactionSync(f: () => void): void } } }).dbs.root;
  return { ledger, index: index!, transaction: (f) => root.transactionSync(f) };
}

/** Accounts as `--account-dir` files (solana-test-validator's format). */
export function writeAccountDir(
  dir: string,
  accounts: { pubkey: PublicKey; owner: PublicKey; data: Uint8Array }[],
): void {
  accounts.forEach((a, i) =>
    writeFileSync(
      join(dir, `${i}.json`),
      JSON.stringify({
        pubkey: a.pubkey.toBase58(),
        account: {
          lamports: 10_000_000,
          data: [Buffer.from(a.data).toString('base64'), 'base64'],
          owner: a.owner.toBase58(),
          executable: false,
          rentEpoch: 0,
          space: a.data.length,
        },
      }),
    ),
  );
}

export const assetScenario = {
  name: 'asset',
  describe: `getAsset vs getHealth through HTTP + auth (autocannon, 50 connections, ${DURATION} s), and index updates/s`,
  async run(): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'zkgate-bench-asset-'));
    try {
      const accounts = join(dir, 'accounts');
      mkdirSync(accounts);
      const all = Array.from({ length: ASSETS }, (_, i) => nft(i)).flat();
      writeAccountDir(accounts, all);
      const gw = await startProcess(
        [
          ...(process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []),
          join(root, 'dist/main.js'),
          'start',
          ...['--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--data-dir', join(dir, 'data')],
          ...QUIET_GATEWAY_ARGS,
          ...['--account-dir', accounts],
        ],
        /JSON-RPC\s+(http:\S+)\?api-key=/,
        { timeoutMs: 120_000 },
      );
      const url = `${gw.match[1]!}?api-key=${KEY}`;
      try {
        const id = nft(ASSETS >> 1)[0]!.pubkey.toBase58();
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAsset', params: { id } });
        const check = await (
          await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        ).json();
        if ((check as { result?: { interface?: string } }).result?.interface !== 'ProgrammableNFT')
          throw new Error(`getAsset does not answer the asset: ${JSON.stringify(check)}`);
        const health = await measure('getHealth (auth + envelope)', {
          url,
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' }),
          connections: 50,
          durationSec: DURATION,
        });
        const asset = await measure(`getAsset of an indexed pNFT (${ASSETS} indexed)`, {
          url,
          body,
          connections: 50,
          durationSec: DURATION,
        });
        console.log('\ngetAsset through HTTP + auth, 50 connections');
        printTable([health, asset]);
        console.log(`getAsset / getHealth throughput: ${(asset.rps / health.rps).toFixed(2)}`);
      } finally {
        await gw.stop();
      }

      // Index updates: the same accounts written into a fresh ledger in batches of 1,000 (VM, store
      // and index in one transaction each), then the index's own apply alone.
      const { ledger, index, transaction } = indexLedger(join(dir, 'inproc'));
      try {
        const list = all.map((a) => ({ pubkey: new Uint8Array(a.pubkey.toBuffer()), account: storedAccount(a) }));
        let t = performance.now();
        for (let i = 0; i < list.length; i += 1000) ledger.importAccounts(list.slice(i, i + 1000));
        const withLedger = list.length / ((performance.now() - t) / 1000);
        t = performance.now();
        for (let i = 0; i < list.length; i += 1000)
          transaction(() => {
            for (const a of list.slice(i, i + 1000)) index.apply(a.pubkey, a.account, 1n);
          });
        const indexOnly = list.length / ((performance.now() - t) / 1000);
        console.log(
          `\nindex updates: ${withLedger.toFixed(0)} accounts/s written through the ledger (VM + store + index), ` +
            `${indexOnly.toFixed(0)} accounts/s into the index alone (${list.length} accounts, batches of 1,000)`,
        );
      } finally {
        await ledger.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
