// The asset index: Token Metadata, mints and token accounts parsed from every ledger account write,
// kept in tables of the ledger's own LMDB store and updated inside the same transaction as the
// account (so an account change is visible to getAsset within the same slot, and a crash can never
// leave the index and the accounts disagreeing).
import type { Database, RootDatabase } from 'lmdb';
import type { AccountIndexer, StoredAccount } from '../ledger/index.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import { parseMintExtensions, type Token2022Metadata } from './token-2022.js';
import { findProgramAddress } from '../zk/pda.js';
import { INSCRIPTIONS_PROGRAM, parseInscription, type Inscription } from './inscriptions.js';
import { MPL_CORE_PROGRAM, parseCoreAccount, type CoreAccount } from './mpl-core.js';
import { AssetLists } from './asset-lists.js';
import {
  parseEdition,
  parseMetadata,
  parseTokenProgramAccount,
  TOKEN_2022_PROGRAM,
  TOKEN_METADATA_PROGRAM,
  TOKEN_PROGRAM,
  type EditionAccount,
  type Metadata,
  type Mint,
  type TokenAccount,
} from './layouts.js';

// 2: tables in lmdb's default msgpack encoding (faster reads than JSON); 3: editions; 4: MPL Core
// and inscriptions; 5: the list indexes (asset-lists.ts) and first-seen slots.
const VERSION = 6;

const TM_BYTES = decodeBase58(TOKEN_METADATA_PROGRAM);
const editionPda = (mint: string) =>
  findProgramAddress(
    [Buffer.from('metadata'), TM_BYTES, decodeBase58(mint), Buffer.from('edition')],
    TOKEN_METADATA_PROGRAM,
  );

export interface MetadataRecord {
  metadata: Metadata;
  /** The Metadata account's address. */
  account: string;
  burnt: boolean;
  slot: string;
  /** The slot the asset was first indexed in (sortBy created). */
  created?: string;
}

export interface MintRecord extends Mint {
  closed: boolean;
  slot: string;
  /** Token-2022: parsed extensions, and the token-metadata extension when there is one. */
  extensions?: Record<string, unknown>;
  tokenMetadata?: Token2022Metadata;
}

export interface HolderRecord extends TokenAccount {
  account: string;
  slot: string;
}

export interface CoreRecord {
  core: CoreAccount;
  burnt: boolean;
  slot: string;
  created?: string;
}

export class AssetIndex implements AccountIndexer {
  private readonly metadata: Database<MetadataRecord, string>;
  private readonly metadataAccounts: Database<string, string>;
  private readonly mints: Database<MintRecord, string>;
  private readonly tokenAccounts: Database<TokenAccount, string>;
  /** `${mint}/${tokenAccount}` → holder, for balances above zero only. */
  private readonly holders: Database<HolderRecord, string>;
  private readonly meta: Database<unknown, string>;
  /** Edition PDA → master edition or print edition. */
  private readonly editions: Database<EditionAccount, string>;
  private readonly editionPdas = new Map<string, string>();
  /** Mint → its current holder (null: none), dropped whenever one of the mint's token accounts changes. */
  private readonly holderOf = new Map<string, HolderRecord | null>();
  private readonly core: Database<CoreRecord, string>;
  /** Root mint → its inscription, and inscription account → root mint. */
  private readonly inscriptions: Database<Inscription, string>;
  private readonly inscriptionAccounts: Database<string, string>;
  /** Owner, creator, authority and collection → assets. */
  readonly lists: AssetLists;

  /** Told of every metadata URI the index sees (the off-chain JSON fetcher). */
  onUri?: (uri: string) => void;

