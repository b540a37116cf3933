// MPL Core assets and collections (get-asset.md §2.14, §6.4): the base account, its plugin header
// and registry, and each plugin, read into the JSON the reference indexer stores for them. The
// reference keeps that JSON in Postgres jsonb, so every object in it comes back with jsonb's key
// order (shorter keys first, then bytewise); `jsonbOrder` reproduces it.
import { unpack } from 'msgpackr';
import { Cursor } from './layouts.js';

export const MPL_CORE_PROGRAM = 'CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d';

const KEY_ASSET = 1;
const KEY_PLUGIN_HEADER = 3;
const KEY_PLUGIN_REGISTRY = 4;
const KEY_COLLECTION = 5;

export type UpdateAuthority =
  { kind: 'None' } | { kind: 'Address'; address: string } | { kind: 'Collection'; address: string };

export interface CoreAccount {
  kind: 'asset' | 'collection';
  /** Assets only. */
  owner: string | null;
  updateAuthority: UpdateAuthority;
  name: string;
  uri: string;
  /** Collections only. */
  numMinted: number | null;
  currentSize: number | null;
  /** Known plugins keyed by snake_case name, each `{data, index, offset, authority}` (jsonb order). */
  plugins: Record<string, Record<string, unknown>>;
  unknownPlugins: Record<string, unknown>[];
  /** External plugin adapters (Oracle, AppData, LifecycleHook, …), and raw ones of unknown types. */
  externalPlugins: Record<string, unknown>[];
  unknownExternalPlugins: Record<string, unknown>[];
  /** Derived fields the asset record needs. */
  royalties: { basisPoints: number; creators: { address: string; percentage: number }[] } | null;
  frozen: boolean;
  transferDelegate: PluginAuthority | null;
}

type PluginAuthority =
  { type: 'None' | 'Owner' | 'UpdateAuthority'; address: null } | { type: 'Address'; address: string };

/** Postgres jsonb's object key order: by length, then bytewise. */
export function jsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonbOrder);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).sort((a, b) => {
    const la = Buffer.byteLength(a);
    const lb = Buffer.byteLength(b);
    if (la !== lb) return la - lb;
    return Buffer.compare(Buffer.from(a), Buffer.from(b));
  });
  return Object.fromEntries(keys.map((k) => [k, jsonbOrder((value as Record<string, unknown>)[k])]));
}

const vec = <T>(c: Cursor, read: () => T): T[] => {
  const n = c.u32();
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(read());
  return out;
};

function authority(c: Cursor): PluginAuthority {
  const tag = c.u8();
  switch (tag) {
    case 0:
      return { type: 'None', address: null };
    case 1:
      return { type: 'Owner', address: null };
    case 2:
      return { type: 'UpdateAuthority', address: null };
    case 3:
      return { type: 'Address', address: c.pubkey() };
  }
  throw new RangeError(`invalid plugin authority ${tag}`);
}

const PLUGIN_NAMES = [
  'royalties',
  'freeze_delegate',
  'burn_delegate',
  'transfer_delegate',
  'update_delegate',
  'permanent_freeze_delegate',
  'attributes',
  'permanent_transfer_delegate',
  'permanent_burn_delegate',
  'edition',
  'master_edition',
  'add_blocker',
  'immutable_metadata',
  'verified_creators',
  'autograph',
  'bubblegum_v2',
  'freeze_execute',
  'permanent_freeze_execute',
  'groups',
] as const;

