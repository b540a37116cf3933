// simulateBundle on a followed cluster (--cluster-rpc): a scratch ledger that, before each bundle,
// takes the cluster's current copies of every account the bundle may read (getMultipleAccounts at
// the bank's commitment, the lookup tables first), deploys the programs they name from their
// program data (an upgradeable program's ELF, kept while its deploy slot is unchanged), moves its
// clock to the cluster's slot, and learns which of the bundle's blockhashes the cluster still
// accepts and which of its signatures it already processed. Nothing it runs is committed, and
// nothing of it is kept as the cluster's: the next bundle asks again. Bundles take turns (one bank).
import { parseJsonExact, upstreamCall } from '../wire/index.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import type { Ledger } from './ledger.js';
import type { ParsedTransaction } from './tx-wire.js';
import type { StoredAccount } from './store.js';
import type { UiAccount } from './fork.js';

const BATCH = 100;
const UPGRADEABLE_LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const LOADERS = new Set(['BPFLoader2111111111111111111111111111111111', 'BPFLoader1111111111111111111111111111111111']);
/** UpgradeableLoaderState::ProgramData: tag (4), slot (8), authority option (1 + 32); the ELF after. */
const PROGRAM_DATA_HEADER = 45;
const NATIVE_LOADER = 'NativeLoader1111111111111111111111111111111';
const SYSVAR_OWNER = 'Sysvar1111111111111111111111111111111111111';

/** What the cluster says of a bundle beyond its accounts: blockhashes it accepts, signatures it processed. */
export interface ClusterView {
  blockhashValid(hash: Uint8Array): boolean;
  processed(signature: Uint8Array): boolean;
}

export class ClusterBank {
  /** Deployed programs: program id → the deploy slot of the program data it was deployed from. */
  private readonly deployed = new Map<string, bigint>();
  private turn: Promise<unknown> = Promise.resolve();

  private opened: Ledger | undefined;

