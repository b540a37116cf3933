// The stake program (Agave's parse_stake): bincode StakeInstruction, u32 variant tag. Since its move
// to Core BPF the program takes both the legacy account lists (with sysvars and the stake config)
// and shorter ones without them, telling them apart by the key in a given position; so does this.
import { type Info, type Parsed, Reader, checkAccounts, fail, int, key as k, requireAnyAccount } from './common.js';

type Accounts = readonly string[];
type Build = (a: Accounts) => Parsed;

const CLOCK = 'SysvarC1ock11111111111111111111111111111111';
const RENT = 'SysvarRent111111111111111111111111111111111';
const STAKE_CONFIG = 'StakeConfig11111111111111111111111111111111';

export function parseStake(a: Accounts, data: Uint8Array): Parsed {
  const r = new Reader(data);
  const build = (DECODERS[r.u32()] ?? fail)(r);
  requireAnyAccount(a);
  return build(a);
}

const STAKE_AUTHORIZE = ['Staker', 'Withdrawer'];
const stakeAuthorize = (r: Reader) => STAKE_AUTHORIZE[r.u32()] ?? fail();

/** Sets `field` to the account at `i` when there is one. */
function optional(info: Info, a: Accounts, i: number, field: string): void {
  if (a.length > i) info[field] = a[i];
}

/** LockupArgs / LockupCheckedArgs: only the fields being set. */
function lockupArgs(r: Reader, withCustodian: boolean): Info {
  const unixTimestamp = r.option(() => r.i64());
  const epoch = r.option(() => r.u64());
  const custodian = withCustodian ? r.option(() => r.pubkey()) : null;
  const lockup: Info = {};
  if (unixTimestamp !== null) lockup.unixTimestamp = int(unixTimestamp);
  if (epoch !== null) lockup.epoch = int(epoch);
  if (custodian !== null) lockup.custodian = custodian;
  return lockup;
}

