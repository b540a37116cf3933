// Accounts and programs the ledger starts with: account files in solana-test-validator's
// `--account` JSON format, `--program ID=FILE.so`, and Light Protocol's localnet (its programs and
// genesis accounts as the npm package @lightprotocol/zk-compression-cli ships them).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { AppError } from '../errors.js';
import { parseJsonExact } from '../wire/index.js';
import { decodeBase58 } from '../zk/base58.js';
import { LIGHT_IDS } from './light-ids.js';
import type { StoredAccount } from './store.js';

export class FixtureError extends AppError {
  readonly kind = 'fixture';
}

export interface AccountFixture {
  pubkey: Uint8Array;
  account: StoredAccount;
  file: string;
}

export interface ProgramFixture {
  id: Uint8Array;
  bytes: Uint8Array;
  file: string;
}

function key(s: unknown, what: string, file: string): Uint8Array {
  let b: Uint8Array | undefined;
  try {
    b = typeof s === 'string' ? decodeBase58(s) : undefined;
  } catch {
    b = undefined;
  }
  if (!b || b.length !== 32)
    throw new FixtureError(`${file}: ${what} is not a base58 public key: ${JSON.stringify(s)}`);
  return b;
}

/** One `solana account --output json` / `--account` file. */
export function readAccountFile(file: string): AccountFixture {
  let j: {
    pubkey?: unknown;
    account?: { lamports?: unknown; data?: unknown; owner?: unknown; executable?: unknown; rentEpoch?: unknown };
  };
  try {
    // u64 values (rentEpoch u64::MAX on rent-exempt accounts, large lamports) must stay exact.
    j = parseJsonExact(readFileSync(file, 'utf8')) as typeof j;
  } catch (e) {
    throw new FixtureError(`${file}: not a JSON account file (${(e as Error).message})`);
  }
  const a = j.account;
  if (!a || typeof a !== 'object') throw new FixtureError(`${file}: missing "account"`);
  const data = a.data;
  if (!Array.isArray(data) || typeof data[0] !== 'string' || data[1] !== 'base64')
    throw new FixtureError(`${file}: "account.data" must be ["<base64>", "base64"]`);
  const int = (v: unknown, what: string) => {
    if (typeof v === 'bigint' && v >= 0n) return v;
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
    if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
    throw new FixtureError(`${file}: "account.${what}" must be a non-negative integer`);
  };
  return {
    file,
    pubkey: key(j.pubkey, '"pubkey"', file),
    account: {
      lamports: int(a.lamports, 'lamports'),
      data: new Uint8Array(Buffer.from(data[0], 'base64')),
      owner: key(a.owner, '"account.owner"', file),
      executable: a.executable === true,
      rentEpoch: a.rentEpoch === undefined ? 0n : int(a.rentEpoch, 'rentEpoch'),
    },
  };
}

export function readAccountDir(dir: string): AccountFixture[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch (e) {
    throw new FixtureError(`cannot read account dir ${dir}: ${(e as Error).message}`);
  }
  return files.sort().map((f) => readAccountFile(join(dir, f)));
}

/** `ID=FILE.so` */
export function readProgramSpec(spec: string): ProgramFixture {
  const i = spec.indexOf('=');
  if (i < 0) throw new FixtureError(`--program ${spec}: expected PROGRAM_ID=FILE.so`);
  const file = spec.slice(i + 1);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new FixtureError(`--program ${spec}: cannot read ${file} (${(e as Error).message})`);
  }
  return { id: key(spec.slice(0, i), 'the program id', `--program ${spec}`), bytes, file };
}

/** The root of the installed @lightprotocol/zk-compression-cli (zkgate's Light localnet). */
export const installedLightPackage = (): string =>
  dirname(createRequire(import.meta.url).resolve('@lightprotocol/zk-compression-cli/package.json'));

// Light's programs and their files, for a package without the CLI's own table (its bin/ and
// accounts/ alone): the ids are the same in every release (LIGHT_IDS).
const LIGHT_PROGRAM_FILES: [keyof typeof LIGHT_IDS, string][] = [
  ['system', 'light_system_program_pinocchio.so'],
  ['compressedToken', 'light_compressed_token.so'],
  ['accountCompression', 'account_compression.so'],
  ['noop', 'spl_noop.so'],
  ['registry', 'light_registry.so'],
];

/**
 * Light's localnet: its programs (ids as the CLI loads them) and genesis accounts, from the
 * installed CLI package or another release's (`--light-package`: a directory with its bin/ and
 * accounts/).
 */
export function lightLocalnet(root = installedLightPackage()): {
  programs: ProgramFixture[];
  accounts: AccountFixture[];
} {
  // The CLI's own table of programs it loads with --bpf-program (id and file name), where shipped.
  const tableFile = join(root, 'dist/utils/initTestEnv.js');
  const table = existsSync(tableFile)
    ? [...readFileSync(tableFile, 'utf8').matchAll(/id:\s*"(\w+)",\s*name:\s*"([\w.-]+\.so)"/g)].map(
        ([, id, name]) => [id!, name!] as const,
      )
    : LIGHT_PROGRAM_FILES.map(([id, name]) => [LIGHT_IDS[id], name] as const);
  const programs = table.map(([id, name]) => {
    const file = join(root, 'bin', name);
    if (!existsSync(file)) throw new FixtureError(`Light's program ${name} is not in ${join(root, 'bin')}`);
    return { id: key(id, 'program id', 'initTestEnv.js'), bytes: new Uint8Array(readFileSync(file)), file: name };
  });
  if (programs.length === 0) throw new FixtureError(`no Light programs found in ${root}`);
  const seen = new Set<string>();
  const accounts = readAccountDir(join(root, 'accounts')).filter((a) => {
    const id = Buffer.from(a.pubkey).toString('hex');
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  return { programs, accounts };
}