  constructor(root: RootDatabase) {
    this.metadata = root.openDB<MetadataRecord, string>({ name: 'das-metadata-v2', cache: true });
    this.metadataAccounts = root.openDB<string, string>({ name: 'das-metadata-accounts-v2' });
    this.mints = root.openDB<MintRecord, string>({ name: 'das-mints-v2', cache: true });
    this.tokenAccounts = root.openDB<TokenAccount, string>({ name: 'das-token-accounts-v2' });
    this.holders = root.openDB<HolderRecord, string>({ name: 'das-holders-v2' });
    this.meta = root.openDB<unknown, string>({ name: 'das-meta', encoding: 'json', cache: true });
    this.editions = root.openDB<EditionAccount, string>({ name: 'das-editions-v2', cache: true });
    this.core = root.openDB<CoreRecord, string>({ name: 'das-core-v1', cache: true });
    this.inscriptions = root.openDB<Inscription, string>({ name: 'das-inscriptions-v1', cache: true });
    this.inscriptionAccounts = root.openDB<string, string>({ name: 'das-inscription-accounts-v1' });
    this.lists = new AssetLists(root, (id) => {
      const created = this.metadata.get(id)?.created ?? this.core.get(id)?.created;
      return created === undefined ? undefined : BigInt(created);
    });
  }

  needsBackfill(): boolean {
    return this.meta.get('version') !== VERSION;
  }

  markBackfilled(slot: bigint): void {
    this.meta.put('version', VERSION);
    this.meta.put('last-slot', slot.toString());
  }

  /** The last slot whose account changes are all in the index. */
  lastIndexedSlot(): bigint {
    return BigInt((this.meta.get('last-slot') as string | undefined) ?? '0');
  }

  apply(pubkey: Uint8Array, account: StoredAccount | undefined, slot: bigint): void {
    const id = encodeBase58(pubkey);
    const at = slot.toString();
    this.meta.put('last-slot', at);
    this.lists.slot = slot;
    // Whatever the address was before, an old token account stops being one.
    const oldToken = this.tokenAccounts.get(id);
    if (oldToken) {
      this.lists.tokenAccount(id, oldToken, undefined);
      this.holderOf.delete(oldToken.mint);
      this.holders.remove(`${oldToken.mint}/${id}`);
      this.tokenAccounts.remove(id);
    }
    if (!account) {
      const mint = this.metadataAccounts.get(id);
      const rec = mint ? this.metadata.get(mint) : undefined;
      if (rec && !rec.burnt) this.lists.metadata(rec.metadata, undefined);
      if (rec) this.metadata.put(mint!, { ...rec, burnt: true, slot: at });
      const m = this.mints.get(id);
      if (m) this.mints.put(id, { ...m, closed: true, slot: at });
      this.lists.print(id, this.editions.get(id), undefined);
      this.editions.remove(id);
      this.burnCore(id, at);
      this.removeInscription(id);
      return;
    }
    const owner = encodeBase58(account.owner);
    if (owner === MPL_CORE_PROGRAM) {
      const core = parseCoreAccount(account.data);
      if (core === 'burnt') this.burnCore(id, at);
      else if (core) {
        const prev = this.core.get(id);
        this.lists.core(id, prev && !prev.burnt ? prev.core : undefined, core);
        if (core.kind === 'asset') this.lists.known(id);
        this.core.put(id, { core, burnt: false, slot: at, created: prev?.created ?? at });
        if (core.uri.trim()) this.onUri?.(core.uri.replace(/\0/g, '').trim());
      }
      return;
    }
    if (owner === INSCRIPTIONS_PROGRAM) {
      const inscription = parseInscription(account.data);
      if (inscription) {
        this.removeInscription(id);
        this.inscriptions.put(inscription.root, inscription);
        this.inscriptionAccounts.put(id, inscription.root);
      }
      return;
    }
    if (owner === TOKEN_METADATA_PROGRAM) {
      const edition = parseEdition(account.data);
      if (edition) {
        this.lists.print(id, this.editions.get(id), edition);
        this.editions.put(id, edition);
        return;
      }
      const md = parseMetadata(account.data);
      if (md) {
        const prev = this.metadata.get(md.mint);
        const listed = this.listed(md.mint);
        // The previous record's entries go whatever the supply (removing what is absent is a no-op).
        this.lists.metadata(prev && !prev.burnt ? prev.metadata : undefined, listed ? md : undefined);
        this.lists.editionMint(this.editionPdaOf(md.mint), md.mint);
        this.lists.known(md.mint);
        this.metadata.put(md.mint, { metadata: md, account: id, burnt: false, slot: at, created: prev?.created ?? at });
        this.metadataAccounts.put(id, md.mint);
        if (md.uri) this.onUri?.(md.uri);
      }
      return;
    }
    if (owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM) {
      const parsed = parseTokenProgramAccount(account.data, owner);
      if (!parsed) return;
      if ('mint' in parsed) {
        this.lists.known(id);
        // Supply down to 0 (an SPL burn) or back: the reference lists only assets with a supply.
        const md = this.metadata.get(id);
        const [was, is] = [this.listed(id), BigInt(parsed.mint.supply) > 0n];
        if (md && !md.burnt && was !== is)
          this.lists.metadata(was ? md.metadata : undefined, is ? md.metadata : undefined);
        const ext = owner === TOKEN_2022_PROGRAM ? parseMintExtensions(account.data) : undefined;
        this.mints.put(id, {
          ...parsed.mint,
          closed: false,
          slot: at,
          ...(ext ? { extensions: ext.extensions } : {}),
          ...(ext?.metadata ? { tokenMetadata: ext.metadata } : {}),
        });
        if (ext?.metadata?.uri) this.onUri?.(ext.metadata.uri.trim());
      } else {
        this.tokenAccounts.put(id, parsed.account);
        this.lists.tokenAccount(id, undefined, parsed.account);
        this.holderOf.delete(parsed.account.mint);
        if (BigInt(parsed.account.amount) > 0n)
          this.holders.put(`${parsed.account.mint}/${id}`, { ...parsed.account, account: id, slot: at });
      }
    }
  }

