// The DAS query methods over the asset index, called through the unmodified Umi `dasApi` client
// (and raw JSON-RPC for exact answers): an owner of 2,500 Token Metadata NFTs and a fungible,
// loaded with --account-dir, walked completely by page and by cursor; lists by creator,
// collection and authority; batches; real SPL transfers and burns moving assets between owners;
// the reference's pagination errors.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { dasApi } from '@metaplex-foundation/digital-asset-standard-api';
import { createHelius } from 'helius-sdk';
import {
  getEditionAccountDataSerializer,
  getMasterEditionAccountDataSerializer,
  getMetadataAccountDataSerializer,
  TokenStandard,
} from '@metaplex-foundation/mpl-token-metadata';
import { createUmi, publicKey } from '@metaplex-foundation/umi';
import {
  createAssociatedTokenAccount,
  createBurnCheckedInstruction,
  createMint,
  createTransferCheckedInstruction,
  mintTo,
} from '@solana/spl-token';
import { Keypair, PublicKey, sendAndConfirmTransaction, Transaction } from '@solana/web3.js';
import { AssetQueries } from '../../src/das/index.js';
import { parseJsonExact } from '../../src/wire/index.js';
import { decodeBase58, encodeBase58 } from '../../src/zk/base58.js';
import {
  closeWeb3Websocket,
  postJson,
  startTestGateway,
  TEST_KEY,
  tempDir,
  web3Connection,
  type TestGateway,
} from '../helpers/gateway.js';
import { mintBytes, tokenAccountBytes } from '../helpers/spl-accounts.js';
import { accountFile } from '../sim/helpers.js';

const TM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const N = 2500;
const owner = Keypair.generate();
const receiver = Keypair.generate();
const seeded = (label: string, i: number) =>
  encodeBase58(
    Keypair.fromSeed(
      new Uint8Array(32).map((_, j) => (j < 4 ? (i >> (8 * j)) & 0xff : label.charCodeAt(0) + j)),
    ).publicKey.toBytes(),
  );
const nfts = Array.from({ length: N }, (_, i) => seeded('n', i));
const holdings = Array.from({ length: N }, (_, i) => seeded('h', i));
const fungible = seeded('f', 0);
const authority = seeded('a', 0);
const creator = seeded('c', 0);
const collection = seeded('g', 0);
const master = seeded('e', 0);
const prints = [seeded('p', 1), seeded('p', 2)];
const exact = {
  mint: seeded('x', 0),
  holding: seeded('x', 1),
  owner: seeded('x', 2),
  creator: seeded('x', 3),
  collection: seeded('x', 4),
  authority: seeded('x', 5),
};
const pnft = { mint: seeded('x', 6), holding: seeded('x', 7), owner: seeded('x', 8) };
const byBytes = (a: string, b: string) => Buffer.compare(decodeBase58(a), decodeBase58(b));
const ascending = [...nfts].sort(byBytes);
const descending = [...ascending].reverse();

let gw: TestGateway;
let dir: string;
let n = 0;

function metadataPda(mint: string): string {
  return PublicKey.findProgramAddressSync(
    [Buffer.from('metadata'), new PublicKey(TM).toBuffer(), new PublicKey(mint).toBuffer()],
    new PublicKey(TM),
  )[0].toBase58();
}

function editionPda(mint: string): string {
  return PublicKey.findProgramAddressSync(
    [Buffer.from('metadata'), new PublicKey(TM).toBuffer(), new PublicKey(mint).toBuffer(), Buffer.from('edition')],
    new PublicKey(TM),
  )[0].toBase58();
}

const mintData = (supply: bigint, decimals: number) => mintBytes(supply, decimals, new PublicKey(authority));

const tokenAccount = (mint: string, holder: PublicKey, amount: bigint, state = 1) =>
  tokenAccountBytes(new PublicKey(mint), holder, amount, state);

function metadata(
  mint: string,
  i: number,
  standard: TokenStandard,
  over: { creator?: string; verified?: boolean; authority?: string; collection?: string; name?: string } = {},
) {
  return getMetadataAccountDataSerializer().serialize({
    updateAuthority: publicKey(over.authority ?? authority),
    mint: publicKey(mint),
    name: over.name ?? `Query #${i}`,
    symbol: 'QRY',
    uri: '',
    sellerFeeBasisPoints: 500,
    creators: [{ address: publicKey(over.creator ?? creator), verified: i % 2 === 0, share: 100 }],
    primarySaleHappened: false,
    isMutable: true,
    editionNonce: null,
    tokenStandard: standard,
    collection:
      standard === TokenStandard.Fungible
        ? null
        : { verified: over.verified ?? i % 5 === 0, key: publicKey(over.collection ?? collection) },
    uses: null,
    collectionDetails: null,
    programmableConfig: null,
  });
}