/** A known plugin's data (after its enum tag), with the field names the Rust types serialize to. */
function pluginData(type: number, c: Cursor): Record<string, unknown> {
  switch (type) {
    case 0: {
      const basis_points = c.u16();
      const creators = vec(c, () => ({ address: c.pubkey(), percentage: c.u8() }));
      const rule = c.u8();
      let rule_set: unknown;
      if (rule === 0) rule_set = 'None';
      else if (rule === 1) rule_set = { program_allow_list: vec(c, () => c.pubkey()) };
      else if (rule === 2) rule_set = { program_deny_list: vec(c, () => c.pubkey()) };
      else throw new RangeError(`invalid rule set ${rule}`);
      return { basis_points, creators, rule_set };
    }
    case 1:
    case 5:
    case 16:
    case 17:
      return { frozen: c.bool() };
    case 2:
    case 3:
    case 7:
    case 8:
    case 11:
    case 12:
    case 15:
      return {};
    case 4:
      return { additional_delegates: vec(c, () => c.pubkey()) };
    case 6:
      return { attribute_list: vec(c, () => ({ key: c.string(), value: c.string() })) };
    case 9:
      return { number: c.u32() };
    case 10:
      return { max_supply: c.option(() => c.u32()), name: c.option(() => c.string()), uri: c.option(() => c.string()) };
    case 13:
      return { signatures: vec(c, () => ({ address: c.pubkey(), verified: c.bool() })) };
    case 14:
      return { signatures: vec(c, () => ({ address: c.pubkey(), message: c.string() })) };
    case 18:
      return { groups: vec(c, () => c.pubkey()) };
  }
  throw new RangeError(`unknown plugin type ${type}`);
}

// HookableLifecycleEvent order; later events (execute) are listed as unknown, as the reference does.
const LIFECYCLE_EVENTS = ['create', 'transfer', 'burn', 'update'];
const ADAPTER_TYPES = ['LifecycleHook', 'Oracle', 'AppData', 'LinkedLifecycleHook', 'LinkedAppData', 'DataSection'];
const SCHEMAS = ['Binary', 'Json', 'MsgPack'] as const;
const EXTRA_ACCOUNTS = [
  'preconfigured_program',
  'preconfigured_collection',
  'preconfigured_owner',
  'preconfigured_recipient',
  'preconfigured_asset',
];
const SEEDS = ['Collection', 'Owner', 'Recipient', 'Asset'];

function schema(c: Cursor): (typeof SCHEMAS)[number] {
  const s = SCHEMAS[c.u8()];
  if (!s) throw new RangeError('invalid adapter schema');
  return s;
}

function extraAccount(c: Cursor): Record<string, unknown> {
  const tag = c.u8();
  if (tag < EXTRA_ACCOUNTS.length) return { [EXTRA_ACCOUNTS[tag]!]: { is_signer: c.bool(), is_writable: c.bool() } };
  if (tag === 5) {
    const seeds = vec(c, () => {
      const t = c.u8();
      if (t < SEEDS.length) return SEEDS[t];
      if (t === 4) return { address: c.pubkey() };
      if (t === 5) {
        return { bytes: [...c.bytes(c.u32())] };
      }
      throw new RangeError('invalid seed');
    });
    return {
      custom_pda: {
        seeds,
        custom_program_id: c.option(() => c.pubkey()),
        is_signer: c.bool(),
        is_writable: c.bool(),
      },
    };
  }
  if (tag === 6) return { address: { address: c.pubkey(), is_signer: c.bool(), is_writable: c.bool() } };
  throw new RangeError('invalid extra account');
}

/** An external plugin adapter's config, with the field names the Rust types serialize to. */
function adapterConfig(type: number, c: Cursor): { config: Record<string, unknown>; schema: string } {
  const tag = c.u8();
  if (tag !== type) throw new RangeError(`adapter tag ${tag} differs from its record (${type})`);
  switch (tag) {
    case 0:
    case 3: {
      const hooked_program = c.pubkey();
      const extra_accounts = c.option(() => vec(c, () => extraAccount(c)));
      const data_authority = c.option(() => authority(c));
      const s = schema(c);
      return { config: { hooked_program, extra_accounts, data_authority, schema: s }, schema: s };
    }
    case 1: {
      const base_address = c.pubkey();
      const base_address_config = c.option(() => extraAccount(c));
      const r = c.u8();
      const results_offset = r === 0 ? 'NoOffset' : r === 1 ? 'Anchor' : r === 2 ? { custom: Number(c.u64()) } : null;
      if (results_offset === null) throw new RangeError('invalid results offset');
      return { config: { base_address, base_address_config, results_offset }, schema: 'Binary' };
    }
    case 2:
    case 4: {
      const data_authority = authority(c);
      const s = schema(c);
      return { config: { data_authority, schema: s }, schema: s };
    }
    case 5: {
      const k = c.u8();
      let parent_key: Record<string, unknown>;
      if (k === 0) parent_key = { linked_lifecycle_hook: c.pubkey() };
      else if (k === 1) parent_key = { linked_app_data: authority(c) };
      else throw new RangeError('invalid linked data key');
      const s = schema(c);
      return { config: { parent_key, schema: s }, schema: s };
    }
  }
  throw new RangeError(`unknown adapter type ${tag}`);
}

