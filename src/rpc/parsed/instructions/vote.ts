// The vote program (Agave's parse_vote): bincode VoteInstruction, u32 variant tag. The compact
// vote-state updates and tower syncs encode lockouts as slot offsets from the root (LEB128) with
// u8 confirmation counts; they come out as absolute lockouts, as Agave deserializes them.
import { type Info, type Parsed, Reader, checkAccounts, fail, int, key as k, requireAnyAccount } from './common.js';

type Accounts = readonly string[];
type Build = (a: Accounts) => Parsed;

export function parseVote(a: Accounts, data: Uint8Array): Parsed {
  const r = new Reader(data);
  const build = (DECODERS[r.u32()] ?? fail)(r);
  requireAnyAccount(a);
  return build(a);
}

const U64_MAX = (1n << 64n) - 1n;

// serde's default JSON for these Rust types: unit variants as strings, Lockout's fields as declared.
function voteAuthorize(r: Reader): unknown {
  const tag = r.u32();
  if (tag === 0) return 'Voter';
  if (tag === 1) return 'Withdrawer';
  if (tag !== 2) fail();
  const blsPubkey = Array.from(r.bytes_(48));
  const proof = Array.from(r.bytes_(96));
  return { VoterWithBLS: { bls_pubkey: blsPubkey, bls_proof_of_possession: proof } };
}
const COMMISSION_KINDS = ['InflationRewards', 'BlockRevenue'];
const commissionKind = (r: Reader) => COMMISSION_KINDS[r.u32()] ?? fail();
const timestamp = (r: Reader) => r.option(() => int(r.i64()));
const lockout = (slot: bigint, confirmations: number) => ({ slot: int(slot), confirmation_count: confirmations });

function vote(r: Reader) {
  const slots = r.vec(() => int(r.u64()), 8);
  const hash = r.pubkey();
  return { slots, hash, timestamp: timestamp(r) };
}

function voteStateUpdate(r: Reader) {
  const lockouts = r.vec(() => lockout(r.u64(), r.u32()), 12);
  const root = r.option(() => int(r.u64()));
  const hash = r.pubkey();
  return { lockouts, root, hash, timestamp: timestamp(r) };
}

/** solana-short-vec's length: 1 to 3 bytes of 7 bits, canonical, at most u16::MAX. */
function shortVecLength(r: Reader): number {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = r.u8();
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) {
      if (byte === 0 && i > 0) fail();
      return value <= 0xffff ? value : fail();
    }
  }
  return fail();
}

/** solana-serde-varint's u64: LEB128 with no redundant final zero byte and no overflow. */
function varintU64(r: Reader): bigint {
  let value = 0n;
  for (let shift = 0n; shift < 64n; shift += 7n) {
    const byte = r.u8();
    const part = BigInt(byte & 0x7f) << shift;
    if (part >> shift !== BigInt(byte & 0x7f) || part > U64_MAX) fail();
    value |= part;
    if ((byte & 0x80) === 0) {
      if (byte === 0 && shift > 0n) fail();
      return value;
    }
  }
  return fail();
}

function compactUpdate(r: Reader, withBlockId: boolean) {
  const rawRoot = r.u64();
  const n = shortVecLength(r);
  const offsets = Array.from({ length: n }, () => ({ offset: varintU64(r), count: r.u8() }));
  const hash = r.pubkey();
  const ts = timestamp(r);
  const blockId = withBlockId ? r.pubkey() : undefined;
  const root = rawRoot === U64_MAX ? null : rawRoot;
  let slot = root ?? 0n;
  const lockouts = offsets.map(({ offset, count }) => {
    slot += offset;
    if (slot > U64_MAX) fail();
    return lockout(slot, count);
  });
  const out: Info = { lockouts, root: root === null ? null : int(root), hash, timestamp: ts };
  if (blockId !== undefined) out.blockId = blockId;
  return out;
}

const stateUpdateIx =
  (type: string, read: (r: Reader) => Info, field: string, switched: boolean) =>
  (r: Reader): Build => {
    const update = read(r);
    const hash = switched ? r.pubkey() : undefined;
    return (a) => {
      checkAccounts(a, 2);
      const info: Info = { voteAccount: k(a, 0), voteAuthority: k(a, 1), [field]: update };
      if (hash !== undefined) info.hash = hash;
      return { type, info };
    };
  };

const voteIx =
  (type: string, switched: boolean) =>
  (r: Reader): Build => {
    const v = vote(r);
    const hash = switched ? r.pubkey() : undefined;
    return (a) => {
      checkAccounts(a, 4);
      const info: Info = {
        voteAccount: k(a, 0),
        slotHashesSysvar: k(a, 1),
        clockSysvar: k(a, 2),
        voteAuthority: k(a, 3),
        vote: v,
      };
      if (hash !== undefined) info.hash = hash;
      return { type, info };
    };
  };

