// getAsset for MPL Core assets and collections, showCollectionMetadata and showInscription. Core
// accounts are composed from mpl-core's own serializers (base account, plugin header, each plugin,
// registry) the way the program lays them out, and checked to read back through mpl-core's
// deserializer before zkgate sees them. Whole responses are compared as exact JSON text.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  deserializeAssetV1,
  deserializeCollectionV1,
  ExternalPluginAdapterSchema,
  getExternalPluginAdapterSerializer,
  getPluginHeaderV1AccountDataSerializer,
  getPluginSerializer,
  Key,
  PluginType,
  ExternalPluginAdapterType,
  type BasePluginAuthority,
  type ExternalPluginAdapter,
  type Plugin,
} from '@metaplex-foundation/mpl-core';
import { getAssetV1AccountDataSerializer } from '@metaplex-foundation/mpl-core/dist/src/generated/types/assetV1AccountData.js';
import { getCollectionV1AccountDataSerializer } from '@metaplex-foundation/mpl-core/dist/src/generated/types/collectionV1AccountData.js';
import { getPluginRegistryV1AccountDataSerializer } from '@metaplex-foundation/mpl-core/dist/src/generated/types/pluginRegistryV1AccountData.js';
import { getMetadataAccountDataSerializer, TokenStandard } from '@metaplex-foundation/mpl-token-metadata';
import { publicKey, some, none, type RpcAccount } from '@metaplex-foundation/umi';
import {
  option,
  publicKey as publicKeySerializer,
  string,
  struct,
  u32,
  u64,
} from '@metaplex-foundation/umi/serializers';
import { PublicKey } from '@solana/web3.js';
import type { RootDatabase } from 'lmdb';
import { AssetIndex, getAsset as assetOf } from '../../src/das/index.js';
import { Ledger } from '../../src/ledger/index.js';
import { decodeBase58, encodeBase58 } from '../../src/zk/base58.js';
import { postJson, startTestGateway, tempDir, type TestGateway } from '../helpers/gateway.js';
import { mintBytes } from '../helpers/spl-accounts.js';
import { accountFile } from '../sim/helpers.js';

const CORE = 'CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d';
const TM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const INSCRIPTIONS = 'inscokhJarcjaEs59QbQ7hYjrKz25LEPRfCbP8EmdUp';
const BUBBLEGUM = 'BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY';
const key = (n: number) => encodeBase58(new Uint8Array(32).fill(n));
const asset = key(81);
const collection = key(82);
const lone = key(83);
const authority = key(84);
const owner = key(85);
const freezer = key(86);
const creator = key(87);
const tmCollection = key(88);
const tmNft = key(89);
const tmNoJson = key(90);
const unindexedCollection = key(91);
const inscribed = key(92);
const inscriptionAccount = key(93);
const inscriptionData = key(94);

type Registered =
  | { kind: 'plugin'; plugin: Plugin; authority: BasePluginAuthority }
  | { kind: 'external'; adapter: ExternalPluginAdapter; authority: BasePluginAuthority; data?: Uint8Array };

/**
 * Base account, plugin header, plugins (each followed by its adapter data) and the registry at the
 * end, as the Core program writes them.
 */
