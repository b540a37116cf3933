// A Token-2022 fungible with extensions (transfer fee, permanent delegate, metadata pointer and
// the token-metadata extension), its bytes built with the SPL serializers: mint_extensions and the
// metadata-extension-only rules (FungibleToken, authorities [], name/symbol/uri from the extension);
// and a Token-2022 fungible made and moved by real transactions, in the DAS lists.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  createAssociatedTokenAccount,
  createMint,
  MetadataPointerLayout,
  mintTo,
  TOKEN_2022_PROGRAM_ID,
  transferChecked,
  MintLayout,
  MINT_SIZE,
  PermanentDelegateLayout,
  TransferFeeConfigLayout,
  TRANSFER_FEE_CONFIG_SIZE,
} from '@solana/spl-token';
import { pack } from '@solana/spl-token-metadata';
import { Keypair, PublicKey } from '@solana/web3.js';
import { parseJsonExact } from '../../src/wire/index.js';
import {
  closeWeb3Websocket,
  postJson,
  startTestGateway,
  tempDir,
  web3Connection,
  type TestGateway,
} from '../helpers/gateway.js';
import { accountFile } from '../sim/helpers.js';

const T22 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const key = (n: number) => new PublicKey(new Uint8Array(32).fill(n));
const mint = key(61);
const authority = key(62);
const delegate = key(63);
let gw: TestGateway;
let dir: string;

function tlv(type: number, value: Uint8Array): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(type, 0);
  head.writeUInt16LE(value.length, 2);
  return Buffer.concat([head, value]);
}

function mintWithExtensions(): Buffer {
  const base = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: 1,
      mintAuthority: authority,
      supply: 168620476682610n,
      decimals: 6,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    base,
  );
  const fee = Buffer.alloc(TRANSFER_FEE_CONFIG_SIZE);
  TransferFeeConfigLayout.encode(
    {
      transferFeeConfigAuthority: authority,
      withdrawWithheldAuthority: PublicKey.default,
      withheldAmount: 5n,
      olderTransferFee: { epoch: 1n, maximumFee: 3906250000000000000n, transferFeeBasisPoints: 10 },
      newerTransferFee: { epoch: 2n, maximumFee: 7n, transferFeeBasisPoints: 20 },
    },
    fee,
  );
  const pointer = Buffer.alloc(64);
  MetadataPointerLayout.encode({ authority, metadataAddress: mint }, pointer);
  const perm = Buffer.alloc(32);
  PermanentDelegateLayout.encode({ delegate }, perm);
  const md = pack({
    updateAuthority: authority,
    mint,
    name: 'PayPal USD',
    symbol: 'PYUSD',
    uri: 'https://token-metadata.invalid/pyusd.json',
    additionalMetadata: [['issuer', 'Paxos']],
  });
  return Buffer.concat([
    base,
    Buffer.alloc(165 - MINT_SIZE),
    Buffer.from([1]),
    tlv(1, fee),
    tlv(12, perm),
    tlv(18, pointer),
    tlv(19, Uint8Array.from(md)),
  ]);
}

before(async () => {
  dir = tempDir();
  const accounts = join(dir, 'accounts');
  mkdirSync(accounts);
  writeFileSync(
    join(accounts, 'mint.json'),
    accountFile(mint.toBase58(), { lamports: 10_000_000n, data: mintWithExtensions(), owner: T22 }),
  );
  gw = await startTestGateway({ accountDir: [accounts] }, {}, { ledger: true });
});
after(async () => {
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a Token-2022 fungible with the metadata extension and others', async () => {
  const res = parseJsonExact(
    (
      await postJson(
        gw.url,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAsset', params: { id: mint.toBase58() } }),
      )
    ).text,
  ) as any;
  const a = res.result;
  assert.equal(a.interface, 'FungibleToken');
  assert.deepEqual(a.authorities, []);
  assert.deepEqual(a.content.metadata, { name: 'PayPal USD', symbol: 'PYUSD' });
  assert.equal(a.content.json_uri, 'https://token-metadata.invalid/pyusd.json');
  assert.equal(a.mutable, true);
  assert.deepEqual(Object.keys(a).slice(-3), ['burnt', 'mint_extensions', 'token_info']);
  assert.deepEqual(a.mint_extensions, {
    transfer_fee_config: {
      transfer_fee_config_authority: authority.toBase58(),
      withdraw_withheld_authority: null,
      withheld_amount: 5,
      older_transfer_fee: { epoch: 1, maximum_fee: 3906250000000000000n, transfer_fee_basis_points: 10 },
      newer_transfer_fee: { epoch: 2, maximum_fee: 7, transfer_fee_basis_points: 20 },
    },
    permanent_delegate: { delegate: delegate.toBase58() },
    metadata_pointer: { metadata_address: mint.toBase58() },
    metadata: {
      update_authority: authority.toBase58(),
      mint: mint.toBase58(),
      name: 'PayPal USD',
      symbol: 'PYUSD',
      uri: 'https://token-metadata.invalid/pyusd.json',
      additional_metadata: [['issuer', 'Paxos']],
    },
  });
  assert.deepEqual(a.token_info, {
    supply: 168620476682610,
    decimals: 6,
    token_program: T22,
    mint_authority: authority.toBase58(),
  });
});