before(async () => {
  dir = tempDir();
  const accounts = join(dir, 'accounts');
  mkdirSync(accounts);
  const put = (pubkey: string, data: Uint8Array, program: string) =>
    writeFileSync(join(accounts, `${n++}.json`), accountFile(pubkey, { lamports: 10_000_000n, data, owner: program }));
  for (let i = 0; i < N; i++) {
    put(nfts[i]!, mintData(1n, 0), TOKEN);
    put(metadataPda(nfts[i]!), metadata(nfts[i]!, i, TokenStandard.NonFungible), TM);
    put(holdings[i]!, tokenAccount(nfts[i]!, owner.publicKey, 1n), TOKEN);
  }
  put(fungible, mintData(1_000_000_000n, 6), TOKEN);
  put(metadataPda(fungible), metadata(fungible, 1, TokenStandard.Fungible), TM);
  put(seeded('t', 0), tokenAccount(fungible, owner.publicKey, 5_000_000n), TOKEN);
  // An empty account of the fungible (listed with showZeroBalance).
  put(seeded('z', 0), tokenAccount(fungible, owner.publicKey, 0n), TOKEN);
  // A master edition with two prints, held by the receiver.
  put(master, mintData(1n, 0), TOKEN);
  put(metadataPda(master), metadata(master, 1, TokenStandard.NonFungible), TM);
  put(editionPda(master), getMasterEditionAccountDataSerializer().serialize({ supply: 2n, maxSupply: 10n }), TM);
  prints.forEach((p, k) => {
    put(p, mintData(1n, 0), TOKEN);
    put(metadataPda(p), metadata(p, 1, TokenStandard.NonFungibleEdition), TM);
    put(
      editionPda(p),
      getEditionAccountDataSerializer().serialize({ parent: publicKey(editionPda(master)), edition: BigInt(k + 1) }),
      TM,
    );
  });
  // The receiver's empty account for the first NFT, which a transfer fills.
  put(seeded('r', 0), tokenAccount(ascending[0]!, receiver.publicKey, 0n), TOKEN);
  // One NFT whose owner, creator, collection and authority hold nothing else: each list of them
  // answers exactly one item, compared as whole JSON text.
  const alone = { creator: exact.creator, verified: true, authority: exact.authority, collection: exact.collection };
  put(exact.mint, mintData(1n, 0), TOKEN);
  put(metadataPda(exact.mint), metadata(exact.mint, 0, TokenStandard.NonFungible, { ...alone, name: 'Exact' }), TM);
  put(exact.holding, tokenAccount(exact.mint, new PublicKey(exact.owner), 1n), TOKEN);
  // A programmable NFT: Token Metadata keeps its token account frozen.
  put(pnft.mint, mintData(1n, 0), TOKEN);
  put(
    metadataPda(pnft.mint),
    metadata(pnft.mint, 0, TokenStandard.ProgrammableNonFungible, {
      name: 'Programmable',
      creator: seeded('x', 9),
      authority: seeded('x', 10),
      collection: seeded('x', 11),
    }),
    TM,
  );
  put(pnft.holding, tokenAccount(pnft.mint, new PublicKey(pnft.owner), 1n, 2), TOKEN);
  gw = await startTestGateway({ accountDir: [accounts] }, {}, { ledger: true, dataDir: dir });
});
after(async () => {
  await gw?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const rpc = async (method: string, params: unknown) =>
  parseJsonExact((await postJson(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).text) as {
    result?: any;
    error?: { code: number; message: string };
  };

/** Umi with the unmodified dasApi plugin over a plain JSON-RPC transport to the gateway. */
function umi(options: { heliusCompatibility?: boolean } = {}) {
  const u = createUmi();
  u.rpc = {
    getEndpoint: () => gw.url,
    getCluster: () => 'localnet',
    call: async (method: string, params?: unknown) => {
      const r = await rpc(method, params);
      if (r.error) throw new Error(`${r.error.code}: ${r.error.message}`);
      return r.result;
    },
  } as unknown as typeof u.rpc;
  return u.use(dasApi(options)).rpc as any;
}

const ids = (list: { items: { id: string }[] }) => list.items.map((a) => a.id);

test('getAssetsByOwner: exact answer, key order, items equal to getAsset', async () => {
  const r = (
    await rpc('getAssetsByOwner', {
      ownerAddress: owner.publicKey.toBase58(),
      limit: 2,
      page: 1,
      sortBy: { sortBy: 'id', sortDirection: 'asc' },
    })
  ).result;
  assert.deepEqual(Object.keys(r), ['last_indexed_slot', 'total', 'limit', 'page', 'items']);
  assert.deepEqual([r.total, r.limit, r.page], [2, 2, 1]);
  assert.deepEqual(ids(r), ascending.slice(0, 2));
  for (const item of r.items) {
    const one = (await rpc('getAsset', { id: item.id })).result;
    delete one.last_indexed_slot;
    assert.deepEqual(item, one);
  }
  const asset = r.items[0];
  assert.equal(asset.ownership.owner, owner.publicKey.toBase58());
  assert.equal(asset.interface, 'V1_NFT');
});

test("every method's whole answer, as JSON text with its key order, written from the reference's schema", async () => {
  const text = async (method: string, params: unknown) =>
    (await postJson(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).text;
  const { mint, holding, owner: holder, creator: maker, collection: group, authority: updater } = exact;
  // The reference's Asset (digital_asset_types rpc/asset.rs) in its field order, as a Token
  // Metadata NFT with a verified creator and collection reads, and Helius' token_info after it.
  const asset =
    `{"interface":"V1_NFT","id":"${mint}","content":{"$schema":"https://schema.metaplex.com/nft1.0.json",` +
    `"json_uri":"","files":[],"metadata":{"name":"Exact","symbol":"QRY","token_standard":"NonFungible"},"links":{}},` +
    `"authorities":[{"address":"${updater}","scopes":["full"]}],` +
    `"compression":{"eligible":false,"compressed":false,"data_hash":"","creator_hash":"","asset_hash":"","tree":"","seq":0,"leaf_id":0},` +
    `"grouping":[{"group_key":"collection","group_value":"${group}"}],` +
    `"royalty":{"royalty_model":"creators","target":null,"percent":0.05,"basis_points":500,"primary_sale_happened":false,"locked":false},` +
    `"creators":[{"address":"${maker}","share":100,"verified":true}],` +
    `"ownership":{"frozen":false,"delegated":false,"delegate":null,"ownership_model":"single","owner":"${holder}"},` +
    `"supply":{"print_max_supply":0,"print_current_supply":0,"edition_nonce":null},"mutable":true,"burnt":false,` +
    `"token_info":{"supply":1,"decimals":0,"token_program":"${TOKEN}","mint_authority":"${authority}"}}`;
  const slot = (JSON.parse(await text('getAsset', { id: mint })) as { result: { last_indexed_slot: number } }).result
    .last_indexed_slot;
  const ok = (result: string) => `{"jsonrpc":"2.0","result":${result},"id":1}`;
  const bad = (code: number, message: string) =>
    `{"jsonrpc":"2.0","error":{"code":${code},"message":"${message}"},"id":1}`;
  const head = `"last_indexed_slot":${slot},"total":1,"limit":1000`;
  // AssetList: total, limit, then page (page mode) or cursor (cursor mode), then items.
  const paged = ok(`{${head},"page":1,"items":[${asset}]}`);
  const cursored = ok(`{${head},"cursor":"${mint}","items":[${asset}]}`);
  const cases: [string, unknown, string][] = [
    ['getAsset', { id: mint }, ok(`{"last_indexed_slot":${slot},${asset.slice(1)}`)],
    ['getAssets', { ids: [mint, holder] }, ok(`[${asset},null]`)],
    ['getAssetBatch', [[mint]], ok(`[${asset}]`)],
    ['getAssetsByOwner', { ownerAddress: holder, page: 1 }, paged],
    ['getAssetsByOwner', { ownerAddress: holder }, cursored],
    ['getAssetsByGroup', { groupKey: 'collection', groupValue: group, page: 1 }, paged],
    ['getAssetsByCreator', { creatorAddress: maker, onlyVerified: true, page: 1 }, paged],
    ['getAssetsByAuthority', { authorityAddress: updater, page: 1 }, paged],
    ['searchAssets', { ownerAddress: holder, creatorAddress: maker, page: 1 }, paged],
    [
      'searchAssets',
      { ownerAddress: holder, options: { showGrandTotal: true, showNativeBalance: true } },
      ok(
        `{${head.replace('"limit"', '"grand_total":1,"limit"')},"cursor":"${mint}","items":[${asset}],` +
          `"nativeBalance":{"lamports":0,"price_per_sol":0,"total_price":0}}`,
      ),
    ],
    [
      'getTokenAccounts',
      { ownerAddress: holder },
      ok(
        `{${head},"token_accounts":[{"address":"${holding}","mint":"${mint}","amount":1,"owner":"${holder}",` +
          `"frozen":false,"delegate":null,"delegated_amount":0,"close_authority":null,"extensions":null}],` +
          `"cursor":"${holding}","errors":[]}`,
      ),
    ],
    [
      'getNftEditions',
      { mintAddress: master, limit: 1, page: 2 },
      ok(
        `{"last_indexed_slot":${slot},"total":1,"limit":1,"master_edition_address":"${editionPda(master)}",` +
          `"supply":2,"max_supply":10,"editions":[{"mint_address":"${prints[1]}","edition_address":` +
          `"${editionPda(prints[1]!)}","edition_number":2}],"page":2}`,
      ),
    ],
    [
      'getSignaturesForAsset',
      { id: mint, page: 1 },
      ok(`{"last_indexed_slot":${slot},"total":0,"limit":1000,"page":1,"items":[]}`),
    ],
    [
      'getGrouping',
      { groupKey: 'collection', groupValue: group },
      ok(`{"group_key":"collection","group_name":"${group}","group_size":1}`),
    ],
    ['getGrouping', ['creator', maker], ok(`{"group_key":"creator","group_name":"${maker}","group_size":0}`)],
    ['getAssetProof', { id: mint }, bad(-32000, 'Database Error: RecordNotFound Error: Asset Proof Not Found')],
    ['getAssetProofBatch', { ids: [mint] }, ok(`{"${mint}":null}`)],
    [
      'getAssetsByOwner',
      { ownerAddress: holder, limit: 0 },
      ok(`{"last_indexed_slot":${slot},"total":0,"limit":0,"items":[]}`),
    ],
  ];
  for (const [method, params, expected] of cases) assert.equal(await text(method, params), expected, method);
});

test('2,500 assets walked completely, by page and by cursor (Umi dasApi)', async () => {
  const das = umi();
  const paged: string[] = [];
  for (let page = 1; ; page++) {
    const r = await das.getAssetsByOwner({ owner: owner.publicKey.toBase58(), page, limit: 1000 });
    assert.equal(r.page, page);
    if (r.items.length === 0) break;
    paged.push(...ids(r));
  }
  assert.deepEqual(paged, descending, 'pages: every asset once, by id descending (the default)');
  const cursored: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const r = await das.getAssetsByOwner({
      owner: owner.publicKey.toBase58(),
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    if (r.items.length === 0) {
      assert.equal(r.cursor, undefined);
      break;
    }
    assert.equal(r.cursor, r.items[r.items.length - 1].id);
    cursored.push(...ids(r));
    cursor = r.cursor;
  }
  assert.deepEqual(cursored, descending);
  const asc = await das.getAssetsByOwner({
    owner: owner.publicKey.toBase58(),
    limit: 10,
    sortBy: { sortBy: 'id', sortDirection: 'asc' },
    after: ascending[99],
  });
  assert.deepEqual(ids(asc), ascending.slice(100, 110), 'after: the ids past the bound, ascending');
  const between = await das.getAssetsByOwner({
    owner: owner.publicKey.toBase58(),
    limit: 1000,
    sortBy: { sortBy: 'id', sortDirection: 'asc' },
    after: ascending[9],
    before: ascending[20],
  });
  assert.deepEqual(ids(between), ascending.slice(10, 20));
});

test('fungibles with showFungible; creator, collection and authority lists with their verification', async () => {
  const das = umi();
  const total = async (method: string, params: Record<string, unknown>) =>
    (await rpc(method, { ...params, limit: 1, options: { ...(params.options as object), showGrandTotal: true } }))
      .result.grand_total;
  const o = owner.publicKey.toBase58();
  assert.equal(await total('getAssetsByOwner', { ownerAddress: o }), N);
  assert.equal(await total('getAssetsByOwner', { ownerAddress: o, options: { showFungible: true } }), N + 1);
  // Beside the 2,500 NFTs: the fungible, the master edition and its two prints.
  assert.equal(await total('getAssetsByCreator', { creatorAddress: creator }), N + 4);
  assert.equal(await total('getAssetsByCreator', { creatorAddress: creator, onlyVerified: true }), N / 2);
  assert.equal(await total('getAssetsByGroup', { groupKey: 'collection', groupValue: collection }), N / 5);
  assert.equal(
    await total('getAssetsByGroup', {
      groupKey: 'collection',
      groupValue: collection,
      options: { showUnverifiedCollections: true },
    }),
    N + 3,
  );
  assert.equal(await total('getAssetsByAuthority', { authorityAddress: authority }), N + 4);
  const verified = await das.getAssetsByCreator({ creator, onlyVerified: true, limit: 5, page: 1 });
  for (const a of verified.items) assert.equal(a.creators[0].verified, true);
  const group = await das.getAssetsByGroup({ groupKey: 'collection', groupValue: collection, limit: 3, page: 2 });
  assert.equal(group.items.length, 3);
  for (const a of group.items) assert.deepEqual(a.grouping, [{ group_key: 'collection', group_value: collection }]);
  const none = (await rpc('getAssetsByGroup', { groupKey: 'other', groupValue: collection })).result;
  assert.deepEqual([none.total, none.items], [0, []]);
});

test('a programmable NFT, its token account frozen as Token Metadata keeps it: listed for its holder, found by frozen', async () => {
  const held = (await rpc('getAssetsByOwner', { ownerAddress: pnft.owner })).result.items;
  assert.deepEqual(
    held.map((a: any) => [a.id, a.interface, a.ownership.frozen, a.ownership.owner]),
    [[pnft.mint, 'ProgrammableNFT', true, pnft.owner]],
  );
  assert.deepEqual(held[0], (await rpc('getAssets', { ids: [pnft.mint] })).result[0]);
  const frozen = async (v: boolean) => ids((await rpc('searchAssets', { ownerAddress: pnft.owner, frozen: v })).result);
  assert.deepEqual([await frozen(true), await frozen(false)], [[pnft.mint], []]);
  const accounts = (await rpc('getTokenAccounts', { ownerAddress: pnft.owner })).result.token_accounts;
  assert.deepEqual(
    accounts.map((t: any) => [t.address, t.frozen, t.amount]),
    [[pnft.holding, true, 1]],
  );
});

test('getAssets / getAssetBatch: in request order, null for what is not there', async () => {
  const missing = seeded('m', 7);
  const r = (await rpc('getAssets', { ids: [nfts[3], missing, fungible] })).result;
  const batch = (await rpc('getAssetBatch', { ids: [nfts[3], missing, fungible] })).result;
  assert.deepEqual(r, batch);
  assert.equal(r[1], null);
  const one = (await rpc('getAsset', { id: nfts[3] })).result;
  delete one.last_indexed_slot;
  assert.deepEqual(r[0], one);
  assert.equal(r[2].interface, 'FungibleToken');
  const viaUmi = await umi().getAssets([nfts[3]!]);
  assert.deepEqual(viaUmi, [one]);
});

test('a real transfer and a real burn move the owner lists at once', async () => {
  const conn = web3Connection(gw);
  try {
    await conn.confirmTransaction(await conn.requestAirdrop(owner.publicKey, 1_000_000_000));
    const moved = ascending[0]!;
    const tx = new Transaction().add(
      createTransferCheckedInstruction(
        new PublicKey(holdings[nfts.indexOf(moved)]!),
        new PublicKey(moved),
        new PublicKey(seeded('r', 0)),
        owner.publicKey,
        1n,
        0,
      ),
    );
    const transferSig = await sendAndConfirmTransaction(conn, tx, [owner]);
    const theirs = (await rpc('getAssetsByOwner', { ownerAddress: receiver.publicKey.toBase58() })).result;
    assert.deepEqual(ids(theirs), [moved]);
    assert.equal(theirs.items[0].ownership.owner, receiver.publicKey.toBase58());
    const burnt = ascending[1]!;
    const creatorTotal = async () =>
      (
        await rpc('getAssetsByCreator', {
          creatorAddress: creator,
          limit: 1,
          page: 1,
          options: { showGrandTotal: true },
        })
      ).result.grand_total;
    const creatorBefore = await creatorTotal();
    const burnSig = await sendAndConfirmTransaction(
      conn,
      new Transaction().add(
        createBurnCheckedInstruction(
          new PublicKey(holdings[nfts.indexOf(burnt)]!),
          new PublicKey(burnt),
          owner.publicKey,
          1n,
          0,
        ),
      ),
      [owner],
    );
    const mine = (
      await rpc('getAssetsByOwner', {
        ownerAddress: owner.publicKey.toBase58(),
        limit: 3,
        sortBy: { sortBy: 'id', sortDirection: 'asc' },
        options: { showGrandTotal: true },
      })
    ).result;
    assert.equal(mine.grand_total, N - 2);
    // Burnt down to no supply: out of its creator's list too (the reference lists supply > 0 only).
    assert.equal(await creatorTotal(), creatorBefore - 1);
    assert.deepEqual(ids(mine), ascending.slice(2, 5));
    // Each asset's transactions, with what they did to it.
    const sigs = (await rpc('getSignaturesForAsset', { id: moved })).result;
    assert.deepEqual(sigs, {
      last_indexed_slot: sigs.last_indexed_slot,
      total: 1,
      limit: 1000,
      items: [[transferSig, 'Transfer']],
    });
    assert.deepEqual((await umi().getAssetSignatures({ assetId: burnt })).items, [[burnSig, 'Burn']]);
    assert.deepEqual((await rpc('getAssetSignatures', { id: ascending[3] })).result.items, []);
    assert.deepEqual((await rpc('getAssetSignatures', { tree: moved })).error, {
      code: -32000,
      message: "Validation Error: Must provide either 'id' or both 'tree' and 'leafIndex'",
    });
  } finally {
    await closeWeb3Websocket(conn);
  }
});

test('a real mint: the new NFT is listed for its holder with its transactions, its metadata written beside it', async () => {
  const conn = web3Connection(gw);
  try {
    const payer = Keypair.generate();
    const holder = Keypair.generate();
    await conn.confirmTransaction(await conn.requestAirdrop(payer.publicKey, 1_000_000_000));
    const mintKey = Keypair.generate();
    const mint = await createMint(conn, payer, new PublicKey(authority), null, 0, mintKey);
    // Token Metadata's program is in no registry package (docs/methods.md): its account is written
    // as the program would leave it, before the token is minted.
    const set = await rpc('surfnet_setAccount', [
      metadataPda(mint.toBase58()),
      {
        lamports: 10_000_000,
        data: Buffer.from(metadata(mint.toBase58(), 0, TokenStandard.NonFungible, { name: 'Minted' })).toString('hex'),
        owner: TM,
        executable: false,
        rentEpoch: 0,
      },
    ]);
    assert.ok(!set.error, JSON.stringify(set.error));
    const ata = await createAssociatedTokenAccount(conn, payer, mint, holder.publicKey);
    assert.deepEqual((await rpc('getAssetsByOwner', { ownerAddress: holder.publicKey.toBase58() })).result.items, []);
    // The mint authority is the fixtures' `authority`, a seeded keypair.
    const mintAuthority = Keypair.fromSeed(new Uint8Array(32).map((_, j) => (j < 4 ? 0 : 'a'.charCodeAt(0) + j)));
    assert.equal(mintAuthority.publicKey.toBase58(), authority);
    const minted = await mintTo(conn, payer, mint, ata, mintAuthority, 1);
    const held = (await rpc('getAssetsByOwner', { ownerAddress: holder.publicKey.toBase58() })).result;
    assert.deepEqual(ids(held), [mint.toBase58()]);
    assert.equal(held.items[0].content.metadata.name, 'Minted');
    assert.equal(held.items[0].token_info.supply, 1);
    assert.deepEqual(
      (await rpc('getTokenAccounts', { ownerAddress: holder.publicKey.toBase58() })).result.token_accounts.map(
        (t: { address: string; amount: number }) => [t.address, t.amount],
      ),
      [[ata.toBase58(), 1]],
    );
    const history = (await rpc('getSignaturesForAsset', { id: mint.toBase58(), sortDirection: 'asc' })).result.items;
    assert.deepEqual(
      history.map(([, what]: [string, string]) => what),
      ['InitializeMint', 'Unknown', 'MintTo'],
      'created, its account opened through the associated-token program, minted',
    );
    assert.equal(history[2][0], minted);
    // The newest asset: first by creation, newest first, in its creator's list and among all assets;
    // last oldest first.
    const byCreation = (sortDirection: string, params: Record<string, unknown>, method = 'getAssetsByCreator') =>
      rpc(method, { ...params, sortBy: { sortBy: 'created', sortDirection }, page: 1, limit: 1000 });
    const byCreator = await byCreation('desc', { creatorAddress: creator });
    assert.equal(byCreator.result.items[0].id, mint.toBase58());
    const oldestFirst = await byCreation('asc', { creatorAddress: creator });
    assert.ok(oldestFirst.result, JSON.stringify(oldestFirst.error));
    assert.equal(oldestFirst.result.items.length, 1000);
    assert.ok(!ids(oldestFirst.result).includes(mint.toBase58()));
    const newest = await byCreation('desc', {}, 'searchAssets');
    assert.ok(newest.result, JSON.stringify(newest.error));
    assert.deepEqual(ids(newest.result).slice(0, 1), [mint.toBase58()]);
    // Keysets and cursors are the history's own signatures.
    const [created, opened] = [history[0][0], history[1][0]];
    const sigs = async (params: Record<string, unknown>) =>
      (await rpc('getSignaturesForAsset', { id: mint.toBase58(), ...params })).result.items.map(
        ([sig]: [string, string]) => sig,
      );
    const walked: string[] = [];
    for (let cursor: string | undefined; ;) {
      const page = await sigs({ limit: 1, ...(cursor ? { cursor } : {}) });
      if (page.length === 0) break;
      walked.push(...page);
      cursor = page[0];
    }
    assert.deepEqual(walked, [minted, opened, created], 'by cursor, newest first');
    assert.deepEqual(await sigs({ limit: 2, sortDirection: 'asc', cursor: created }), [opened, minted]);
    assert.deepEqual(await sigs({ before: minted }), [opened, created]);
    assert.deepEqual(await sigs({ after: created, sortDirection: 'asc' }), [opened, minted]);
    assert.deepEqual(await sigs({ before: minted, after: created }), [opened]);
    // The same keyset through Umi's unmodified client.
    const viaUmi = await umi().getAssetSignatures({ assetId: mint.toBase58(), before: minted });
    assert.deepEqual(
      viaUmi.items.map(([sig]: [string, string]) => sig),
      [opened, created],
    );
    assert.equal(viaUmi.before, minted);
    const echoed = (await rpc('getSignaturesForAsset', { id: mint.toBase58(), before: minted })).result;
    assert.deepEqual(Object.keys(echoed), ['last_indexed_slot', 'total', 'limit', 'before', 'items']);
    assert.equal(echoed.before, minted);
    // A signature this asset's history does not hold: nothing is older than an unknown point.
    assert.deepEqual(await sigs({ before: encodeBase58(new Uint8Array(64).fill(9)) }), []);
    assert.deepEqual((await rpc('getSignaturesForAsset', { id: mint.toBase58(), before: mint.toBase58() })).error, {
      code: -32000,
      message: `Validation Error: Invalid signature ${mint.toBase58()}`,
    });
    assert.deepEqual((await rpc('getSignaturesForAsset', { id: mint.toBase58(), page: 1, cursor: minted })).error, {
      code: -32000,
      message: 'Pagination Error. Only one pagination parameter supported per query.',
    });
  } finally {
    await closeWeb3Websocket(conn);
  }
});

test("the reference's errors: pagination, pubkeys, sorting, proofs of uncompressed assets", async () => {
  const o = owner.publicKey.toBase58();
  const err = async (method: string, params: unknown) => (await rpc(method, params)).error;
  assert.deepEqual(await err('getAssetsByOwner', { ownerAddress: o, limit: 1001 }), {
    code: -32000,
    message: 'Pagination Error. Limit should not be greater than 1000.',
  });
  assert.deepEqual(await err('getAssetsByOwner', { ownerAddress: o, page: 0 }), {
    code: -32000,
    message: 'Pagination Error. No Pagination Method Selected',
  });
  assert.deepEqual(await err('getAssetsByOwner', { ownerAddress: o, page: 1, cursor: nfts[0] }), {
    code: -32000,
    message: 'Pagination Error. Only one pagination parameter supported per query.',
  });
  assert.deepEqual(await err('getAssetsByOwner', { ownerAddress: 'not-base58!' }), {
    code: -32000,
    message: 'Pubkey Validation Err: not-base58! is invalid',
  });
  assert.deepEqual(await err('getAssetsByOwner', { ownerAddress: o, cursor: 'zz0' }), {
    code: -32000,
    message: 'Cursor Validation Err: zz0 is invalid',
  });
  const sorting = 'Pagination Sorting Error. Only sorting based on id is supported for this pagination option.';
  assert.deepEqual(await err('getAssetsByOwner', { ownerAddress: o, sortBy: { sortBy: 'created' } }), {
    code: -32000,
    message: sorting,
  });
  assert.deepEqual(await err('getAssetsByOwner', { ownerAddress: o, sortBy: { sortBy: 'updated' }, after: nfts[0] }), {
    code: -32000,
    message: sorting,
  });
  const unknownSort = await err('getAssetsByOwner', { ownerAddress: o, sortBy: { sortBy: 'price' } });
  assert.equal(unknownSort?.code, -32602);
  assert.match(
    unknownSort!.message,
    /`params\.sortBy\.sortBy`: expected one of "id", "created", "updated", "recent_action", "none"/,
  );
  assert.equal((await err('getAssetsByOwner', { ownerAddress: o, bogus: 1 }))?.code, -32602);
  assert.deepEqual(await err('getAssets', { ids: Array(1001).fill(nfts[0]) }), {
    code: -32000,
    message: 'Batch Size Error. Batch size should not be greater than 1000.',
  });
  assert.deepEqual(await err('getAssetProof', { id: nfts[5] }), {
    code: -32000,
    message: 'Database Error: RecordNotFound Error: Asset Proof Not Found',
  });
  assert.deepEqual((await rpc('getAssetProofs', { ids: [nfts[5]] })).result, { [nfts[5]!]: null });
  // Sorting by slot works with pages.
  const created = (
    await rpc('getAssetsByOwner', {
      ownerAddress: o,
      page: 1,
      limit: 4,
      sortBy: { sortBy: 'created', sortDirection: 'asc' },
    })
  ).result;
  assert.equal(created.items.length, 4);
  // Positional params, in the reference's order.
  const positional = (await rpc('getAssetsByOwner', [o, { sortBy: 'id', sortDirection: 'asc' }, 2, 1])).result;
  assert.deepEqual(ids(positional), ascending.slice(2, 4));
});

test('getTokenAccounts by owner or mint, zero balances with showZeroBalance; getNftEditions', async () => {
  const funded = seeded('t', 0);
  const empty = seeded('z', 0);
  const o = owner.publicKey.toBase58();
  const account = (address: string, amount: number) => ({
    address,
    mint: fungible,
    amount,
    owner: o,
    frozen: false,
    delegate: null,
    delegated_amount: 0,
    close_authority: null,
    extensions: null,
  });
  const byMint = (await rpc('getTokenAccounts', { mintAddress: fungible })).result;
  assert.deepEqual(byMint, {
    last_indexed_slot: byMint.last_indexed_slot,
    total: 1,
    limit: 1000,
    token_accounts: [account(funded, 5_000_000)],
    cursor: funded,
    errors: [],
  });
  assert.deepEqual(Object.keys(byMint), ['last_indexed_slot', 'total', 'limit', 'token_accounts', 'cursor', 'errors']);
  const both = (
    await rpc('getTokenAccounts', { mint: fungible, owner: o, options: { showZeroBalance: true }, page: 1 })
  ).result;
  assert.deepEqual(
    both.token_accounts,
    [account(funded, 5_000_000), account(empty, 0)].sort((a, b) => byBytes(a.address, b.address)),
  );
  assert.equal(both.cursor, null, 'page mode: no cursor');
  // The owner's accounts: one per NFT still held, the fungible's; walked by cursor, 1,000 at a time.
  const seen: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const r = (await rpc('getTokenAccounts', { ownerAddress: o, limit: 1000, ...(cursor ? { cursor } : {}) })).result;
    if (r.token_accounts.length === 0) break;
    seen.push(...r.token_accounts.map((t: { address: string }) => t.address));
    cursor = r.cursor;
  }
  assert.equal(seen.length, N - 2 + 1, 'the held NFTs (two moved or burnt) and the fungible');
  assert.deepEqual(seen, [...seen].sort(byBytes));
  assert.deepEqual((await rpc('getTokenAccounts', {})).error, {
    code: -32000,
    message: "Database Error: Custom Error: Either 'ownerAddress' or 'mintAddress' must be provided",
  });

  const editions = (await rpc('getNftEditions', { mintAddress: master })).result;
  assert.deepEqual(editions, {
    last_indexed_slot: editions.last_indexed_slot,
    total: 2,
    limit: 1000,
    master_edition_address: editionPda(master),
    supply: 2,
    max_supply: 10,
    editions: prints.map((p, k) => ({ mint_address: p, edition_address: editionPda(p), edition_number: k + 1 })),
  });
  const viaUmi = await umi().getNftEditions({ mintAddress: master, page: 2, limit: 1 });
  assert.equal(viaUmi.page, 2);
  assert.deepEqual(viaUmi.editions, [
    { edition_address: editionPda(prints[1]!), edition_number: 2, mint_address: prints[1] },
  ]);
  // Past the last page: an empty list, which Umi's client reads (it maps `editions` unconditionally).
  assert.deepEqual((await umi().getNftEditions({ mintAddress: master, page: 3, limit: 1 })).editions, []);
  assert.deepEqual((await rpc('getNftEditions', { mintAddress: nfts[5] })).error, {
    code: -32000,
    message: 'Database Error: RecordNotFound Error: Master Edition not found',
  });
});

test('searchAssets: filters with all / any, negate, token types, names; the reference’s rules', async () => {
  const o = owner.publicKey.toBase58();
  const held = new Set(nfts.filter((id) => id !== ascending[0] && id !== ascending[1]));
  const verifiedHeld = nfts.filter((id, i) => i % 2 === 0 && held.has(id));
  const r = (
    await rpc('searchAssets', {
      ownerAddress: o,
      creatorAddress: creator,
      creatorVerified: true,
      limit: 1000,
      page: 1,
      options: { showGrandTotal: true },
    })
  ).result;
  assert.equal(r.grand_total, verifiedHeld.length);
  assert.deepEqual(new Set(ids(r)), new Set(verifiedHeld.filter((id) => ids(r).includes(id))));
  for (const a of r.items) assert.deepEqual([a.ownership.owner, a.creators[0].verified], [o, true]);

  const group = (await rpc('searchAssets', { grouping: ['collection', collection], limit: 5, page: 1 })).result;
  assert.equal(group.items.length, 5);

  const any = (
    await rpc('searchAssets', {
      conditionType: 'any',
      supplyMint: nfts[7],
      ownerAddress: receiver.publicKey.toBase58(),
      limit: 1000,
      page: 1,
    })
  ).result;
  assert.deepEqual(new Set(ids(any)), new Set([nfts[7], ascending[0]]));

  const negated = (await rpc('searchAssets', { negate: true, ownerAddress: o, limit: 1000, page: 1 })).result;
  assert.ok(ids(negated).includes(ascending[0]!), 'the asset moved away is among those not held');
  for (const a of negated.items) assert.ok(a.ownership.owner !== o || a.ownership.ownership_model !== 'single');

  const fungibles = (await rpc('searchAssets', { ownerAddress: o, tokenType: 'fungible', page: 1 })).result;
  assert.deepEqual(ids(fungibles), [fungible]);
  // supply: a u64, as a number or (beyond 2^53) a decimal string.
  const bySupply = async (supply: unknown) =>
    ids((await rpc('searchAssets', { ownerAddress: o, tokenType: 'fungible', supply, page: 1 })).result);
  assert.deepEqual(await bySupply('1000000000'), [fungible]);
  assert.deepEqual(await bySupply(1_000_000_000), [fungible]);
  assert.deepEqual(await bySupply('18446744073709551615'), []);
  assert.equal((await rpc('searchAssets', { supply: '18446744073709551616' })).error?.code, -32602);
  const named = (await rpc('searchAssets', { ownerAddress: receiver.publicKey.toBase58(), name: 'Query #', page: 1 }))
    .result;
  assert.deepEqual(ids(named), [ascending[0]]);
  const viaUmi = await umi().searchAssets({ owner: o, creator, creatorVerified: true, limit: 3, page: 1 });
  assert.equal(viaUmi.items.length, 3);

  assert.deepEqual((await rpc('searchAssets', { tokenType: 'all' })).error, {
    code: -32000,
    message: 'Database Error: Custom Error: Must provide `ownerAddress` when using `tokenType` field',
  });
  assert.deepEqual((await rpc('searchAssets', { name: 'x' })).error, {
    code: -32000,
    message: 'Validation Error: Owner address must be provided in order to search assets by name',
  });
  assert.equal((await rpc('searchAssets', { interface: 'Spaceship' })).error?.code, -32602);
});

test('forwarding: every DAS method goes verbatim to a DAS upstream (a second zkgate), the caller’s key never sent', async () => {
  const fwd = await startTestGateway({ dasUpstream: gw.url, apiKeys: ['das-forward-key'] });
  try {
    const o = owner.publicKey.toBase58();
    const calls: [string, unknown][] = [
      ['getAssets', { ids: [nfts[9], nfts[10]] }],
      ['getAssetBatch', [[nfts[9]]]],
      ['getAssetsByOwner', { ownerAddress: o, limit: 3, page: 2 }],
      ['getAssetsByGroup', { groupKey: 'collection', groupValue: collection, limit: 2, page: 1 }],
      ['getAssetsByCreator', { creatorAddress: creator, onlyVerified: true, limit: 2, page: 1 }],
      ['getAssetsByAuthority', { authorityAddress: authority, limit: 2, page: 1 }],
      ['searchAssets', { ownerAddress: o, limit: 2, page: 1 }],
      ['getTokenAccounts', { mintAddress: fungible }],
      ['getNftEditions', { mintAddress: master }],
      ['getSignaturesForAsset', { id: nfts[9] }],
      ['getAssetSignatures', { id: nfts[9] }],
      ['getAssetProof', { id: nfts[9] }],
      ['getAssetProofs', { ids: [nfts[9]] }],
      ['getAssetProofBatch', { ids: [nfts[9]] }],
      ['getGrouping', { groupKey: 'collection', groupValue: collection }],
      ['getAssetsByOwner', { ownerAddress: o, limit: 1001 }],
    ];
    const strip = (r: any) => {
      const v = r.result;
      if (v && typeof v === 'object' && !Array.isArray(v) && 'last_indexed_slot' in v)
        return { ...v, last_indexed_slot: 0 };
      return r.result ?? r.error;
    };
    for (const [method, params] of calls) {
      const via = parseJsonExact(
        (
          await postJson(
            `${fwd.base}?api-key=das-forward-key`,
            JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
          )
        ).text,
      ) as any;
      assert.deepEqual(strip(via), strip(await rpc(method, params)), method);
    }
    assert.ok(
      !gw.logs.some((l) => l.includes(fwd.gateway.keys.keys.keyIds[0]!)),
      "the caller's key never reaches the upstream",
    );
  } finally {
    await fwd.stop();
  }
});

test("the unmodified Umi dasApi calls every method, with its own names and in Helius' compatibility mode", async () => {
  const o = owner.publicKey.toBase58();
  const strip = (v: any) => (v && !Array.isArray(v) && typeof v === 'object' ? { ...v, last_indexed_slot: 0 } : v);
  for (const heliusCompatibility of [false, true]) {
    const das = umi({ heliusCompatibility });
    const cases: [string, () => Promise<unknown>, unknown][] = [
      ['getAsset', () => das.getAsset({ assetId: exact.mint }), { id: exact.mint, options: {} }],
      ['getAssets', () => das.getAssets([exact.mint, nfts[11]]), { ids: [exact.mint, nfts[11]] }],
      ['getAssetProofs', () => das.getAssetProofs([exact.mint]), { ids: [exact.mint] }],
      [
        'getAssetsByAuthority',
        () => das.getAssetsByAuthority({ authority: exact.authority, page: 1 }),
        { authorityAddress: exact.authority, page: 1 },
      ],
      [
        'getAssetsByCreator',
        () => das.getAssetsByCreator({ creator: exact.creator, onlyVerified: true, limit: 5 }),
        { creatorAddress: exact.creator, onlyVerified: true, limit: 5 },
      ],
      [
        'getAssetsByGroup',
        () => das.getAssetsByGroup({ groupKey: 'collection', groupValue: exact.collection, page: 1 }),
        { groupKey: 'collection', groupValue: exact.collection, page: 1 },
      ],
      [
        'getGrouping',
        () => das.getGrouping({ groupKey: 'collection', groupValue: collection }),
        { groupKey: 'collection', groupValue: collection },
      ],
      [
        'getAssetsByOwner',
        () => das.getAssetsByOwner({ owner: exact.owner, sortBy: { sortBy: 'id', sortDirection: 'asc' } }),
        { ownerAddress: exact.owner, sortBy: { sortBy: 'id', sortDirection: 'asc' } },
      ],
      [
        'searchAssets',
        () => das.searchAssets({ owner: o, creator, creatorVerified: true, limit: 3, page: 2 }),
        { ownerAddress: o, creatorAddress: creator, creatorVerified: true, limit: 3, page: 2 },
      ],
      [
        'getAssetSignatures',
        () => das.getAssetSignatures({ assetId: ascending[0], page: 1 }),
        { id: ascending[0], page: 1 },
      ],
      [
        'getNftEditions',
        () => das.getNftEditions({ mintAddress: master, limit: 1 }),
        { mintAddress: master, limit: 1 },
      ],
      [
        'getTokenAccounts',
        () => das.getTokenAccounts({ ownerAddress: exact.owner, mintAddress: exact.mint }),
        { ownerAddress: exact.owner, mintAddress: exact.mint },
      ],
    ];
    for (const [method, call, params] of cases)
      assert.deepEqual(
        strip(await call()),
        strip((await rpc(method, params)).result),
        `${method} ${heliusCompatibility}`,
      );
    await assert.rejects(das.getAssetProof(exact.mint), /Asset Proof Not Found/);
  }
  // getGrouping counts what getAssetsByGroup lists: the collection's verified members.
  const size = (await rpc('getGrouping', ['collection', collection])).result.group_size;
  const listed = await rpc('getAssetsByGroup', {
    groupKey: 'collection',
    groupValue: collection,
    limit: 1,
    options: { showGrandTotal: true },
  });
  assert.equal(size, listed.result.grand_total);
  assert.ok(size >= N / 5);
});

test('the unmodified helius-sdk calls every method and reads the same answers', async () => {
  const helius = createHelius({ apiKey: TEST_KEY, baseUrl: gw.base }) as any;
  const o = owner.publicKey.toBase58();
  const same = async (method: string, params: unknown, got: unknown) => {
    const plain = JSON.parse(JSON.stringify(got, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));
    const direct = (await rpc(method, params)).result;
    const strip = (v: any) => (v && !Array.isArray(v) && typeof v === 'object' ? { ...v, last_indexed_slot: 0 } : v);
    assert.deepEqual(strip(plain), strip(direct), method);
  };
  const cases: [string, unknown][] = [
    ['getAsset', { id: nfts[11] }],
    ['getAssetBatch', { ids: [nfts[11], nfts[12]] }],
    ['getAssetsByOwner', { ownerAddress: o, page: 1, limit: 3 }],
    ['getAssetsByGroup', { groupKey: 'collection', groupValue: collection, page: 1, limit: 2 }],
    ['getAssetsByCreator', { creatorAddress: creator, page: 1, limit: 2 }],
    ['getAssetsByAuthority', { authorityAddress: authority, page: 1, limit: 2 }],
    ['searchAssets', { ownerAddress: o, tokenType: 'fungible', page: 1 }],
    ['getTokenAccounts', { owner: o, mint: fungible }],
    ['getNftEditions', { mint: master, page: 1, limit: 2 }],
    ['getSignaturesForAsset', { id: ascending[0], page: 1 }],
    ['getAssetProofBatch', { ids: [nfts[11]] }],
  ];
  for (const [method, params] of cases) await same(method, params, await helius[method](params));
  await assert.rejects(helius.getAssetProof({ id: nfts[11] }), /Asset Proof Not Found/);
});

test('a metadata update and a collection verification move the asset between lists at once', async () => {
  const id = nfts[3]!; // unverified creator, unverified collection
  const newCreator = seeded('c', 1);
  const grand = async (method: string, params: Record<string, unknown>) =>
    (await rpc(method, { ...params, limit: 1, page: 1, options: { showGrandTotal: true } })).result.grand_total;
  const group = { groupKey: 'collection', groupValue: collection };
  const [creatorBefore, groupBefore] = [
    await grand('getAssetsByCreator', { creatorAddress: creator }),
    await grand('getAssetsByGroup', group),
  ];
  const data = Buffer.from(
    metadata(id, 3, TokenStandard.NonFungible, { creator: newCreator, verified: true }),
  ).toString('hex');
  const set = await rpc('surfnet_setAccount', [
    metadataPda(id),
    { lamports: 10_000_000, data, owner: TM, executable: false, rentEpoch: 0 },
  ]);
  assert.ok(!set.error, JSON.stringify(set.error));
  assert.deepEqual(ids((await rpc('getAssetsByCreator', { creatorAddress: newCreator })).result), [id]);
  assert.equal(await grand('getAssetsByCreator', { creatorAddress: creator }), creatorBefore - 1);
  assert.equal(await grand('getAssetsByGroup', group), groupBefore + 1);
  assert.ok(ids((await rpc('getAssetsByGroup', { ...group, limit: 1000, page: 1 })).result).includes(id));
});

test('no call scans without bound: past its budget a query is refused, naming what narrows it', () => {
  const queries = new AssetQueries(gw.gateway.chain!.assets, () => ({}), undefined, { list: 1000, search: 100 });
  assert.throws(() => queries.search({ conditionType: 'any', burnt: true }, { page: 1, options: {} }), {
    kind: 'asset_query',
    message: /^Search Error: this query would examine more than 100 assets; narrow it \(ownerAddress/,
  });
  assert.throws(() => queries.list('owner', owner.publicKey.toBase58(), { page: 2, limit: 1000, options: {} }), {
    kind: 'asset_query',
    message: 'Pagination Error: this page would examine more than 1000 entries; page by cursor (sortBy id) instead',
  });
  // Within the budget: answered.
  assert.equal(
    (queries.list('owner', owner.publicKey.toBase58(), { page: 1, limit: 10, options: {} }).items as unknown[]).length,
    10,
  );
});

test("showNativeBalance: the owner's lamports (Helius' nativeBalance)", async () => {
  const o = owner.publicKey.toBase58();
  const balance = (await rpc('getBalance', [o])).result.value;
  assert.ok(balance > 0, 'the transfer test funded the owner');
  const expected = { lamports: balance, price_per_sol: 0, total_price: 0 };
  const r = (
    await rpc('getAssetsByOwner', { ownerAddress: o, limit: 1, page: 1, options: { showNativeBalance: true } })
  ).result;
  assert.deepEqual(r.nativeBalance, expected);
  assert.equal(Object.keys(r).at(-1), 'nativeBalance');
  const s = (await rpc('searchAssets', { ownerAddress: o, limit: 1, page: 1, options: { showNativeBalance: true } }))
    .result;
  assert.deepEqual(s.nativeBalance, expected);
  assert.equal((await rpc('getAssetsByOwner', { ownerAddress: o, limit: 1, page: 1 })).result.nativeBalance, undefined);
});