const DECODERS: ((r: Reader) => Build)[] = [
  // 0 Initialize(Authorized, Lockup)
  (r) => {
    const authorized = { staker: r.pubkey(), withdrawer: r.pubkey() };
    const lockup = { unixTimestamp: int(r.i64()), epoch: int(r.u64()), custodian: r.pubkey() };
    return (a) => {
      checkAccounts(a, 1);
      const info: Info = { stakeAccount: k(a, 0), authorized, lockup };
      if (a[1] === RENT) info.rentSysvar = a[1];
      return { type: 'initialize', info };
    };
  },
  // 1 Authorize(Pubkey, StakeAuthorize)
  (r) => {
    const newAuthority = r.pubkey();
    const authorityType = stakeAuthorize(r);
    return (a) => {
      checkAccounts(a, 2);
      const info: Info = { stakeAccount: k(a, 0), newAuthority, authorityType };
      if (a[1] === CLOCK) {
        checkAccounts(a, 3);
        info.clockSysvar = a[1];
        info.authority = a[2];
        optional(info, a, 3, 'custodian');
      } else {
        info.authority = a[1];
        optional(info, a, 2, 'custodian');
      }
      return { type: 'authorize', info };
    };
  },
  // 2 DelegateStake
  () => (a) => {
    checkAccounts(a, 3);
    const info: Info = { stakeAccount: k(a, 0), voteAccount: k(a, 1) };
    if (a[2] === CLOCK) {
      checkAccounts(a, 5);
      info.clockSysvar = a[2];
      info.stakeHistorySysvar = a[3];
      // The program never reads the fifth account of this layout, so clients may put the stake
      // authority there instead of the stake config.
      if (a[4] === STAKE_CONFIG) {
        info.stakeConfigAccount = a[4];
        optional(info, a, 5, 'stakeAuthority');
      } else info.stakeAuthority = a[4];
    } else info.stakeAuthority = a[2];
    return { type: 'delegate', info };
  },
  // 3 Split(u64)
  (r) => {
    const lamports = int(r.u64());
    return (a) => {
      checkAccounts(a, 2);
      const info: Info = { stakeAccount: k(a, 0), newSplitAccount: k(a, 1), lamports };
      optional(info, a, 2, 'stakeAuthority');
      return { type: 'split', info };
    };
  },
  // 4 Withdraw(u64)
  (r) => {
    const lamports = int(r.u64());
    return (a) => {
      checkAccounts(a, 3);
      const info: Info = { stakeAccount: k(a, 0), destination: k(a, 1), lamports };
      if (a[2] === CLOCK) {
        checkAccounts(a, 5);
        info.clockSysvar = a[2];
        info.stakeHistorySysvar = a[3];
        info.withdrawAuthority = a[4];
        optional(info, a, 5, 'custodian');
      } else {
        info.withdrawAuthority = a[2];
        optional(info, a, 3, 'custodian');
      }
      return { type: 'withdraw', info };
    };
  },
  // 5 Deactivate
  () => (a) => {
    checkAccounts(a, 2);
    const info: Info = { stakeAccount: k(a, 0) };
    if (a[1] === CLOCK) {
      info.clockSysvar = a[1];
      optional(info, a, 2, 'stakeAuthority');
    } else info.stakeAuthority = a[1];
    return { type: 'deactivate', info };
  },
  // 6 SetLockup(LockupArgs)
  (r) => {
    const lockup = lockupArgs(r, true);
    return (a) => {
      checkAccounts(a, 2);
      return { type: 'setLockup', info: { stakeAccount: k(a, 0), custodian: k(a, 1), lockup } };
    };
  },
  // 7 Merge
  () => (a) => {
    checkAccounts(a, 3);
    const info: Info = { destination: k(a, 0), source: k(a, 1) };
    if (a[2] === CLOCK) {
      checkAccounts(a, 4);
      info.clockSysvar = a[2];
      info.stakeHistorySysvar = a[3];
      optional(info, a, 4, 'stakeAuthority');
    } else info.stakeAuthority = a[2];
    return { type: 'merge', info };
  },
  // 8 AuthorizeWithSeed(AuthorizeWithSeedArgs)
  (r) => {
    const newAuthorized = r.pubkey();
    const authorityType = stakeAuthorize(r);
    const authoritySeed = r.string();
    const authorityOwner = r.pubkey();
    return (a) => {
      checkAccounts(a, 2);
      const info: Info = {
        stakeAccount: k(a, 0),
        authorityBase: k(a, 1),
        newAuthorized,
        authorityType,
        authoritySeed,
        authorityOwner,
      };
      if (a[2] === CLOCK) {
        info.clockSysvar = a[2];
        optional(info, a, 3, 'custodian');
      } else optional(info, a, 2, 'custodian');
      return { type: 'authorizeWithSeed', info };
    };
  },
  // 9 InitializeChecked
  () => (a) => {
    checkAccounts(a, 3);
    const info: Info = { stakeAccount: k(a, 0) };
    if (a[1] === RENT) {
      checkAccounts(a, 4);
      info.rentSysvar = a[1];
      info.staker = a[2];
      info.withdrawer = a[3];
    } else {
      info.staker = a[1];
      info.withdrawer = a[2];
    }
    return { type: 'initializeChecked', info };
  },
  // 10 AuthorizeChecked(StakeAuthorize)
  (r) => {
    const authorityType = stakeAuthorize(r);
    return (a) => {
      checkAccounts(a, 3);
      const info: Info = { stakeAccount: k(a, 0), authorityType };
      const at = a[1] === CLOCK ? 2 : 1;
      if (at === 2) {
        checkAccounts(a, 4);
        info.clockSysvar = a[1];
      }
      info.authority = a[at];
      info.newAuthority = a[at + 1];
      optional(info, a, at + 2, 'custodian');
      return { type: 'authorizeChecked', info };
    };
  },
  // 11 AuthorizeCheckedWithSeed(AuthorizeCheckedWithSeedArgs)
  (r) => {
    const authorityType = stakeAuthorize(r);
    const authoritySeed = r.string();
    const authorityOwner = r.pubkey();
    return (a) => {
      checkAccounts(a, 3);
      const info: Info = {
        stakeAccount: k(a, 0),
        authorityBase: k(a, 1),
        authorityType,
        authoritySeed,
        authorityOwner,
      };
      const at = a[2] === CLOCK ? 3 : 2;
      if (at === 3) {
        checkAccounts(a, 4);
        info.clockSysvar = a[2];
      }
      info.newAuthorized = a[at];
      optional(info, a, at + 1, 'custodian');
      return { type: 'authorizeCheckedWithSeed', info };
    };
  },
  // 12 SetLockupChecked(LockupCheckedArgs): a new custodian signs as the third account.
  (r) => {
    const lockup = lockupArgs(r, false);
    return (a) => {
      checkAccounts(a, 2);
      optional(lockup, a, 2, 'custodian');
      return { type: 'setLockupChecked', info: { stakeAccount: k(a, 0), custodian: k(a, 1), lockup } };
    };
  },
  // 13 GetMinimumDelegation: no info at all.
  () => () => ({ type: 'getMinimumDelegation' }),
  // 14 DeactivateDelinquent
  () => (a) => {
    checkAccounts(a, 3);
    const info = { stakeAccount: k(a, 0), voteAccount: k(a, 1), referenceVoteAccount: k(a, 2) };
    return { type: 'deactivateDelinquent', info };
  },
  // 15 Redelegate (deprecated, still parsed)
  () => (a) => {
    checkAccounts(a, 5);
    const info = {
      stakeAccount: k(a, 0),
      newStakeAccount: k(a, 1),
      voteAccount: k(a, 2),
      stakeConfigAccount: k(a, 3),
      stakeAuthority: k(a, 4),
    };
    return { type: 'redelegate', info };
  },
  moveIx('moveStake'),
  moveIx('moveLamports'),
];

function moveIx(type: string) {
  return (r: Reader): Build => {
    const lamports = int(r.u64());
    return (a) => {
      checkAccounts(a, 3);
      return { type, info: { source: k(a, 0), destination: k(a, 1), stakeAuthority: k(a, 2), lamports } };
    };
  };
}
