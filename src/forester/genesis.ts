// zkgate's forester in the ledger's genesis. Light's localnet genesis registers one forester (its
// public test key) with the registry: a ForesterPda with weight 1 and a finalized registration for
// epoch 0. zkgate owns its ledger's genesis, so it registers its own forester key the same way:
// the same two accounts, with zkgate's key as their authority, at the addresses derived from it,
// and a funded account to pay the forester's fees. Later epochs it registers for itself.
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError } from '../errors.js';
import { genesisAccountsDir, readAccountFile, type AccountFixture, type StoredAccount } from '../ledger/index.js';
import { SYSTEM_PROGRAM } from '../ledger/ledger.js';
import { generateKeypair, keypairFromSecret, type Keypair } from '../ledger/tx-build.js';
import { writeFileAtomicSync } from '../util/atomic-file.js';
import { registryPdas } from './registry.js';

export class ForesterKeyError extends AppError {
  readonly kind = 'forester_key';
}

/** What the forester's key holds at genesis: enough for years of fees on a dev chain. */
export const FORESTER_GENESIS_LAMPORTS = 1_000_000_000_000n;
const AUTHORITY = 8;

function genesisFile(dir: string, prefix: string): AccountFixture {
  const file = readdirSync(dir).find((f) => f.startsWith(prefix) && f.endsWith('.json'));
  if (!file) throw new ForesterKeyError(`Light's genesis has no ${prefix}*.json in ${dir}`);
  return readAccountFile(join(dir, file));
}

/** The genesis accounts registering `authority` as a forester with the registry (epoch 0 finalized). */
export function foresterGenesisAccounts(authority: Uint8Array, dir = genesisAccountsDir()): AccountFixture[] {
  const withAuthority = (g: AccountFixture, pubkey: Uint8Array): AccountFixture => {
    const data = new Uint8Array(g.account.data);
    data.set(authority, AUTHORITY);
    return { pubkey, file: g.file, account: { ...g.account, data } };
  };
  const forester = registryPdas.forester(authority);
  return [
    withAuthority(genesisFile(dir, 'registered_forester_pda_'), forester),
    withAuthority(genesisFile(dir, 'forester_epoch_pda_'), registryPdas.foresterEpoch(forester, 0n)),
    {
      pubkey: authority,
      file: 'zkgate forester',
      account: {
        lamports: FORESTER_GENESIS_LAMPORTS,
        data: new Uint8Array(0),
        owner: SYSTEM_PROGRAM,
        executable: false,
        rentEpoch: 0n,
      },
    },
  ];
}

/** Reads a keypair file (Solana CLI format: a JSON array of 64 bytes), creating one when `create` and absent. */
export function loadForesterKeypair(path: string, create: boolean): Keypair {
  if (!existsSync(path)) {
    if (!create) throw new ForesterKeyError(`forester keypair ${path} does not exist`);
    const kp = generateKeypair();
    mkdirSync(dirname(path), { recursive: true });
    writeFileAtomicSync(path, JSON.stringify([...kp.secretKey]) + '\n', 0o600);
    return kp;
  }
  let bytes: unknown;
  try {
    bytes = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ForesterKeyError(`forester keypair ${path} is not JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(bytes) || bytes.length !== 64 || !bytes.every((b) => Number.isInteger(b) && b >= 0 && b < 256))
    throw new ForesterKeyError(`forester keypair ${path} must be a JSON array of 64 bytes (solana-keygen's format)`);
  try {
    return keypairFromSecret(Uint8Array.from(bytes as number[]));
  } catch (e) {
    throw new ForesterKeyError(`forester keypair ${path}: ${(e as Error).message}`);
  }
}

/** ProtocolConfigPda: genesis_slot and registration_phase_length (8 disc, 32 authority, 1 bump, config). */
const CONFIG = { genesisSlot: 41, registration: 65 };
/** ForesterEpochPda: epoch_active_phase_start_slot and its copy of the config; EpochPda's copy. */
const FORESTER_EPOCH = { start: 81, configGenesis: 98 };
const EPOCH_CONFIG_GENESIS = 16;

/**
 * Light's genesis starts the registry's epochs at slot 0, where a fresh solana-test-validator
 * starts; zkgate's ledger starts at another slot, so on a ledger's first start the epochs are moved
 * to begin with it: epoch 0 (in which the genesis registers the foresters) is active from the
 * ledger's first slot, so the forester works from the start. Returns whether it moved them.
 */
export function alignRegistryEpochs(
  ledger: {
    slot: bigint;
    getAccount(k: Uint8Array): StoredAccount | undefined;
    writeAccount(k: Uint8Array, a: StoredAccount): void;
  },
  authority: Uint8Array,
): boolean {
  const cfg = ledger.getAccount(registryPdas.protocolConfig);
  if (!cfg) return false;
  const data = Buffer.from(cfg.data);
  if (data.readBigUInt64LE(CONFIG.genesisSlot) !== 0n) return false;
  const registration = data.readBigUInt64LE(CONFIG.registration);
  const genesis = ledger.slot > registration ? ledger.slot - registration : 0n;
  if (genesis === 0n) return false;
  data.writeBigUInt64LE(genesis, CONFIG.genesisSlot);
  ledger.writeAccount(registryPdas.protocolConfig, { ...cfg, data: new Uint8Array(data) });
  // The epoch accounts carry copies of the config: the registry checks the phase against them.
  const patch = (pda: Uint8Array, fields: [offset: number, value: bigint][]) => {
    const a = ledger.getAccount(pda);
    if (!a) return;
    const d = Buffer.from(a.data);
    for (const [offset, value] of fields) d.writeBigUInt64LE(value, offset);
    ledger.writeAccount(pda, { ...a, data: new Uint8Array(d) });
  };
  patch(registryPdas.foresterEpoch(registryPdas.forester(authority), 0n), [
    [FORESTER_EPOCH.start, genesis + registration],
    [FORESTER_EPOCH.configGenesis, genesis],
  ]);
  patch(registryPdas.epoch(0n), [[EPOCH_CONFIG_GENESIS, genesis]]);
  return true;
}
