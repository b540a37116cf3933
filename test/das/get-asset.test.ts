// getAsset over the asset index, from fixture accounts built with the Metaplex and SPL serializers
// (real byte layouts): whole responses compared exactly.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  getEditionAccountDataSerializer,
  getMasterEditionAccountDataSerializer,
  getMetadataAccountDataSerializer,
  TokenStandard,
} from '@metaplex-foundation/mpl-token-metadata';
import { publicKey } from '@metaplex-foundation/umi';
import { AccountLayout, ACCOUNT_SIZE, MintLayout, MINT_SIZE } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { parseJsonExact } from '../../src/wire/index.js';
import { encodeBase58 } from '../../src/zk/base58.js';
import { postJson, startTestGateway, tempDir, type TestGateway } from '../helpers/gateway.js';
import { accountFile } from '../sim/helpers.js';

const TM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const key = (n: number) => encodeBase58(new Uint8Array(32).fill(n));
const pnft = key(21);
const collection = key(22);
const unverified = key(23);
const fungible = key(24);
const plainMint = key(25);
const corrupted = key(26);
const burnt = key(27);
const authority = key(31);
const owner = key(32);
const delegate = key(33);
const creatorA = key(34);
const creatorB = key(35);
const mintAuthority = key(36);

let gw: TestGateway;
let dir: string;
let server: Server;
let host = '';
const offchain = key(51);
const slow = key(52);
const failing = key(53);
const oversized = key(54);
const badUri = key(55);
const print = key(56);
let failingHits = 0;

function editionPda(mint: string): string {
  return PublicKey.findProgramAddressSync(
    [Buffer.from('metadata'), new PublicKey(TM).toBuffer(), new PublicKey(mint).toBuffer(), Buffer.from('edition')],
    new PublicKey(TM),
  )[0].toBase58();
}

function metadataPda(mint: string): string {
  return PublicKey.findProgramAddressSync(
    [Buffer.from('metadata'), new PublicKey(TM).toBuffer(), new PublicKey(mint).toBuffer()],
    new PublicKey(TM),
  )[0].toBase58();
}

function metadata(
  mint: string,
  over: Partial<Parameters<ReturnType<typeof getMetadataAccountDataSerializer>['serialize']>[0]> = {},
) {
  return getMetadataAccountDataSerializer().serialize({
    updateAuthority: publicKey(authority),
    mint: publicKey(mint),
    name: 'Mad Lads #9964',
    symbol: 'MAD',
    uri: 'https://madlads.invalid/json/9964.json',
    sellerFeeBasisPoints: 420,
    creators: [
      { address: publicKey(creatorA), verified: true, share: 0 },
      { address: publicKey(creatorB), verified: true, share: 100 },
    ],
    primarySaleHappened: true,
    isMutable: true,
    editionNonce: 255,
    tokenStandard: TokenStandard.ProgrammableNonFungible,
    collection: { verified: true, key: publicKey(collection) },
    uses: null,
    collectionDetails: null,
    programmableConfig: null,
    ...over,
  });
}

function mintData(supply: bigint, decimals: number, freeze = true): Uint8Array {
  const b = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: 1,
      mintAuthority: new PublicKey(mintAuthority),
      supply,
      decimals,
      isInitialized: true,
      freezeAuthorityOption: freeze ? 1 : 0,
      freezeAuthority: freeze ? new PublicKey(mintAuthority) : PublicKey.default,
    },
    b,
  );
  return b;
}

function tokenAccountData(mint: string, amount: bigint, frozen: boolean, withDelegate: boolean): Uint8Array {
  const b = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint: new PublicKey(mint),
      owner: new PublicKey(owner),
      amount,
      delegateOption: withDelegate ? 1 : 0,
      delegate: withDelegate ? new PublicKey(delegate) : PublicKey.default,
      state: frozen ? 2 : 1,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: withDelegate ? 1n : 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    b,
  );
  return b;
}