  /** `open` makes the scratch ledger, on the first bundle: a follower that simulates none never pays for it. */
  constructor(
    private readonly open: () => Ledger,
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  get ledger(): Ledger {
    return (this.opened ??= this.open());
  }

  /** Closes the scratch ledger if a bundle opened it. */
  async close(): Promise<void> {
    await this.opened?.close();
  }

  /** Runs `fn` on the bank once it holds the cluster's state for these transactions; bundles take turns. */
  run<T>(
    txs: readonly ParsedTransaction[],
    requested: readonly Uint8Array[],
    commitment: 'processed' | 'confirmed' | 'finalized',
    fn: (view: ClusterView) => T,
  ): Promise<T> {
    const go = async () => fn(await this.load(txs, requested, commitment));
    const r = this.turn.then(go, go);
    this.turn = r.catch(() => undefined);
    return r;
  }

  private call<T>(method: string, params: unknown[]): Promise<T> {
    return upstreamCall(this.url, method, params, this.timeoutMs, parseJsonExact) as Promise<T>;
  }

  /** The cluster's accounts for `keys` (null where it has none), and the slot it read them at. */
  private async accounts(
    keys: readonly Uint8Array[],
    commitment: string,
  ): Promise<{ slot: bigint; list: (UiAccount | null)[] }> {
    const list: (UiAccount | null)[] = [];
    let slot = 0n;
    for (let i = 0; i < keys.length; i += BATCH) {
      const r = await this.call<{ context: { slot: number | bigint }; value: (UiAccount | null)[] }>(
        'getMultipleAccounts',
        [keys.slice(i, i + BATCH).map(encodeBase58), { encoding: 'base64', commitment }],
      );
      slot = BigInt(r.context.slot) > slot ? BigInt(r.context.slot) : slot;
      list.push(...r.value);
    }
    return { slot, list };
  }

  private async load(
    txs: readonly ParsedTransaction[],
    requested: readonly Uint8Array[],
    commitment: 'processed' | 'confirmed' | 'finalized',
  ): Promise<ClusterView> {
    // Lookup tables first: the keys they hold are the bundle's too.
    const tables = unique(txs.flatMap((tx) => tx.lookups.map((l) => l.table)));
    await this.store(tables, (await this.accounts(tables, commitment)).list);
    const keys = unique([...txs.flatMap((tx) => this.ledger.accountKeys(tx).keys), ...requested]);
    const { slot, list } = await this.accounts(keys, commitment);
    await this.store(keys, list);
    if (slot > this.ledger.slot) this.ledger.travel(slot, Date.now());
    const hashes = unique(txs.map((tx) => tx.recentBlockhash));
    const valid = new Set<string>();
    for (const h of hashes) {
      const r = await this.call<{ value: boolean }>('isBlockhashValid', [encodeBase58(h), { commitment: 'processed' }]);
      if (r.value === true) valid.add(encodeBase58(h));
    }
    const sigs = txs.map((tx) => encodeBase58(tx.signatures[0]!));
    const statuses = await this.call<{ value: (object | null)[] }>('getSignatureStatuses', [
      sigs,
      { searchTransactionHistory: false },
    ]);
    const processed = new Set(sigs.filter((_, i) => statuses.value[i] !== null && statuses.value[i] !== undefined));
    return {
      blockhashValid: (h) => valid.has(encodeBase58(h)),
      processed: (s) => processed.has(encodeBase58(s)),
    };
  }

  /** Writes the cluster's copies into the bank; programs are deployed from their ELF instead. */
  private async store(keys: readonly Uint8Array[], list: readonly (UiAccount | null)[]): Promise<void> {
    const plain: { pubkey: Uint8Array; account: StoredAccount | undefined }[] = [];
    const programs: { id: string; dataKey: string }[] = [];
    keys.forEach((pubkey, i) => {
      const a = list[i];
      if (!a) return plain.push({ pubkey, account: undefined });
      // Builtins and sysvars are the bank's own.
      if (a.owner === NATIVE_LOADER || a.owner === SYSVAR_OWNER) return;
      const data = Buffer.from(a.data[0], 'base64');
      if (a.executable && a.owner === UPGRADEABLE_LOADER && data.length >= 36 && data.readUInt32LE(0) === 2) {
        programs.push({ id: encodeBase58(pubkey), dataKey: encodeBase58(data.subarray(4, 36)) });
        return;
      }
      if (a.executable && LOADERS.has(a.owner)) {
        this.ledger.deployProgram(pubkey, data);
        return;
      }
      plain.push({
        pubkey,
        account: {
          lamports: BigInt(a.lamports),
          data: new Uint8Array(data),
          owner: decodeBase58(a.owner),
          executable: a.executable,
          rentEpoch: BigInt(a.rentEpoch),
        },
      });
    });
    this.ledger.writeAccounts(plain);
    if (programs.length === 0) return;
    // An upgradeable program: its deploy slot first (a header), the whole ELF only when it changed.
    const headers = await Promise.all(
      programs.map((p) =>
        this.call<{ value: UiAccount | null }>('getAccountInfo', [
          p.dataKey,
          { encoding: 'base64', dataSlice: { offset: 0, length: PROGRAM_DATA_HEADER } },
        ]),
      ),
    );
    for (const [i, p] of programs.entries()) {
      const header = headers[i]!.value;
      if (!header) continue;
      const slot = Buffer.from(header.data[0], 'base64').readBigUInt64LE(4);
      if (this.deployed.get(p.id) === slot) continue;
      const full = await this.call<{ value: UiAccount | null }>('getAccountInfo', [p.dataKey, { encoding: 'base64' }]);
      if (!full.value) continue;
      this.ledger.deployProgram(
        decodeBase58(p.id),
        Buffer.from(full.value.data[0], 'base64').subarray(PROGRAM_DATA_HEADER),
      );
      this.deployed.set(p.id, slot);
    }
  }
}

function unique(keys: readonly Uint8Array[]): Uint8Array[] {
  const seen = new Map<string, Uint8Array>();
  for (const k of keys) seen.set(Buffer.from(k).toString('hex'), k);
  return [...seen.values()];
}