function coreAccount(base: Uint8Array, plugins: Registered[]): Uint8Array {
  const header = getPluginHeaderV1AccountDataSerializer();
  const headerSize = 1 + 8;
  const parts: Uint8Array[] = [];
  const registry: unknown[] = [];
  const externalRegistry: unknown[] = [];
  let at = base.length + headerSize;
  for (const p of plugins) {
    if (p.kind === 'plugin') {
      const bytes = getPluginSerializer().serialize(p.plugin);
      registry.push({ pluginType: PluginType[p.plugin.__kind], authority: p.authority, offset: BigInt(at) });
      parts.push(bytes);
      at += bytes.length;
    } else {
      const bytes = getExternalPluginAdapterSerializer().serialize(p.adapter);
      const offset = at;
      parts.push(bytes);
      at += bytes.length;
      externalRegistry.push({
        pluginType: ExternalPluginAdapterType[p.adapter.__kind],
        authority: p.authority,
        lifecycleChecks: none(),
        offset: BigInt(offset),
        dataOffset: p.data ? some(BigInt(at)) : none(),
        dataLen: p.data ? some(BigInt(p.data.length)) : none(),
      });
      if (p.data) {
        parts.push(p.data);
        at += p.data.length;
      }
    }
  }
  const headerBytes = header.serialize({ key: Key.PluginHeaderV1, pluginRegistryOffset: BigInt(at) });
  const registryBytes = getPluginRegistryV1AccountDataSerializer().serialize({
    key: Key.PluginRegistryV1,
    registry,
    externalRegistry,
  } as never);
  return Buffer.concat([base, headerBytes, ...parts, registryBytes]);
}

const rpcAccount = (address: string, data: Uint8Array) =>
  ({
    publicKey: publicKey(address),
    data,
    executable: false,
    lamports: { basisPoints: 1n, identifier: 'SOL', decimals: 9 },
    owner: publicKey(CORE),
  }) as RpcAccount;

let host = '';
let server: Server;
let gw: TestGateway;
let dir: string;
const appData = Buffer.from(JSON.stringify({ level: 3, guild: 'north' }));

function coreAssetData(jsonHost: string): Uint8Array {
  const base = getAssetV1AccountDataSerializer().serialize({
    key: Key.AssetV1,
    owner: publicKey(owner),
    updateAuthority: { __kind: 'Collection', fields: [publicKey(collection)] },
    name: 'Core Asset #1',
    uri: ` ${jsonHost}/core.json\0`,
    seq: none(),
  });
  return coreAccount(base, [
    {
      kind: 'plugin',
      authority: { __kind: 'UpdateAuthority' },
      plugin: {
        __kind: 'Royalties',
        fields: [
          {
            basisPoints: 550,
            creators: [{ address: publicKey(creator), percentage: 100 }],
            ruleSet: { __kind: 'ProgramDenyList', fields: [[publicKey(BUBBLEGUM)]] },
          },
        ],
      },
    },
    {
      kind: 'plugin',
      authority: { __kind: 'Address', address: publicKey(freezer) },
      plugin: { __kind: 'FreezeDelegate', fields: [{ frozen: true }] },
    },
    { kind: 'plugin', authority: { __kind: 'Owner' }, plugin: { __kind: 'TransferDelegate', fields: [{}] } },
    {
      kind: 'plugin',
      authority: { __kind: 'UpdateAuthority' },
      plugin: { __kind: 'Attributes', fields: [{ attributeList: [{ key: 'power', value: '9' }] }] },
    },
    {
      kind: 'external',
      authority: { __kind: 'UpdateAuthority' },
      adapter: {
        __kind: 'AppData',
        fields: [{ dataAuthority: { __kind: 'Owner' }, schema: ExternalPluginAdapterSchema.Json }],
      },
      data: appData,
    },
  ]);
}

function coreCollectionData(jsonHost: string): Uint8Array {
  const base = getCollectionV1AccountDataSerializer().serialize({
    key: Key.CollectionV1,
    updateAuthority: publicKey(authority),
    name: 'Core Collection',
    uri: `${jsonHost}/collection.json`,
    numMinted: 2,
    currentSize: 1,
  });
  return coreAccount(base, [
    {
      kind: 'plugin',
      authority: { __kind: 'Address', address: publicKey(freezer) },
      plugin: { __kind: 'UpdateDelegate', fields: [{ additionalDelegates: [] }] },
    },
  ]);
}

/** An asset with no plugins and no update authority (immutable), owned outside any collection. */
function loneAssetData(): Uint8Array {
  return getAssetV1AccountDataSerializer().serialize({
    key: Key.AssetV1,
    owner: publicKey(owner),
    updateAuthority: { __kind: 'None' },
    name: 'Lone',
    uri: '',
    seq: some(4n),
  });
}

const mintData = () => mintBytes(1n, 0);

