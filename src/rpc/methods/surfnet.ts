// Surfpool's cheatcodes (`surfnet_*`) on the embedded ledger, with Surfpool's names, positional
// params and result shapes, so test scripts written against Surfpool run unchanged. Served are the
// ones that act on local state; Surfpool's profiler, IDL registry, scenarios, snapshot export,
// remote-stream and offline controls, network reset, chunked program writes and cheatcode gating
// are not (they stay "method not found"). Writes go through Ledger.writeAccounts: the store, the
// indexes and PubSub see one committed change. Caller mistakes are -32602 where Surfpool has -32603.
import type { ForkSource, Ledger, StoredAccount } from '../../ledger/index.js';
import {
  LIGHT_IDS,
  SLOT_MS,
  SLOTS_PER_EPOCH,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
} from '../../ledger/index.js';
import { decodeBase58, encodeBase58 } from '../../zk/base58.js';
import { InvalidParamsError } from '../errors.js';
import { u64 } from '../../wire/index.js';
import { describe } from '../validate.js';
import type { SupplyOverride } from './solana-cluster.js';
import { args, invalid, pubkey, raw, sameBytes } from './solana-params.js';
import {
  associatedTokenAddress,
  isProgramData,
  isTokenAccountOf,
  nativeReserve,
  NATIVE_MINT,
  newTokenAccountData,
  patchTokenAccount,
  programAccountData,
  programDataAddress,
  tokenAmount,
  TOKEN_ACCOUNT_LEN,
  TOKEN_STATES,
  withUpgradeAuthority,
  type KeySetting,
  type TokenAccountUpdate,
  type TokenState,
} from './surfnet-layouts.js';
import { defineMethod, type MethodDef } from './types.js';
import { show, U64_MAX } from '../validate.js';

const MAX_ACCOUNT_DATA = 10 * 1024 * 1024;
/** Past this a JS Date (and the Clock's i64 seconds) cannot follow. */
const MAX_TIME_MS = 8.64e15;
const HOUR_MS = 3_600_000;
const MAX_LOCAL_SIGNATURES = 1000;
const TRAVELS = ['absoluteEpoch', 'absoluteSlot', 'absoluteTimestamp'] as const;

const SURFNET_READS = new Set(['surfnet_getLocalSignatures', 'surfnet_getSurfnetInfo']);

const ACCOUNT_COMPRESSION = decodeBase58(LIGHT_IDS.accountCompression);
const LIGHT_PROGRAM_IDS = [
  LIGHT_IDS.system,
  LIGHT_IDS.accountCompression,
  LIGHT_IDS.registry,
  LIGHT_IDS.compressedToken,
].map(decodeBase58);

/** A cheatcode's trailing `{"force": true}` (zkgate's): write Light's own accounts anyway. */
function forced(options: unknown): boolean {
  if (!given(options)) return false;
  const o = fields(options, 'options', ['force']);
  return given(o.force) && bool(o.force, 'force');
}

/** Serde's Option: null is absent. */
const given = (v: unknown) => v !== undefined && v !== null;

/** A u64: exact up to 2^53 as a JSON number; JSON.parse reads u64::MAX (a usual rentEpoch) as 2^64. */
function u64Param(v: unknown, what: string): bigint {
  if (typeof v === 'bigint' && v >= 0n && v <= U64_MAX) return v;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) {
    if (Number.isSafeInteger(v)) return BigInt(v);
    if (v === 2 ** 64) return U64_MAX;
    throw invalid(`${what}: ${v} is beyond 2^53, where a JSON number is not exact (u64::MAX is accepted)`);
  }
  throw invalid(`${what}: expected a u64 integer, got ${describe(v)}`);
}

function bool(v: unknown, what: string): boolean {
  if (typeof v !== 'boolean') throw invalid(`${what}: expected a boolean, got ${describe(v)}`);
  return v;
}

/** An object param; unknown keys are refused (serde would drop a misspelt one silently). */
function fields(v: unknown, what: string, known: readonly string[]): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw invalid(`${what}: expected an object, got ${describe(v)}`);
  for (const k of Object.keys(v))
    if (!known.includes(k)) throw invalid(`${what}: unknown field ${show(k)}, expected one of ${known.join(', ')}`);
  return v as Record<string, unknown>;
}