/** The off-chain JSON host: one good document, one too slow, one failing, one too big. */
async function startJsonServer(): Promise<void> {
  server = createServer((req, res) => {
    if (req.url === '/nft.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: 'ignored: the on-chain name wins',
          description: 'Fock it.',
          image: `${host}/img/1.png`,
          animation_url: `${host}/anim.mp4`,
          external_url: 'https://madlads.com',
          attributes: [{ value: 'Male', trait_type: 'Gender' }],
          properties: {
            files: [
              { uri: `${host}/img/2.jpg`, type: 'image/jpeg' },
              { uri: `${host}/img/1.png`, type: 'image/png' },
              `${host}/extra.gif`,
            ],
          },
        }),
      );
    } else if (req.url === '/slow.json') {
      setTimeout(() => res.end('{}'), 30_000).unref();
    } else if (req.url === '/fail.json') {
      failingHits++;
      res.writeHead(500);
      res.end('no');
    } else if (req.url === '/big.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"description":"${'x'.repeat(300_000)}"}`);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

before(async () => {
  await startJsonServer();
  dir = tempDir();
  const accounts = join(dir, 'accounts');
  mkdirSync(accounts);
  let n = 0;
  const put = (pubkey: string, data: Uint8Array, programOwner: string) =>
    writeFileSync(
      join(accounts, `${n++}.json`),
      accountFile(pubkey, { lamports: 10_000_000n, data, owner: programOwner }),
    );
  put(pnft, mintData(1n, 0), TOKEN);
  put(metadataPda(pnft), metadata(pnft), TM);
  put(key(41), tokenAccountData(pnft, 1n, true, true), TOKEN);
  put(unverified, mintData(1n, 0), TOKEN);
  put(
    metadataPda(unverified),
    metadata(unverified, {
      tokenStandard: TokenStandard.NonFungible,
      collection: { verified: false, key: publicKey(collection) },
      sellerFeeBasisPoints: 3,
      editionNonce: null,
    }),
    TM,
  );
  put(key(42), tokenAccountData(unverified, 1n, false, false), TOKEN);
  put(editionPda(unverified), getMasterEditionAccountDataSerializer().serialize({ supply: 5n, maxSupply: 10n }), TM);
  // A print of it: its own mint, metadata (NonFungibleEdition) and Edition account.
  put(print, mintData(1n, 0), TOKEN);
  put(metadataPda(print), metadata(print, { tokenStandard: TokenStandard.NonFungibleEdition }), TM);
  put(
    editionPda(print),
    getEditionAccountDataSerializer().serialize({ parent: publicKey(editionPda(unverified)), edition: 3n }),
    TM,
  );
  put(editionPda(pnft), getMasterEditionAccountDataSerializer().serialize({ supply: 0n, maxSupply: 0n }), TM);
  put(fungible, mintData(12585937222711072n, 9, false), TOKEN);
  put(
    metadataPda(fungible),
    metadata(fungible, {
      name: 'Jito Staked SOL',
      symbol: 'JitoSOL',
      uri: 'https://storage.invalid/token-metadata/JitoSOL.json',
      tokenStandard: TokenStandard.Fungible,
      creators: null,
      sellerFeeBasisPoints: 0,
      primarySaleHappened: false,
      collection: null,
      editionNonce: null,
    }),
    TM,
  );
  put(plainMint, mintData(18446744073709551615n, 6, false), TOKEN);
  // Corrupted trailing data: a valid Metadata through edition_nonce, then garbage.
  const good = metadata(corrupted, { tokenStandard: null, collection: null, uses: null });
  const cut = Buffer.from(good.subarray(0, good.length - 4));
  const bad = Buffer.concat([cut, Buffer.from([1, 9, 9, 9, 9])]);
  put(corrupted, mintData(1n, 0), TOKEN);
  put(metadataPda(corrupted), bad, TM);
  put(burnt, mintData(0n, 0), TOKEN);
  put(metadataPda(burnt), metadata(burnt), TM);
  put(key(43), tokenAccountData(offchain, 1n, false, false), TOKEN);
  for (const [mint, uri] of [
    [offchain, `${host}/nft.json`],
    [slow, `${host}/slow.json`],
    [failing, `${host}/fail.json`],
    [oversized, `${host}/big.json`],
    [badUri, 'not a uri'],
  ] as const) {
    put(mint, mintData(1n, 0), TOKEN);
    put(metadataPda(mint), metadata(mint, { uri }), TM);
  }
  const prices = join(dir, 'prices.json');
  writeFileSync(
    prices,
    JSON.stringify({ [fungible]: { price: 56.47943, volume24h: 1e9 }, [offchain]: { price: 2.5, volume24h: 1 } }),
  );
  gw = await startTestGateway(
    {
      accountDir: [accounts],
      // Well above a loaded machine's request time: an attempt that times out before its request
      // reaches this server would be an attempt the server cannot count.
      metadataTimeoutMs: 2_000,
      metadataMaxBytes: 100_000,
      // The metadata server is on loopback (public addresses only otherwise: offchain-ssrf.test.ts).
      offchainAllowPrivate: 'on',
      cdnPrefix: 'https://cdn.test/img//',
      priceSource: prices,
    },
    {},
    { ledger: true },
  );
});

after(async () => {
  await gw.stop();
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const getAsset = async (params: unknown) =>
  parseJsonExact(
    (await postJson(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAsset', params }))).text,
  ) as any;

const compression = {
  eligible: false,
  compressed: false,
  data_hash: '',
  creator_hash: '',
  asset_hash: '',
  tree: '',
  seq: 0,
  leaf_id: 0,
};

describe('getAsset', () => {
  test('a programmable NFT: whole response, owner and frozen/delegate from its token account', async () => {
    const { result } = await getAsset({ id: pnft });
    assert.equal(typeof result.last_indexed_slot, 'number');
    const { last_indexed_slot: _slot, ...rest } = result;
    assert.deepEqual(Object.keys(result)[0], 'last_indexed_slot');
    assert.deepEqual(rest, {
      interface: 'ProgrammableNFT',
      id: pnft,
      content: {
        $schema: 'https://schema.metaplex.com/nft1.0.json',
        json_uri: 'https://madlads.invalid/json/9964.json',
        files: [],
        metadata: { name: 'Mad Lads #9964', symbol: 'MAD', token_standard: 'ProgrammableNonFungible' },
        links: {},
      },
      authorities: [{ address: authority, scopes: ['full'] }],
      compression,
      grouping: [{ group_key: 'collection', group_value: collection }],
      royalty: {
        royalty_model: 'creators',
        target: null,
        percent: 0.042,
        basis_points: 420,
        primary_sale_happened: true,
        locked: false,
      },
      creators: [
        { address: creatorA, share: 0, verified: true },
        { address: creatorB, share: 100, verified: true },
      ],
      ownership: { frozen: true, delegated: true, delegate, ownership_model: 'single', owner },
      supply: { print_max_supply: 0, print_current_supply: 0, edition_nonce: 255 },
      mutable: true,
      burnt: false,
      token_info: {
        supply: 1,
        decimals: 0,
        token_program: TOKEN,
        mint_authority: mintAuthority,
        freeze_authority: mintAuthority,
      },
    });
  });

  test('an unverified collection is hidden, and shown with showUnverifiedCollections; percent is bp × 0.0001', async () => {
    const hidden = (await getAsset({ id: unverified })).result;
    assert.deepEqual(hidden.grouping, []);
    assert.equal(hidden.interface, 'V1_NFT');
    assert.equal(hidden.royalty.percent, 3 * 0.0001);
    assert.deepEqual(hidden.supply, { print_max_supply: 10, print_current_supply: 5, edition_nonce: null });
    const printed = (await getAsset({ id: print })).result;
    assert.equal(printed.interface, 'V1_NFT', 'prints are V1_NFT, as the reference classifies them');
    assert.deepEqual(printed.supply, { print_max_supply: 0, print_current_supply: 0, edition_nonce: 255 });
    const shown = (await getAsset([unverified, { showUnverifiedCollections: true, someFutureOption: true }])).result;
    assert.deepEqual(shown.grouping, [{ group_key: 'collection', group_value: collection, verified: false }]);
  });

  test('a fungible token: token ownership, no supply object, exact u64 supply', async () => {
    const { result } = await getAsset({ id: fungible, displayOptions: { showFungible: true } });
    assert.equal(result.interface, 'FungibleToken');
    assert.deepEqual(result.ownership, {
      frozen: false,
      delegated: false,
      delegate: null,
      ownership_model: 'token',
      owner: '',
    });
    assert.equal(result.supply, undefined);
    assert.deepEqual(result.grouping, []);
    assert.deepEqual(result.creators, []);
    assert.deepEqual(result.token_info, {
      supply: 12585937222711072n,
      decimals: 9,
      token_program: TOKEN,
      mint_authority: mintAuthority,
      price_info: { price_per_token: 56.47943, currency: 'USDC' },
    });
  });

  test('a plain SPL mint without metadata is a FungibleToken with chain data only', async () => {
    const { result } = await getAsset({ id: plainMint });
    assert.equal(result.interface, 'FungibleToken');
    assert.deepEqual(result.authorities, []);
    assert.equal(result.content.json_uri, '');
    assert.equal(result.token_info.supply, 18446744073709551615n);
  });

  test('corrupted trailing metadata degrades token_standard/collection/uses to none', async () => {
    const { result } = await getAsset({ id: corrupted });
    assert.equal(result.content.metadata.name, 'Mad Lads #9964');
    assert.equal(result.content.metadata.token_standard, undefined);
    assert.equal(result.interface, 'Custom', 'no token standard, supply 1');
    assert.deepEqual(result.grouping, []);
  });

  test('errors: not found, invalid id, no supply, missing id', async () => {
    assert.deepEqual((await getAsset({ id: key(99) })).error, {
      code: -32000,
      message: 'Database Error: RecordNotFound Error: Asset Not Found',
    });
    assert.deepEqual((await getAsset({ id: 'notakey' })).error, {
      code: -32000,
      message: 'Pubkey Validation Err: notakey is invalid',
    });
    assert.deepEqual((await getAsset({ id: burnt })).error, {
      code: -32000,
      message: 'Database Error: Custom Error: Asset has no supply',
    });
    assert.equal((await getAsset({})).error.code, -32602);
  });
});

test('forwarding: getAsset goes verbatim to a DAS upstream (a second zkgate), its errors relayed', async () => {
  const fwd = await startTestGateway({ dasUpstream: gw.url, apiKeys: ['das-caller-key'] });
  try {
    const call = async (params: unknown) =>
      parseJsonExact(
        (
          await postJson(
            `${fwd.base}?api-key=das-caller-key`,
            JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAsset', params }),
          )
        ).text,
      ) as any;
    const via = await call({ id: pnft, options: { showFungible: true } });
    const direct = await getAsset({ id: pnft, options: { showFungible: true } });
    const strip = (r: any) => ({ ...r.result, last_indexed_slot: 0 });
    assert.deepEqual(strip(via), strip(direct));
    assert.deepEqual((await call({ id: key(99) })).error, {
      code: -32000,
      message: 'Database Error: RecordNotFound Error: Asset Not Found',
    });
    assert.ok(
      !gw.logs.some((l) => l.includes(fwd.gateway.keys.keys.keyIds[0]!)),
      "the caller's key never reaches the upstream",
    );
  } finally {
    await fwd.stop();
  }
});

const until = async (f: () => Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('off-chain metadata', () => {
  test('fetched in the background: files (image first, cdn_uri), links, description and attributes', async () => {
    await until(async () => (await getAsset({ id: offchain })).result.content.files.length > 0);
    const { content } = (await getAsset({ id: offchain })).result;
    const cdn = (u: string) => `https://cdn.test/img//${u}`;
    assert.deepEqual(content, {
      $schema: 'https://schema.metaplex.com/nft1.0.json',
      json_uri: `${host}/nft.json`,
      files: [
        { uri: `${host}/img/1.png`, cdn_uri: cdn(`${host}/img/1.png`), mime: 'image/png' },
        { uri: `${host}/img/2.jpg`, cdn_uri: cdn(`${host}/img/2.jpg`), mime: 'image/jpeg' },
        { uri: `${host}/extra.gif`, cdn_uri: cdn(`${host}/extra.gif`), mime: 'image/gif' },
        { uri: `${host}/anim.mp4`, cdn_uri: cdn(`${host}/anim.mp4`), mime: 'video/mp4' },
      ],
      metadata: {
        attributes: [{ value: 'Male', trait_type: 'Gender' }],
        description: 'Fock it.',
        name: 'Mad Lads #9964',
        symbol: 'MAD',
        token_standard: 'ProgrammableNonFungible',
      },
      links: { image: `${host}/img/1.png`, animation_url: `${host}/anim.mp4`, external_url: 'https://madlads.com' },
    });
    assert.deepEqual(Object.keys(content.metadata), ['attributes', 'description', 'name', 'symbol', 'token_standard']);
  });

  test('slow, failing, oversized and invalid URIs leave chain data only; failures are retried a bounded number of times', async () => {
    await until(async () => failingHits >= 3, 30_000);
    // A fourth attempt would follow the third failure after the next backoff (4 s).
    await new Promise((r) => setTimeout(r, 5_000));
    assert.equal(failingHits, 3, 'three attempts, then given up');
    for (const id of [slow, failing, oversized, badUri]) {
      const { content } = (await getAsset({ id })).result;
      assert.deepEqual(content.files, []);
      assert.deepEqual(content.links, {});
      assert.deepEqual(Object.keys(content.metadata), ['name', 'symbol', 'token_standard']);
    }
  });
});

test('price_info with total_price for a single holder; absent for mints the source does not price', async () => {
  const priced = (await getAsset({ id: offchain })).result.token_info;
  assert.deepEqual(priced.price_info, { price_per_token: 2.5, total_price: 2.5, currency: 'USDC' });
  assert.equal((await getAsset({ id: pnft })).result.token_info.price_info, undefined);
});