/** Adapter data as the reference shows it: JSON and MsgPack decoded, binary (or undecodable) as base64. */
function adapterData(schemaName: string, bytes: Buffer): unknown {
  try {
    if (schemaName === 'Json') return JSON.parse(bytes.toString('utf8'));
    if (schemaName === 'MsgPack') return JSON.parse(JSON.stringify(unpack(bytes)));
  } catch {
    if (schemaName === 'Json') return bytes.toString('utf8');
  }
  return bytes.toString('base64');
}
const CHECK_RESULTS = ['CanListen', 'CanApprove', 'CanReject'];

interface Record_ {
  external: boolean;
  type: number;
  authority: PluginAuthority;
  offset: number;
  lifecycleChecks?: [number, number][] | null;
  dataOffset?: number | null;
  dataLen?: number | null;
}

const num = (s: string) => {
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new RangeError('offset out of range');
  return n;
};

/**
 * An MPL Core account: the asset or collection, `'burnt'` for the one-byte (or empty) account
 * a burn leaves, or undefined when the data is neither (hashed assets, groups, garbage).
 */
export function parseCoreAccount(data: Uint8Array): CoreAccount | 'burnt' | undefined {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf.length === 0 || buf[0] === 0) return 'burnt';
  const c = new Cursor(buf);
  try {
    const key = c.u8();
    let base: Omit<
      CoreAccount,
      | 'plugins'
      | 'unknownPlugins'
      | 'externalPlugins'
      | 'unknownExternalPlugins'
      | 'royalties'
      | 'frozen'
      | 'transferDelegate'
    >;
    if (key === KEY_ASSET) {
      const owner = c.pubkey();
      const ua = c.u8();
      let updateAuthority: UpdateAuthority;
      if (ua === 0) updateAuthority = { kind: 'None' };
      else if (ua === 1) updateAuthority = { kind: 'Address', address: c.pubkey() };
      else if (ua === 2) updateAuthority = { kind: 'Collection', address: c.pubkey() };
      else return undefined;
      const name = c.string();
      const uri = c.string();
      c.option(() => c.u64()); // seq
      base = { kind: 'asset', owner, updateAuthority, name, uri, numMinted: null, currentSize: null };
    } else if (key === KEY_COLLECTION) {
      const updateAuthority: UpdateAuthority = { kind: 'Address', address: c.pubkey() };
      const name = c.string();
      const uri = c.string();
      const numMinted = c.u32();
      const currentSize = c.u32();
      base = { kind: 'collection', owner: null, updateAuthority, name, uri, numMinted, currentSize };
    } else {
      return undefined;
    }
    const out: CoreAccount = {
      ...base,
      plugins: {},
      unknownPlugins: [],
      externalPlugins: [],
      unknownExternalPlugins: [],
      royalties: null,
      frozen: false,
      transferDelegate: null,
    };
    if (c.offset < buf.length) readPlugins(buf, c.offset, out);
    return out;
  } catch {
    return undefined;
  }
}