/** Surfpool's account data: a hex string. */
function hexData(v: unknown): Uint8Array {
  if (typeof v !== 'string') throw invalid(`data: expected a hex string, got ${describe(v)}`);
  const bad = v.search(/[^0-9a-fA-F]/);
  if (bad >= 0) throw invalid(`data: invalid hex character ${show(v[bad])} at position ${bad}`);
  if (v.length % 2 !== 0) throw invalid('data: invalid hex, odd number of digits');
  if (v.length / 2 > MAX_ACCOUNT_DATA) throw invalid(`data: ${v.length / 2} bytes, at most ${MAX_ACCOUNT_DATA}`);
  return new Uint8Array(Buffer.from(v, 'hex'));
}

/** SetSomeAccount: a pubkey sets, the string "null" clears. */
const keySetting = (v: unknown, what: string): KeySetting =>
  !given(v) ? undefined : v === 'null' ? null : pubkey(v, what);

function tokenUpdate(v: unknown): TokenAccountUpdate {
  const u = fields(v, 'update', ['amount', 'delegate', 'state', 'delegatedAmount', 'closeAuthority']);
  if (given(u.state) && !Object.hasOwn(TOKEN_STATES, u.state as string))
    throw invalid(`state: expected one of ${Object.keys(TOKEN_STATES).join(', ')}, got ${describe(u.state)}`);
  return {
    ...(given(u.amount) ? { amount: u64Param(u.amount, 'amount') } : {}),
    delegate: keySetting(u.delegate, 'delegate'),
    ...(given(u.state) ? { state: u.state as TokenState } : {}),
    ...(given(u.delegatedAmount) ? { delegatedAmount: u64Param(u.delegatedAmount, 'delegatedAmount') } : {}),
    closeAuthority: keySetting(u.closeAuthority, 'closeAuthority'),
  };
}

const programError = (id: Uint8Array, why: string) =>
  new InvalidParamsError(`Invalid program account ${encodeBase58(id)}: ${why}`);

