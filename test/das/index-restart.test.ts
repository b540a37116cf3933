// The asset index across restarts: kept in the ledger's store (identical answers after a restart),
// and backfilled from the accounts when a ledger that predates it is opened with it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getMetadataAccountDataSerializer, TokenStandard } from '@metaplex-foundation/mpl-token-metadata';
import { publicKey } from '@metaplex-foundation/umi';
import { MintLayout, MINT_SIZE } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { AssetIndex, getAsset } from '../../src/das/index.js';
import { Ledger } from '../../src/ledger/index.js';
import { decodeBase58 } from '../../src/zk/base58.js';
import { tempDir } from '../helpers/gateway.js';

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
  const m = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: 0,
      mintAuthority: PublicKey.default,
      supply: 1n,
      decimals: 0,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    m,
  );
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