test('Token-2022 fungibles through real transactions: mint, accounts, transfer, in the owner and token-account lists', async () => {
  const conn = web3Connection(gw);
  const rpc = async (method: string, params: unknown) =>
    (parseJsonExact((await postJson(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).text) as any)
      .result;
  try {
    const payer = Keypair.generate();
    const alice = Keypair.generate();
    const bob = Keypair.generate();
    await conn.confirmTransaction(await conn.requestAirdrop(payer.publicKey, 1_000_000_000));
    const coin = await createMint(conn, payer, payer.publicKey, null, 2, undefined, undefined, TOKEN_2022_PROGRAM_ID);
    const ata = (o: Keypair) =>
      createAssociatedTokenAccount(conn, payer, coin, o.publicKey, undefined, TOKEN_2022_PROGRAM_ID);
    const [aliceAta, bobAta] = [await ata(alice), await ata(bob)];
    await mintTo(conn, payer, coin, aliceAta, payer, 10_000n, [], undefined, TOKEN_2022_PROGRAM_ID);
    const account = (address: PublicKey, holder: Keypair, amount: number) => ({
      address: address.toBase58(),
      mint: coin.toBase58(),
      amount,
      owner: holder.publicKey.toBase58(),
      frozen: false,
      delegate: null,
      delegated_amount: 0,
      close_authority: null,
      extensions: null,
    });
    const byMint = async () =>
      (await rpc('getTokenAccounts', { mintAddress: coin.toBase58(), options: { showZeroBalance: true } }))
        .token_accounts;
    const byAddress = (a: { address: string }, b: { address: string }) =>
      Buffer.compare(new PublicKey(a.address).toBuffer(), new PublicKey(b.address).toBuffer());
    assert.deepEqual(await byMint(), [account(aliceAta, alice, 10_000), account(bobAta, bob, 0)].sort(byAddress));
    // A fungible is listed for its holder only with showFungible, as the reference does.
    const holds = async (o: Keypair, showFungible: boolean) =>
      (await rpc('getAssetsByOwner', { ownerAddress: o.publicKey.toBase58(), options: { showFungible } })).items.map(
        (a: { id: string }) => a.id,
      );
    assert.deepEqual(await holds(alice, false), []);
    assert.deepEqual(await holds(alice, true), [coin.toBase58()]);
    assert.deepEqual(await holds(bob, true), []);

    await transferChecked(conn, payer, aliceAta, coin, bobAta, alice, 2_500n, 2, [], undefined, TOKEN_2022_PROGRAM_ID);
    assert.deepEqual(await byMint(), [account(aliceAta, alice, 7_500), account(bobAta, bob, 2_500)].sort(byAddress));
    assert.deepEqual(await holds(bob, true), [coin.toBase58()]);
    const asset = (await rpc('getAsset', { id: coin.toBase58() })) as any;
    assert.deepEqual(
      [asset.interface, asset.token_info.supply, asset.token_info.token_program],
      ['FungibleToken', 10_000, T22],
    );
    const found = await rpc('searchAssets', { ownerAddress: bob.publicKey.toBase58(), tokenType: 'fungible' });
    assert.deepEqual(
      found.items.map((a: { id: string }) => a.id),
      [coin.toBase58()],
    );
    // Bob sends his whole balance back: no longer a holder, his emptied account listed only with showZeroBalance.
    await transferChecked(conn, payer, bobAta, coin, aliceAta, bob, 2_500n, 2, [], undefined, TOKEN_2022_PROGRAM_ID);
    assert.deepEqual(await holds(bob, true), []);
    assert.deepEqual((await rpc('getTokenAccounts', { ownerAddress: bob.publicKey.toBase58() })).token_accounts, []);
  } finally {
    await closeWeb3Websocket(conn);
  }
});
