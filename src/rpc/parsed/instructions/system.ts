// The system program (Agave's parse_system): bincode SystemInstruction, a u32 variant tag.
import { type Parsed, Reader, checkAccounts, fail, int, key, requireAnyAccount } from './common.js';

export function parseSystem(accounts: readonly string[], data: Uint8Array): Parsed {
  const r = new Reader(data);
  const tag = r.u32();
  const read = READERS[tag] ?? fail;
  // The whole instruction decodes before the accounts are looked at, as in Agave.
  const parse = read(r);
  requireAnyAccount(accounts);
  return parse(accounts);
}

type Build = (a: readonly string[]) => Parsed;
const k = key;

const READERS: ((r: Reader) => Build)[] = [
  // 0 CreateAccount
  (r) => {
    const lamports = r.u64();
    const space = r.u64();
    const owner = r.pubkey();
    return (a) => {
      checkAccounts(a, 2);
      const info = { source: k(a, 0), newAccount: k(a, 1), lamports: int(lamports), space: int(space), owner };
      return { type: 'createAccount', info };
    };
  },
  // 1 Assign
  (r) => {
    const owner = r.pubkey();
    return (a) => {
      checkAccounts(a, 1);
      return { type: 'assign', info: { account: k(a, 0), owner } };
    };
  },
  // 2 Transfer
  (r) => {
    const lamports = r.u64();
    return (a) => {
      checkAccounts(a, 2);
      return { type: 'transfer', info: { source: k(a, 0), destination: k(a, 1), lamports: int(lamports) } };
    };
  },
  // 3 CreateAccountWithSeed
  (r) => {
    const base = r.pubkey();
    const seed = r.string();
    const lamports = r.u64();
    const space = r.u64();
    const owner = r.pubkey();
    return (a) => {
      checkAccounts(a, 2);
      const info = {
        source: k(a, 0),
        newAccount: k(a, 1),
        base,
        seed,
        lamports: int(lamports),
        space: int(space),
        owner,
      };
      return { type: 'createAccountWithSeed', info };
    };
  },
  // 4 AdvanceNonceAccount
  () => (a) => {
    checkAccounts(a, 3);
    const info = { nonceAccount: k(a, 0), recentBlockhashesSysvar: k(a, 1), nonceAuthority: k(a, 2) };
    return { type: 'advanceNonce', info };
  },
  // 5 WithdrawNonceAccount
  (r) => {
    const lamports = r.u64();
    return (a) => {
      checkAccounts(a, 5);
      const info = {
        nonceAccount: k(a, 0),
        destination: k(a, 1),
        recentBlockhashesSysvar: k(a, 2),
        rentSysvar: k(a, 3),
        nonceAuthority: k(a, 4),
        lamports: int(lamports),
      };
      return { type: 'withdrawFromNonce', info };
    };
  },
  // 6 InitializeNonceAccount: the authority comes from the data, not the accounts.
  (r) => {
    const nonceAuthority = r.pubkey();
    return (a) => {
      checkAccounts(a, 3);
      const info = { nonceAccount: k(a, 0), recentBlockhashesSysvar: k(a, 1), rentSysvar: k(a, 2), nonceAuthority };
      return { type: 'initializeNonce', info };
    };
  },
  // 7 AuthorizeNonceAccount
  (r) => {
    const newAuthorized = r.pubkey();
    return (a) => {
      checkAccounts(a, 2);
      return { type: 'authorizeNonce', info: { nonceAccount: k(a, 0), nonceAuthority: k(a, 1), newAuthorized } };
    };
  },
  // 8 Allocate
  (r) => {
    const space = r.u64();
    return (a) => {
      checkAccounts(a, 1);
      return { type: 'allocate', info: { account: k(a, 0), space: int(space) } };
    };
  },
  // 9 AllocateWithSeed
  (r) => {
    const base = r.pubkey();
    const seed = r.string();
    const space = r.u64();
    const owner = r.pubkey();
    return (a) => {
      checkAccounts(a, 2);
      return { type: 'allocateWithSeed', info: { account: k(a, 0), base, seed, space: int(space), owner } };
    };
  },
  // 10 AssignWithSeed
  (r) => {
    const base = r.pubkey();
    const seed = r.string();
    const owner = r.pubkey();
    return (a) => {
      checkAccounts(a, 2);
      return { type: 'assignWithSeed', info: { account: k(a, 0), base, seed, owner } };
    };
  },
  // 11 TransferWithSeed
  (r) => {
    const lamports = r.u64();
    const sourceSeed = r.string();
    const sourceOwner = r.pubkey();
    return (a) => {
      checkAccounts(a, 3);
      const info = {
        source: k(a, 0),
        sourceBase: k(a, 1),
        destination: k(a, 2),
        lamports: int(lamports),
        sourceSeed,
        sourceOwner,
      };
      return { type: 'transferWithSeed', info };
    };
  },
  // 12 UpgradeNonceAccount
  () => (a) => {
    checkAccounts(a, 1);
    return { type: 'upgradeNonce', info: { nonceAccount: k(a, 0) } };
  },
  // 13 CreateAccountAllowPrefund: with no lamports there is no funding account.
  (r) => {
    const lamports = r.u64();
    const space = r.u64();
    const owner = r.pubkey();
    return (a) => {
      if (lamports === 0n) {
        checkAccounts(a, 1);
        return { type: 'createAccountAllowPrefund', info: { newAccount: k(a, 0), space: int(space), owner } };
      }
      checkAccounts(a, 2);
      const info = { newAccount: k(a, 0), source: k(a, 1), lamports: int(lamports), space: int(space), owner };
      return { type: 'createAccountAllowPrefund', info };
    };
  },
];
