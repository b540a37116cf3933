// The asset index across restarts: kept in the ledger's store (identical answers after a restart),
// and backfilled from the accounts when a ledger that predates it is opened with it; the asset
// signature index likewise, from the stored transactions' records.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getMetadataAccountDataSerializer, TokenStandard } from '@metaplex-foundation/mpl-token-metadata';
import { publicKey } from '@metaplex-foundation/umi';
import {
  createBurnCheckedInstruction,
  createCloseAccountInstruction,
  createTransferCheckedInstruction,
} from '@solana/spl-token';
import { Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { AssetIndex, AssetSignatures, getAsset } from '../../src/das/index.js';
import { Ledger, parseTransaction } from '../../src/ledger/index.js';
import { decodeBase58, encodeBase58 } from '../../src/zk/base58.js';
import { tempDir } from '../helpers/gateway.js';
import { mintBytes, tokenAccountBytes } from '../helpers/spl-accounts.js';

const TM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
const mint = new PublicKey(new Uint8Array(32).fill(71));

function accounts() {
  const md = getMetadataAccountDataSerializer().serialize({
    updateAuthority: publicKey(mint.toBase58()),
    mint: publicKey(mint.toBase58()),
    name: 'Restart',
    symbol: 'RST',
    uri: '',
    sellerFeeBasisPoints: 100,
    creators: null,
    primarySaleHappened: false,
    isMutable: false,
    editionNonce: 7,
    tokenStandard: TokenStandard.NonFungible,
    collection: null,
    uses: { useMethod: 1, remaining: 3n, total: 5n },
    collectionDetails: null,
    programmableConfig: null,
  });
  const m = mintBytes(1n, 0);
  const pda = PublicKey.findProgramAddressSync(
    [Buffer.from('metadata'), new PublicKey(TM).toBuffer(), mint.toBuffer()],
    new PublicKey(TM),
  )[0];
  const acc = (data: Uint8Array, owner: string) => ({
    lamports: 1_000_000n,
    data,
    owner: decodeBase58(owner),
    executable: false,
    rentEpoch: 0n,
  });
  return [
    { pubkey: new Uint8Array(pda.toBuffer()), account: acc(md, TM) },
    { pubkey: new Uint8Array(mint.toBuffer()), account: acc(m, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA') },
  ];
}

test('kept across restarts, and backfilled for a ledger that predates the index', async () => {
  const dir = tempDir();
  // A ledger without the index first.
  const plain = Ledger.open({ dir, slotMs: 0, accounts: accounts() });
  await plain.close();
  let index: AssetIndex | undefined;
  let ledger = Ledger.open({ dir, slotMs: 0, indexers: [(r) => (index = new AssetIndex(r))] });
  const first = getAsset(index!, mint.toBase58(), {});
  assert.equal(first.interface, 'V1_NFT');
  assert.deepEqual(first.uses, { use_method: 'Multiple', remaining: 3, total: 5 });
  assert.equal(first.mutable, false);
  await ledger.close();
  ledger = Ledger.open({ dir, slotMs: 0, indexers: [(r) => (index = new AssetIndex(r))] });
  try {
    assert.deepEqual(getAsset(index!, mint.toBase58(), {}), first);
  } finally {
    await ledger.close();
  }
});

test("getSignaturesForAsset's index: a ledger's earlier transactions replayed into it once, as the live index records them", async () => {
  const TOKEN = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
  const payer = Keypair.generate();
  const receiver = Keypair.generate();
  const nft = new PublicKey(new Uint8Array(32).fill(72));
  const from = new PublicKey(new Uint8Array(32).fill(73));
  const to = new PublicKey(new Uint8Array(32).fill(74));
  const token = (holder: PublicKey, amount: bigint) => tokenAccountBytes(nft, holder, amount);
  const m = mintBytes(1n, 0);
  const acc = (data: Uint8Array, owner: PublicKey, lamports = 10_000_000n) => ({
    lamports,
    data,
    owner: new Uint8Array(owner.toBuffer()),
    executable: false,
    rentEpoch: 0n,
  });
  const fixtures = [
    { pubkey: new Uint8Array(nft.toBuffer()), account: acc(m, TOKEN) },
    { pubkey: new Uint8Array(from.toBuffer()), account: acc(token(payer.publicKey, 1n), TOKEN) },
    { pubkey: new Uint8Array(to.toBuffer()), account: acc(token(receiver.publicKey, 0n), TOKEN) },
    {
      pubkey: new Uint8Array(payer.publicKey.toBuffer()),
      account: acc(new Uint8Array(0), SystemProgram.programId, 1_000_000_000n),
    },
    {
      pubkey: new Uint8Array(receiver.publicKey.toBuffer()),
      account: acc(new Uint8Array(0), SystemProgram.programId, 1_000_000_000n),
    },
  ];
  const send = (l: Ledger, signer: Keypair, ...ixs: TransactionInstruction[]) => {
    const tx = new Transaction({ feePayer: signer.publicKey, recentBlockhash: l.latestBlockhash().blockhash }).add(
      ...ixs,
    );
    tx.sign(signer);
    return l.send(parseTransaction(tx.serialize()));
  };
  // The history: a transfer, a failed transfer (the sender no longer holds it), the receiver's
  // burn and the close of its emptied account.
  const history = (l: Ledger) => {
    const transfer = send(l, payer, createTransferCheckedInstruction(from, nft, to, payer.publicKey, 1n, 0));
    const failed = send(l, payer, createTransferCheckedInstruction(from, nft, to, payer.publicKey, 1n, 0));
    assert.notEqual(failed.err, null);
    const burn = send(
      l,
      receiver,
      createBurnCheckedInstruction(to, nft, receiver.publicKey, 1n, 0),
      createCloseAccountInstruction(to, receiver.publicKey, receiver.publicKey),
    );
    assert.equal(burn.err, null);
    return [
      [encodeBase58(burn.signature), 'Burn'],
      [encodeBase58(transfer.signature), 'Transfer'],
    ];
  };
  const withIndex = (dir: string, accounts = fixtures) => {
    let index: AssetIndex | undefined;
    let signatures: AssetSignatures | undefined;
    const ledger = Ledger.open({
      dir,
      slotMs: 0,
      accounts,
      indexers: [(r) => (index = new AssetIndex(r))],
      transactionIndexers: [(r) => (signatures = new AssetSignatures(r, () => index))],
    });
    return { ledger, signatures: signatures! };
  };
  const list = (s: AssetSignatures) => s.list(nft.toBase58(), { offset: 0, limit: 10, ascending: false });

  // Live: the index sees each transaction as it commits.
  const live = withIndex(tempDir());
  const expected = history(live.ledger);
  try {
    assert.deepEqual(list(live.signatures), expected);
  } finally {
    await live.ledger.close();
  }
  // Replayed: the same history on a ledger without the index, which is then opened with it.
  const dir = tempDir();
  const plain = Ledger.open({ dir, slotMs: 0, accounts: fixtures });
  plain.airdrop(new Uint8Array(receiver.publicKey.toBuffer()), 1n); // recorded with no transaction
  const before = history(plain);
  await plain.close();
  // Opened without the fixtures, which would write the closed account back.
  let reopened = withIndex(dir, []);
  try {
    assert.deepEqual(
      list(reopened.signatures),
      before,
      'the burn and the transfer, newest first; the failure left out',
    );
    // The closed account's mint came from the record's token balances: it is gone from the state.
    assert.equal(reopened.ledger.getAccount(new Uint8Array(to.toBuffer())), undefined);
  } finally {
    await reopened.ledger.close();
  }
  reopened = withIndex(dir, []);
  try {
    assert.deepEqual(list(reopened.signatures), before, 'replayed once; unchanged at the next open');
  } finally {
    await reopened.ledger.close();
  }
});