  /**
   * Whether a Token Metadata asset is in the creator, authority and collection lists: unless its
   * mint is known with no supply (getAsset's "Asset has no supply").
   */
  private listed(mint: string): boolean {
    const m = this.mints.get(mint);
    return m === undefined || BigInt(m.supply) > 0n;
  }

  private burnCore(id: string, at: string): void {
    const rec = this.core.get(id);
    if (rec && !rec.burnt) {
      this.lists.core(id, rec.core, undefined);
      this.core.put(id, { ...rec, burnt: true, slot: at });
    }
  }

  private removeInscription(account: string): void {
    const root = this.inscriptionAccounts.get(account);
    if (root === undefined) return;
    this.inscriptions.remove(root);
    this.inscriptionAccounts.remove(account);
  }

  coreOf(id: string): CoreRecord | undefined {
    return this.core.get(id);
  }

  inscriptionOf(mint: string): Inscription | undefined {
    return this.inscriptions.get(mint);
  }

  metadataOf(mint: string): MetadataRecord | undefined {
    return this.metadata.get(mint);
  }

  /**
   * The mint's master edition or print edition. Its address is a PDA of the mint; deriving one
   * costs a few hundred µs (curve checks), so it is derived on first use and remembered.
   */
  editionOf(mint: string): EditionAccount | undefined {
    return this.editions.get(this.editionPdaOf(mint));
  }

  /** The address of a mint's (master or print) Edition account. */
  editionPdaOf(mint: string): string {
    let pda = this.editionPdas.get(mint);
    if (!pda) {
      pda = editionPda(mint);
      if (this.editionPdas.size >= 100_000) this.editionPdas.clear();
      this.editionPdas.set(mint, pda);
    }
    return pda;
  }

  /** A token account's record. */
  tokenAccount(address: string): TokenAccount | undefined {
    return this.tokenAccounts.get(address);
  }

  /** An Edition account's record, by its address. */
  edition(address: string): EditionAccount | undefined {
    return this.editions.get(address);
  }

  mint(mint: string): MintRecord | undefined {
    return this.mints.get(mint);
  }

  /** The token account holding a non-zero balance of the mint, the most recently updated first. */
  holder(mint: string): HolderRecord | undefined {
    const cached = this.holderOf.get(mint);
    if (cached !== undefined) return cached ?? undefined;
    let best: HolderRecord | undefined;
    for (const { value } of this.holders.getRange({ start: `${mint}/`, end: `${mint}0` })) {
      if (!best || BigInt(value.slot) >= BigInt(best.slot)) best = value;
    }
    if (this.holderOf.size >= 100_000) this.holderOf.clear();
    this.holderOf.set(mint, best ?? null);
    return best;
  }
}