const metadataPda = (mint: string) =>
  PublicKey.findProgramAddressSync(
    [Buffer.from('metadata'), new PublicKey(TM).toBuffer(), new PublicKey(mint).toBuffer()],
    new PublicKey(TM),
  )[0].toBase58();

const tmMetadata = (mint: string, uri: string, coll: string | null) =>
  getMetadataAccountDataSerializer().serialize({
    updateAuthority: publicKey(authority),
    mint: publicKey(mint),
    name: 'TM',
    symbol: 'TM',
    uri,
    sellerFeeBasisPoints: 0,
    creators: null,
    primarySaleHappened: false,
    isMutable: true,
    editionNonce: null,
    tokenStandard: TokenStandard.NonFungible,
    collection: coll ? { verified: true, key: publicKey(coll) } : null,
    uses: null,
    collectionDetails: null,
    programmableConfig: null,
  });

/** libreplex Inscriptions' `Inscription` account: Anchor discriminator, then Borsh fields. */
const inscriptionAccountData = () =>
  Buffer.concat([
    Buffer.from([232, 120, 205, 47, 153, 239, 229, 224]),
    struct<any>([
      ['authority', publicKeySerializer()],
      ['root', publicKeySerializer()],
      ['inscriptionData', publicKeySerializer()],
      ['order', u64()],
      ['size', u32()],
      ['contentType', string()],
      ['encoding', string()],
      ['validationHash', option(string())],
    ]).serialize({
      authority: publicKey('11111111111111111111111111111111'),
      root: publicKey(inscribed),
      inscriptionData: publicKey(inscriptionData),
      order: 18446744073709551000n,
      size: 202,
      contentType: 'image/png',
      encoding: 'base64',
      validationHash: some('7fa0041483b92f5a'),
    }),
  ]);