const withSeedIx =
  (type: string, checked: boolean) =>
  (r: Reader): Build => {
    const authorityType = voteAuthorize(r);
    const authorityOwner = r.pubkey();
    const authoritySeed = r.string();
    const newAuthority = checked ? undefined : r.pubkey();
    return (a) => {
      checkAccounts(a, checked ? 4 : 3);
      const info = {
        voteAccount: k(a, 0),
        clockSysvar: k(a, 1),
        authorityBaseKey: k(a, 2),
        authorityOwner,
        authoritySeed,
        newAuthority: newAuthority ?? k(a, 3),
        authorityType,
      };
      return { type, info };
    };
  };

const DECODERS: ((r: Reader) => Build)[] = [
  // 0 InitializeAccount: the node is read from the accounts, the VoteInit's copy is ignored.
  (r) => {
    r.pubkey();
    const authorizedVoter = r.pubkey();
    const authorizedWithdrawer = r.pubkey();
    const commission = r.u8();
    return (a) => {
      checkAccounts(a, 4);
      const info = {
        voteAccount: k(a, 0),
        rentSysvar: k(a, 1),
        clockSysvar: k(a, 2),
        node: k(a, 3),
        authorizedVoter,
        authorizedWithdrawer,
        commission,
      };
      return { type: 'initialize', info };
    };
  },
  // 1 Authorize
  (r) => {
    const newAuthority = r.pubkey();
    const authorityType = voteAuthorize(r);
    return (a) => {
      checkAccounts(a, 3);
      const info = { voteAccount: k(a, 0), clockSysvar: k(a, 1), authority: k(a, 2), newAuthority, authorityType };
      return { type: 'authorize', info };
    };
  },
  voteIx('vote', false),
  // 3 Withdraw
  (r) => {
    const lamports = int(r.u64());
    return (a) => {
      checkAccounts(a, 3);
      const info = { voteAccount: k(a, 0), destination: k(a, 1), withdrawAuthority: k(a, 2), lamports };
      return { type: 'withdraw', info };
    };
  },
  // 4 UpdateValidatorIdentity
  () => (a) => {
    checkAccounts(a, 3);
    const info = { voteAccount: k(a, 0), newValidatorIdentity: k(a, 1), withdrawAuthority: k(a, 2) };
    return { type: 'updateValidatorIdentity', info };
  },
  // 5 UpdateCommission
  (r) => {
    const commission = r.u8();
    return (a) => {
      checkAccounts(a, 2);
      return { type: 'updateCommission', info: { voteAccount: k(a, 0), withdrawAuthority: k(a, 1), commission } };
    };
  },
  voteIx('voteSwitch', true),
  // 7 AuthorizeChecked
  (r) => {
    const authorityType = voteAuthorize(r);
    return (a) => {
      checkAccounts(a, 4);
      const info = {
        voteAccount: k(a, 0),
        clockSysvar: k(a, 1),
        authority: k(a, 2),
        newAuthority: k(a, 3),
        authorityType,
      };
      return { type: 'authorizeChecked', info };
    };
  },
  // Agave spells the vote-state update and tower sync types in lower case.
  stateUpdateIx('updatevotestate', voteStateUpdate, 'voteStateUpdate', false),
  stateUpdateIx('updatevotestateswitch', voteStateUpdate, 'voteStateUpdate', true),
  withSeedIx('authorizeWithSeed', false),
  withSeedIx('authorizeCheckedWithSeed', true),
  stateUpdateIx('compactupdatevotestate', (r) => compactUpdate(r, false), 'voteStateUpdate', false),
  stateUpdateIx('compactupdatevotestateswitch', (r) => compactUpdate(r, false), 'voteStateUpdate', true),
  stateUpdateIx('towersync', (r) => compactUpdate(r, true), 'towerSync', false),
  stateUpdateIx('towersyncswitch', (r) => compactUpdate(r, true), 'towerSync', true),
  // 16 InitializeAccountV2: its data layout is still moving between Agave and the vote interface.
  fail,
  // 17 UpdateCommissionCollector
  (r) => {
    const kind = commissionKind(r);
    return (a) => {
      checkAccounts(a, 3);
      const info = {
        voteAccount: k(a, 0),
        newCollector: k(a, 1),
        withdrawAuthority: k(a, 2),
        commissionKind: kind,
      };
      return { type: 'updateCommissionCollector', info };
    };
  },
  // 18 UpdateCommissionBps
  (r) => {
    const commissionBps = r.u16();
    const kind = commissionKind(r);
    return (a) => {
      checkAccounts(a, 2);
      const info = { voteAccount: k(a, 0), withdrawAuthority: k(a, 1), commissionBps, commissionKind: kind };
      return { type: 'updateCommissionBps', info };
    };
  },
  // 19 DepositDelegatorRewards
  (r) => {
    const deposit = int(r.u64());
    return (a) => {
      checkAccounts(a, 2);
      return { type: 'depositDelegatorRewards', info: { voteAccount: k(a, 0), source: k(a, 1), deposit } };
    };
  },
];