export function surfnetMethods(
  ledger: Ledger,
  apiVersion: string,
  fork: ForkSource | undefined,
  supply: SupplyOverride,
): MethodDef[] {
  // Every cheatcode but the two reads changes the chain for every caller: admin only.
  const m = (name: string, call: (p: unknown[]) => unknown, largeStrings = false) =>
    defineMethod({ name, params: raw, call, largeStrings, admin: !SURFNET_READS.has(name) });
  /** Fork mode: what a cheatcode patches is fetched first, as Surfpool reads through its remote. */
  const need = async (keys: Uint8Array[]) => fork?.ensure(keys);
  const done = () => ({ context: { slot: u64(ledger.slot), apiVersion }, value: null });
  /** What a write would touch of Light's own (its programs, their program data, its trees and queues), if anything. */
  const lightPart = (k: Uint8Array, next: StoredAccount | undefined): string | undefined => {
    for (const id of LIGHT_PROGRAM_IDS) {
      if (sameBytes(id, k)) return "Light's program";
      const program = ledger.getAccount(id);
      const data = program?.executable ? programDataAddress(program) : undefined;
      if (data && sameBytes(data, k)) return "a Light program's program data";
    }
    const owner = ledger.getAccount(k)?.owner;
    if ((owner && sameBytes(owner, ACCOUNT_COMPRESSION)) || (next && sameBytes(next.owner, ACCOUNT_COMPRESSION)))
      return "one of Light's trees and queues (account-compression's)";
    return undefined;
  };
  /**
   * Writes a cheatcode's accounts. Light's own are refused unless forced: a tree or queue written
   * by hand is one the gateway's indexer and forester cannot follow.
   */
  const write = (
    list: { pubkey: Uint8Array; account: StoredAccount | undefined }[],
    guard: { method: string; force: boolean },
  ) => {
    if (!guard.force)
      for (const { pubkey: k, account } of list) {
        const part = lightPart(k, account);
        if (part)
          throw invalid(
            `${guard.method} would change ${encodeBase58(k)}, ${part}: refused, as the gateway could no longer index Light's state; pass {"force": true} as the last param to write it anyway`,
          );
      }
    try {
      ledger.writeAccounts(list);
    } catch (e) {
      // The VM loads an executable account as it is set, and refuses one it cannot load.
      const msg = (e as Error)?.message ?? '';
      if (!msg.startsWith('Failed to set account')) throw e;
      throw invalid(`the VM refuses account ${list.map((a) => encodeBase58(a.pubkey)).join(', ')}: ${msg}`);
    }
  };
  const epochInfo = () => {
    const slot = ledger.slot;
    return {
      epoch: u64(slot / SLOTS_PER_EPOCH),
      slotIndex: u64(slot % SLOTS_PER_EPOCH),
      slotsInEpoch: u64(SLOTS_PER_EPOCH),
      absoluteSlot: u64(slot),
      blockHeight: u64(slot),
      transactionCount: ledger.transactionCount(),
    };
  };
  /** Where a time-travel config lands: a slot and the ledger's time (ms), forward only. */
  const destination = (cfg: unknown): { slot: bigint; timeMs: number } => {
    const slot = ledger.slot;
    const now = ledger.now();
    const bySlots = (target: bigint) => ({ slot: target, timeMs: now + Number(target - slot) * SLOT_MS });
    if (!given(cfg)) return { slot: slot + BigInt(HOUR_MS / SLOT_MS), timeMs: now + HOUR_MS };
    const c = fields(cfg, 'config', TRAVELS);
    const keys = Object.keys(c);
    if (keys.length !== 1 || !given(c[keys[0]!]))
      throw invalid(`config: expected exactly one of ${TRAVELS.join(', ')}, got ${show(c)}`);
    const kind = keys[0] as (typeof TRAVELS)[number];
    const target = u64Param(c[kind], kind);
    if (kind === 'absoluteTimestamp') {
      if (target < BigInt(Math.floor(now)))
        throw invalid(`Cannot travel to past timestamp: target=${target}, current=${Math.floor(now)} (milliseconds)`);
      if (target > BigInt(MAX_TIME_MS)) throw invalid(`absoluteTimestamp: ${target} is beyond ${MAX_TIME_MS} ms`);
      return { slot: slot + (target - BigInt(Math.floor(now))) / BigInt(SLOT_MS), timeMs: Number(target) };
    }
    if (kind === 'absoluteSlot') {
      if (target < slot) throw invalid(`Cannot travel to past slot: target=${target}, current=${slot}`);
      return bySlots(target);
    }
    const epoch = slot / SLOTS_PER_EPOCH;
    if (target < epoch) throw invalid(`Cannot travel to past epoch: target=${target}, current=${epoch}`);
    // Surfpool moves back to the first slot of the current epoch here; blocks cannot go back.
    if (target * SLOTS_PER_EPOCH < slot)
      throw invalid(`Cannot travel to epoch ${target}: already at slot ${slot}, past its first slot`);
    return bySlots(target * SLOTS_PER_EPOCH);
  };

  return [
    m(
      'surfnet_setAccount',
      async (p) => {
        const [key, update, options] = args(p, 'params', 2, 3);
        const k = pubkey(key, 'pubkey');
        const u = fields(update, 'update', ['lamports', 'data', 'owner', 'executable', 'rentEpoch']);
        const lamports = given(u.lamports) ? u64Param(u.lamports, 'lamports') : undefined;
        const data = given(u.data) ? hexData(u.data) : undefined;
        const owner = given(u.owner) ? pubkey(u.owner, 'owner') : undefined;
        const executable = given(u.executable) ? bool(u.executable, 'executable') : undefined;
        const rentEpoch = given(u.rentEpoch) ? u64Param(u.rentEpoch, 'rentEpoch') : undefined;
        // All five given: the account is replaced; otherwise the fields given patch what it holds.
        const whole = [lamports, data, owner, executable, rentEpoch].every((x) => x !== undefined);
        if (!whole) await need([k]);
        const base = (!whole && ledger.getAccount(k)) || {
          lamports: 0n,
          data: new Uint8Array(0),
          owner: SYSTEM_PROGRAM,
          executable: false,
          rentEpoch: 0n,
        };
        write(
          [
            {
              pubkey: k,
              account: {
                lamports: lamports ?? base.lamports,
                data: data ?? base.data,
                owner: owner ?? base.owner,
                executable: executable ?? base.executable,
                rentEpoch: rentEpoch ?? base.rentEpoch,
              },
            },
          ],
          { method: 'surfnet_setAccount', force: forced(options) },
        );
        return done();
        // Account data: as long as the body limit allows.
      },
      true,
    ),

    m('surfnet_setTokenAccount', async (p) => {
      const [ownerArg, mintArg, updateArg, programArg] = args(p, 'params', 3, 4);
      const owner = pubkey(ownerArg, 'owner');
      const mint = pubkey(mintArg, 'mint');
      const update = tokenUpdate(updateArg);
      const program = given(programArg) ? pubkey(programArg, 'token program') : TOKEN_PROGRAM;
      if (!sameBytes(program, TOKEN_PROGRAM) && !sameBytes(program, TOKEN_2022_PROGRAM))
        throw invalid(`token program: expected ${encodeBase58(TOKEN_PROGRAM)} or ${encodeBase58(TOKEN_2022_PROGRAM)}`);
      const address = associatedTokenAddress(owner, mint, program);
      await need([mint, address]);
      const mintAccount = ledger.getAccount(mint);
      const other = sameBytes(program, TOKEN_PROGRAM) ? TOKEN_2022_PROGRAM : TOKEN_PROGRAM;
      if (mintAccount && sameBytes(mintAccount.owner, other))
        throw invalid(`mint ${encodeBase58(mint)} belongs to ${encodeBase58(other)}: pass it as the token program`);
      const existing = ledger.getAccount(address);
      if (existing && !isTokenAccountOf(existing, program))
        throw invalid(
          `${encodeBase58(address)} holds an account that is not an initialized token account of its program`,
        );
      const rent = ledger.minimumBalanceForRentExemption(TOKEN_ACCOUNT_LEN);
      const isNative = sameBytes(mint, NATIVE_MINT);
      const data = patchTokenAccount(
        existing?.data ?? newTokenAccountData(mint, owner, isNative ? rent : undefined),
        update,
      );
      // Wrapped SOL holds its amount in lamports on top of the rent reserve.
      const reserve = nativeReserve(data);
      const lamports = reserve !== undefined ? reserve + tokenAmount(data) : (existing?.lamports ?? rent);
      const rentEpoch = existing?.rentEpoch ?? 0n;
      write([{ pubkey: address, account: { lamports, data, owner: program, executable: false, rentEpoch } }], {
        method: 'surfnet_setTokenAccount',
        force: false,
      });
      return done();
    }),

    m('surfnet_resetAccount', (p) => {
      const [key, cfg] = args(p, 'params', 1, 2);
      const k = pubkey(key, 'pubkey');
      const c = given(cfg) ? fields(cfg, 'config', ['includeOwnedAccounts', 'force']) : {};
      const owned = given(c.includeOwnedAccounts) ? bool(c.includeOwnedAccounts, 'includeOwnedAccounts') : false;
      const a = ledger.getAccount(k);
      if (!a) return done();
      // In fork mode an account reset is fetched again from the upstream when next needed.
      const gone = [k];
      const programData = a.executable ? programDataAddress(a) : undefined;
      if (programData) gone.push(programData);
      if (owned) gone.push(...ledger.indexes.programAccounts(k));
      write(
        gone.map((pubkey) => ({ pubkey, account: undefined })),
        { method: 'surfnet_resetAccount', force: given(c.force) && bool(c.force, 'force') },
      );
      return done();
    }),

    m('surfnet_timeTravel', (p) => {
      const [cfg] = args(p, 'params', 0, 1);
      const { slot, timeMs } = destination(cfg);
      if (timeMs > MAX_TIME_MS) throw invalid(`slot ${slot} is too far ahead: its time is beyond ${MAX_TIME_MS} ms`);
      ledger.travel(slot, timeMs);
      return epochInfo();
    }),
    m('surfnet_pauseClock', (p) => {
      args(p, 'params', 0, 0);
      ledger.pauseClock();
      return epochInfo();
    }),
    m('surfnet_resumeClock', (p) => {
      args(p, 'params', 0, 0);
      ledger.resumeClock();
      return epochInfo();
    }),

    m('surfnet_setSupply', (p) => {
      const [update] = args(p, 'params', 1, 1);
      // Surfpool's SupplyUpdate has snake_case fields (getSupply answers in camelCase).
      const u = fields(update, 'update', ['total', 'circulating', 'non_circulating', 'non_circulating_accounts']);
      const next: SupplyOverride = {};
      if (given(u.total)) next.total = u64Param(u.total, 'total');
      if (given(u.circulating)) next.circulating = u64Param(u.circulating, 'circulating');
      if (given(u.non_circulating)) next.nonCirculating = u64Param(u.non_circulating, 'non_circulating');
      if (given(u.non_circulating_accounts)) {
        const list = u.non_circulating_accounts;
        if (!Array.isArray(list))
          throw invalid(`non_circulating_accounts: expected an array of base58 addresses, got ${describe(list)}`);
        next.nonCirculatingAccounts = list.map((a, i) => encodeBase58(pubkey(a, `non_circulating_accounts[${i}]`)));
      }
      Object.assign(supply, next);
      return done();
    }),

    m('surfnet_setProgramAuthority', async (p) => {
      const [id, authorityArg, options] = args(p, 'params', 1, 3);
      const programId = pubkey(id, 'program id');
      const authority = given(authorityArg) ? pubkey(authorityArg, 'new authority') : null;
      await need([programId]);
      const program = ledger.getAccount(programId);
      if (!program) throw programError(programId, 'Account not found');
      const at = programDataAddress(program);
      if (!at) throw programError(programId, 'Not a program account');
      await need([at]);
      const programData = ledger.getAccount(at);
      if (!programData) throw programError(programId, 'Program data account does not exist');
      if (!isProgramData(programData)) throw programError(programId, 'Invalid program data account');
      write([{ pubkey: at, account: { ...programData, data: withUpgradeAuthority(programData.data, authority) } }], {
        method: 'surfnet_setProgramAuthority',
        force: forced(options),
      });
      return done();
    }),

    m('surfnet_cloneProgramAccount', async (p) => {
      const [source, destination, options] = args(p, 'params', 2, 3);
      const from = pubkey(source, 'source program id');
      const to = pubkey(destination, 'destination program id');
      await need([from]);
      const program = ledger.getAccount(from);
      if (!program) throw programError(from, 'Account not found');
      const at = programDataAddress(program);
      if (!at) throw programError(from, 'Not a program account');
      await need([at]);
      const programData = ledger.getAccount(at);
      if (!programData || !isProgramData(programData)) throw programError(from, 'Program data account does not exist');
      const copy = programAccountData(to);
      // ProgramData first: the VM loads the program from it as the program account is set.
      write(
        [
          { pubkey: copy.programData, account: programData },
          { pubkey: to, account: { ...program, data: copy.data } },
        ],
        { method: 'surfnet_cloneProgramAccount', force: forced(options) },
      );
      return done();
    }),

    m('surfnet_getLocalSignatures', (p) => {
      const [limitArg] = args(p, 'params', 0, 1);
      const limit = given(limitArg) ? u64Param(limitArg, 'limit') : 50n;
      if (limit > BigInt(MAX_LOCAL_SIGNATURES)) throw invalid(`limit: at most ${MAX_LOCAL_SIGNATURES}, got ${limit}`);
      const value =
        limit === 0n
          ? []
          : ledger.latestTransactions(Number(limit)).map(({ signature, record }) => ({
              signature: encodeBase58(signature),
              err: record.err,
              logs: record.logs,
            }));
      return { ...done(), value };
    }),
    m('surfnet_getSurfnetInfo', (p) => {
      args(p, 'params', 0, 0);
      // Surfpool reports its txtx runbook executions here; zkgate runs none.
      return { ...done(), value: { runbookExecutions: [] } };
    }),
  ];
}