before(async () => {
  server = createServer((req, res) => {
    const docs: Record<string, unknown> = {
      '/core.json': { description: 'A Core asset', image: `${host}/core.png` },
      '/collection.json': {
        name: 'Off-chain Collection',
        symbol: 'OCC',
        description: 'The collection',
        image: `${host}/collection.png`,
        external_url: 'https://collection.example',
        attributes: [],
      },
    };
    const doc = docs[req.url ?? ''];
    res.writeHead(doc ? 200 : 404, { 'content-type': 'application/json' });
    res.end(doc ? JSON.stringify(doc) : '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = tempDir();
  const accounts = join(dir, 'accounts');
  mkdirSync(accounts);
  let n = 0;
  const put = (pubkey: string, data: Uint8Array, programOwner: string) =>
    writeFileSync(
      join(accounts, `${n++}.json`),
      accountFile(pubkey, { lamports: 10_000_000n, data, owner: programOwner }),
    );
  put(asset, coreAssetData(host), CORE);
  put(collection, coreCollectionData(host), CORE);
  put(lone, loneAssetData(), CORE);
  put(tmCollection, mintData(), TOKEN);
  put(metadataPda(tmCollection), tmMetadata(tmCollection, `${host}/collection.json`, null), TM);
  put(tmNft, mintData(), TOKEN);
  put(metadataPda(tmNft), tmMetadata(tmNft, '', tmCollection), TM);
  put(tmNoJson, mintData(), TOKEN);
  put(metadataPda(tmNoJson), tmMetadata(tmNoJson, '', unindexedCollection), TM);
  put(inscribed, mintData(), TOKEN);
  put(metadataPda(inscribed), tmMetadata(inscribed, '', null), TM);
  put(inscriptionAccount, inscriptionAccountData(), INSCRIPTIONS);
  gw = await startTestGateway(
    // The metadata server is on loopback.
    { accountDir: [accounts], metadataTimeoutMs: 1000, offchainAllowPrivate: 'on' },
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

/** The result without last_indexed_slot, as the JSON text it was sent as (key order included). */
async function assetJson(params: unknown): Promise<string> {
  const { text } = await postJson(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAsset', params }));
  const { result, error } = JSON.parse(text);
  assert.equal(error, undefined, text);
  assert.equal(Object.keys(result)[0], 'last_indexed_slot');
  delete result.last_indexed_slot;
  return JSON.stringify(result);
}

/** Polls until the off-chain JSON has been fetched and shows up in the answer. */
async function eventually(params: unknown, ready: (json: string) => boolean): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const json = await assetJson(params);
    if (ready(json)) return json;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('off-chain JSON never arrived');
}

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

describe('MPL Core', () => {
  test('the fixtures are what mpl-core itself reads', () => {
    const a = deserializeAssetV1(rpcAccount(asset, coreAssetData(host)));
    assert.equal(a.royalties?.basisPoints, 550);
    assert.equal(a.freezeDelegate?.frozen, true);
    assert.equal(
      a.appDatas?.[0]?.data && JSON.stringify(a.appDatas[0].data),
      JSON.stringify({ level: 3, guild: 'north' }),
    );
    const c = deserializeCollectionV1(rpcAccount(collection, coreCollectionData(host)));
    assert.equal(c.numMinted, 2);
    assert.equal(c.updateDelegate?.authority.address, freezer);
  });

  test('an asset in a collection: plugins, royalties, creators, freeze and transfer delegates, app data', async () => {
    const json = await eventually({ id: asset }, (j) => j.includes('A Core asset'));
    const p0 = 1 + 32 + 1 + 32 + (4 + 'Core Asset #1'.length) + (4 + ` ${host}/core.json\0`.length) + 1 + 9;
    const royalties = 1 + 2 + 4 + 33 + 1 + 4 + 32;
    const expected = {
      interface: 'MplCoreAsset',
      id: asset,
      content: {
        $schema: 'https://schema.metaplex.com/nft1.0.json',
        json_uri: `${host}/core.json`,
        files: [{ uri: `${host}/core.png`, mime: 'image/png' }],
        metadata: { description: 'A Core asset', name: 'Core Asset #1', symbol: '' },
        links: { image: `${host}/core.png` },
      },
      // The collection's update authority governs its assets.
      authorities: [{ address: authority, scopes: ['full'] }],
      compression,
      grouping: [{ group_key: 'collection', group_value: collection }],
      royalty: {
        royalty_model: 'creators',
        target: null,
        percent: 550 * 0.0001,
        basis_points: 550,
        primary_sale_happened: false,
        locked: false,
      },
      creators: [{ address: creator, share: 100, verified: true }],
      ownership: { frozen: true, delegated: true, delegate: owner, ownership_model: 'single', owner },
      mutable: true,
      burnt: false,
      // jsonb key order throughout, as the reference stores plugins.
      plugins: {
        royalties: {
          data: {
            creators: [{ address: creator, percentage: 100 }],
            rule_set: { program_deny_list: [BUBBLEGUM] },
            basis_points: 550,
          },
          index: 0,
          offset: p0,
          authority: { type: 'UpdateAuthority', address: null },
        },
        attributes: {
          data: { attribute_list: [{ key: 'power', value: '9' }] },
          index: 3,
          offset: p0 + royalties + 2 + 1,
          authority: { type: 'UpdateAuthority', address: null },
        },
        freeze_delegate: {
          data: { frozen: true },
          index: 1,
          offset: p0 + royalties,
          authority: { type: 'Address', address: freezer },
        },
        transfer_delegate: {
          data: {},
          index: 2,
          offset: p0 + royalties + 2,
          authority: { type: 'Owner', address: null },
        },
      },
      mpl_core_info: { plugins_json_version: 1 },
      external_plugins: [
        {
          data: { guild: 'north', level: 3 },
          type: 'AppData',
          index: 4,
          offset: p0 + royalties + 2 + 1 + (1 + 4 + 4 + 5 + 4 + 1),
          data_len: appData.length,
          authority: { type: 'UpdateAuthority', address: null },
          data_offset: p0 + royalties + 2 + 1 + (1 + 4 + 4 + 5 + 4 + 1) + 3,
          adapter_config: { schema: 'Json', data_authority: { type: 'Owner', address: null } },
        },
      ],
    };
    assert.equal(json, JSON.stringify(expected));
  });

  test('a collection: owner and authority are its update authority; mpl_core_info has its counts', async () => {
    const json = await assetJson([collection, { showFungible: true }]);
    const parsed = JSON.parse(json);
    assert.equal(parsed.interface, 'MplCoreCollection');
    assert.deepEqual(parsed.authorities, [{ address: authority, scopes: ['full'] }]);
    assert.deepEqual(parsed.ownership, {
      frozen: false,
      delegated: false,
      delegate: null,
      ownership_model: 'single',
      owner: authority,
    });
    assert.equal(
      JSON.stringify(parsed.plugins),
      JSON.stringify({
        update_delegate: {
          data: { additional_delegates: [] },
          index: 0,
          offset: 1 + 32 + 4 + 15 + 4 + `${host}/collection.json`.length + 8 + 9,
          authority: { type: 'Address', address: freezer },
        },
      }),
    );
    assert.equal(JSON.stringify(parsed.mpl_core_info), '{"num_minted":2,"current_size":1,"plugins_json_version":1}');
    assert.equal(parsed.supply, undefined);
    assert.equal(parsed.token_info, undefined);
  });

  test('no update authority: immutable, authority the system program, no plugins', async () => {
    const json = await assetJson({ id: lone });
    assert.equal(
      json,
      JSON.stringify({
        interface: 'MplCoreAsset',
        id: lone,
        content: {
          $schema: 'https://schema.metaplex.com/nft1.0.json',
          json_uri: '',
          files: [],
          metadata: { name: 'Lone', symbol: '' },
          links: {},
        },
        authorities: [{ address: '11111111111111111111111111111111', scopes: ['full'] }],
        compression,
        grouping: [],
        royalty: {
          royalty_model: 'creators',
          target: null,
          percent: 0,
          basis_points: 0,
          primary_sale_happened: false,
          locked: false,
        },
        creators: [],
        ownership: { frozen: false, delegated: false, delegate: null, ownership_model: 'single', owner },
        mutable: false,
        burnt: false,
        plugins: {},
        mpl_core_info: { plugins_json_version: 1 },
        external_plugins: [],
      }),
    );
  });

  test('a burnt asset keeps its record with burnt: true; an unknown plugin type is kept raw', async () => {
    const d = tempDir();
    let index: AssetIndex | undefined;
    let root: RootDatabase | undefined;
    const ledger = Ledger.open({
      dir: d,
      slotMs: 0,
      indexers: [(r) => ((root = r), (index = new AssetIndex(r)))],
    });
    // As a transaction commits its accounts: one LMDB transaction.
    const write = (data: Uint8Array) =>
      root!.transactionSync(() =>
        ledger.writeAccount(decodeBase58(lone), {
          lamports: 1_000_000n,
          data,
          owner: decodeBase58(CORE),
          executable: false,
          rentEpoch: 0n,
        }),
      );
    try {
      // An asset whose one plugin has a type newer than zkgate knows (99).
      const base = loneAssetData();
      const withUnknown = Buffer.concat([
        base,
        getPluginHeaderV1AccountDataSerializer().serialize({
          key: Key.PluginHeaderV1,
          pluginRegistryOffset: BigInt(base.length + 9 + 3),
        }),
        Buffer.from([99, 7, 7]),
        // The registry by hand: mpl-core's serializers cannot write a type they do not know.
        Buffer.from([Key.PluginRegistryV1, 1, 0, 0, 0, 99, 1]),
        Buffer.from(new BigUint64Array([BigInt(base.length + 9)]).buffer),
        Buffer.from([0, 0, 0, 0]),
      ]);
      write(withUnknown);
      const before = assetOf(index!, lone, {});
      assert.equal(
        JSON.stringify(before.unknown_plugins),
        JSON.stringify([
          { data: 'YwcH', type: 99, index: 0, offset: base.length + 9, authority: { type: 'Owner', address: null } },
        ]),
      );
      // Burning leaves a one-byte account (Key::Uninitialized).
      write(new Uint8Array([0]));
      const burnt = assetOf(index!, lone, {});
      assert.equal(burnt.burnt, true);
      assert.deepEqual({ ...burnt, burnt: false, last_indexed_slot: 0 }, { ...before, last_indexed_slot: 0 });
    } finally {
      await ledger.close();
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('MPL Core in the DAS lists', () => {
  const list = async (method: string, params: Record<string, unknown>) => {
    const { text } = await postJson(
      gw.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: { ...params, sortBy: { sortBy: 'id', sortDirection: 'asc' } },
      }),
    );
    const { result, error } = JSON.parse(text);
    assert.equal(error, undefined, text);
    return (result.items as { id: string }[]).map((a) => a.id);
  };
  const byId = (a: string, b: string) => Buffer.compare(decodeBase58(a), decodeBase58(b));

  test('an owner lists its Core assets; a collection its members; the royalties creator and the authority theirs', async () => {
    assert.deepEqual(await list('getAssetsByOwner', { ownerAddress: owner }), [asset, lone].sort(byId));
    assert.deepEqual(await list('getAssetsByGroup', { groupKey: 'collection', groupValue: collection }), [asset]);
    assert.deepEqual(await list('getAssetsByCreator', { creatorAddress: creator }), [asset]);
    // An asset in a collection has the collection's update authority.
    assert.deepEqual(await list('getAssetsByAuthority', { authorityAddress: collection }), [asset]);
    const items = JSON.parse(
      (await postJson(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAssets', params: { ids: [asset] } })))
        .text,
    ).result;
    assert.equal(items[0].interface, 'MplCoreAsset');
  });
});

describe('showCollectionMetadata', () => {
  test("the collection's off-chain name, symbol, image, external_url and description", async () => {
    const json = await eventually([tmNft, { showCollectionMetadata: true }], (j) => j.includes('Off-chain Collection'));
    assert.equal(
      JSON.stringify(JSON.parse(json).grouping),
      JSON.stringify([
        {
          group_key: 'collection',
          group_value: tmCollection,
          collection_metadata: {
            description: 'The collection',
            external_url: 'https://collection.example',
            image: `${host}/collection.png`,
            name: 'Off-chain Collection',
            symbol: 'OCC',
          },
        },
      ]),
    );
    // Core collections too, and nothing without the option.
    const core = await eventually([asset, { showCollectionMetadata: true }], (j) => j.includes('OCC'));
    assert.equal(JSON.parse(core).grouping[0].collection_metadata.name, 'Off-chain Collection');
    assert.deepEqual(JSON.parse(await assetJson({ id: tmNft })).grouping, [
      { group_key: 'collection', group_value: tmCollection },
    ]);
  });

  test('a collection that is not indexed has no collection_metadata', async () => {
    const parsed = JSON.parse(await assetJson({ id: tmNoJson, options: { showCollectionMetadata: true } }));
    assert.deepEqual(parsed.grouping, [{ group_key: 'collection', group_value: unindexedCollection }]);
  });
});

describe('showInscription', () => {
  test("the mint's inscription, with a u64 order kept exact; absent without the option", async () => {
    const { text } = await postJson(
      gw.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getAsset',
        params: { id: inscribed, options: { showInscription: true } },
      }),
    );
    const inscription = text.slice(
      text.indexOf('"inscription":'),
      text.indexOf('}', text.indexOf('"inscription":')) + 1,
    );
    assert.equal(
      inscription,
      `"inscription":{"authority":"11111111111111111111111111111111","root":"${inscribed}",` +
        `"inscription_data":"${inscriptionData}","content":"image/png","encoding":"base64",` +
        '"order":18446744073709551000,"size":202,"validation_hash":"7fa0041483b92f5a"}',
    );
    assert.equal(JSON.parse(await assetJson({ id: inscribed })).inscription, undefined);
  });
});