function readPlugins(buf: Buffer, headerAt: number, out: CoreAccount): void {
  const h = new Cursor(buf);
  h.offset = headerAt;
  if (h.u8() !== KEY_PLUGIN_HEADER) throw new RangeError('no plugin header');
  const registryAt = num(h.u64());
  const r = new Cursor(buf);
  r.offset = registryAt;
  if (r.u8() !== KEY_PLUGIN_REGISTRY) throw new RangeError('no plugin registry');
  const records: Record_[] = vec(r, () => ({
    external: false,
    type: r.u8(),
    authority: authority(r),
    offset: num(r.u64()),
  }));
  const external: Record_[] = vec(r, () => ({
    external: true,
    type: r.u8(),
    authority: authority(r),
    lifecycleChecks: r.option(() => vec(r, () => [r.u8(), r.u32()] as [number, number])),
    offset: num(r.u64()),
    dataOffset: r.option(() => num(r.u64())),
    dataLen: r.option(() => num(r.u64())),
  }));
  // Plugins are numbered and sliced in offset order: each ends where the next begins (or, for an
  // external adapter with data, where its data begins), the last at the registry.
  const all = [...records, ...external].sort((a, b) => a.offset - b.offset);
  all.forEach((rec, index) => {
    const end = rec.dataOffset ?? all[index + 1]?.offset ?? registryAt;
    if (end < rec.offset || end > buf.length) throw new RangeError('plugin slice out of range');
    const slice = buf.subarray(rec.offset, end);
    const head = { index, offset: rec.offset, authority: rec.authority };
    if (rec.external) {
      const known = rec.type < ADAPTER_TYPES.length;
      (known ? out.externalPlugins : out.unknownExternalPlugins).push(externalPlugin(buf, rec, slice, head));
      return;
    }
    if (rec.type >= PLUGIN_NAMES.length) {
      out.unknownPlugins.push(
        jsonbOrder({ ...head, type: rec.type, data: slice.toString('base64') }) as Record<string, unknown>,
      );
      return;
    }
    const c = new Cursor(slice);
    const tag = c.u8();
    if (tag !== rec.type) throw new RangeError(`plugin tag ${tag} differs from its record (${rec.type})`);
    const data = pluginData(tag, c);
    out.plugins[PLUGIN_NAMES[tag]!] = { data, ...head };
    if (tag === 0)
      out.royalties = {
        basisPoints: data.basis_points as number,
        creators: data.creators as { address: string; percentage: number }[],
      };
    if (tag === 1) out.frozen = data.frozen as boolean;
    if (tag === 3) out.transferDelegate = rec.authority;
  });
  out.plugins = jsonbOrder(out.plugins) as CoreAccount['plugins'];
}

function externalPlugin(
  buf: Buffer,
  rec: Record_,
  slice: Buffer,
  head: { index: number; offset: number; authority: PluginAuthority },
): Record<string, unknown> {
  const checks: Record<string, string[]> = {};
  const unknownChecks: [number, string[]][] = [];
  for (const [event, flags] of rec.lifecycleChecks ?? []) {
    const results = CHECK_RESULTS.filter((_, bit) => flags & (1 << bit));
    if (event < LIFECYCLE_EVENTS.length) {
      if (results.length) checks[LIFECYCLE_EVENTS[event]!] = results;
    } else unknownChecks.push([event, results]);
  }
  const dataBytes =
    rec.dataOffset != null && rec.dataLen != null
      ? buf.subarray(rec.dataOffset, rec.dataOffset + rec.dataLen)
      : undefined;
  if (dataBytes && dataBytes.length !== rec.dataLen) throw new RangeError('adapter data out of range');
  const dataFields = (data: unknown) =>
    dataBytes !== undefined ? { data_offset: rec.dataOffset, data_len: rec.dataLen, data } : {};
  const common = {
    ...head,
    ...(Object.keys(checks).length ? { lifecycle_checks: checks } : {}),
    ...(unknownChecks.length ? { unknown_lifecycle_checks: unknownChecks } : {}),
  };
  if (rec.type < ADAPTER_TYPES.length) {
    const { config, schema: s } = adapterConfig(rec.type, new Cursor(slice));
    return jsonbOrder({
      ...common,
      type: ADAPTER_TYPES[rec.type],
      adapter_config: config,
      ...dataFields(dataBytes && adapterData(s, dataBytes)),
    }) as Record<string, unknown>;
  }
  return jsonbOrder({
    ...common,
    type: rec.type,
    unknown_adapter_config: slice.toString('base64'),
    ...dataFields(dataBytes?.toString('base64')),
  }) as Record<string, unknown>;
}
