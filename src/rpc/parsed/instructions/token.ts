// SPL Token and Token-2022 (Agave's parse_token): both programs' instructions are read with
// Token-2022's unpacker, a one-byte tag then packed little-endian fields. Data that is no token
// instruction may still be a token-group or token-metadata interface instruction, which Token-2022
// implements too.
import {
  type Info,
  type Parsed,
  NotParsable,
  Reader,
  checkAccounts,
  decodeUtf8,
  fail,
  key,
  requireAnyAccount,
} from './common.js';
import { parseTokenExtension } from './token-extensions.js';
import { decodeTokenGroup, decodeTokenMetadata } from './token-interfaces.js';
import { addSigners, uiTokenAmount } from './token-common.js';

type Build = (a: readonly string[]) => Parsed;

export function parseToken(accounts: readonly string[], data: Uint8Array): Parsed {
  requireAnyAccount(accounts);
  // A failed decode moves on to the next interface; a decoded instruction that then fails (too few
  // accounts, bad extension data) is not parsable, as in Agave.
  const build = decodeToken(data) ?? decodeTokenGroup(data) ?? decodeTokenMetadata(data) ?? fail();
  return build(accounts);
}

function decodeToken(data: Uint8Array): Build | null {
  try {
    const r = new Reader(data);
    const tag = r.u8();
    return (DECODERS[tag] ?? fail)(r, data);
  } catch (e) {
    if (e instanceof NotParsable) return null;
    throw e;
  }
}

const k = key;
const pubkeyOption = (r: Reader) => r.option(() => r.pubkey());

/** The instruction's first accounts under their field names. */
function leading(a: readonly string[], fields: readonly string[]): Info {
  const info: Info = {};
  fields.forEach((f, i) => (info[f] = k(a, i)));
  return info;
}

// The amount instructions: their leading accounts, then the authority (single or multisig); the
// unchecked ones carry the amount as a string, the checked ones (with decimals) as a UiTokenAmount.
const amountIx =
  (type: string, fields: readonly string[], single: string, multisig: string, checked: boolean) =>
  (r: Reader): Build => {
    const amount = r.u64();
    const value = checked ? { tokenAmount: uiTokenAmount(amount, r.u8()) } : { amount: amount.toString() };
    return (a) => {
      checkAccounts(a, fields.length + 1);
      const info = Object.assign(leading(a, fields), value);
      return { type, info: addSigners(info, a, fields.length, single, multisig) };
    };
  };

/** Instructions made of accounts only, ending with an authority. */
const accountsIx = (type: string, fields: readonly string[], single: string, multisig: string) => (): Build => (a) => {
  checkAccounts(a, fields.length + 1);
  return { type, info: addSigners(leading(a, fields), a, fields.length, single, multisig) };
};

/** Instructions made of accounts only, with no authority. */
const plainIx = (type: string, fields: readonly string[]) => (): Build => (a) => {
  checkAccounts(a, fields.length);
  return { type, info: leading(a, fields) };
};

const initializeMint = (type: string, withRent: boolean) => (r: Reader) => {
  const decimals = r.u8();
  const mintAuthority = r.pubkey();
  const freezeAuthority = pubkeyOption(r);
  return (a: readonly string[]): Parsed => {
    checkAccounts(a, withRent ? 2 : 1);
    const info: Info = { mint: k(a, 0), decimals, mintAuthority };
    if (withRent) info.rentSysvar = k(a, 1);
    if (freezeAuthority !== null) info.freezeAuthority = freezeAuthority;
    return { type, info };
  };
};

const initializeMultisig = (type: string, withRent: boolean) => (r: Reader) => {
  const m = r.u8();
  return (a: readonly string[]): Parsed => {
    const first = withRent ? 2 : 1;
    checkAccounts(a, first + 1);
    const info: Info = { multisig: k(a, 0) };
    if (withRent) info.rentSysvar = k(a, 1);
    info.signers = a.slice(first);
    info.m = m;
    return { type, info };
  };
};

// Token-2022's ExtensionType, in its u16 order, as Agave's UiExtensionType names them.
const EXTENSION_TYPES = [
  'uninitialized',
  'transferFeeConfig',
  'transferFeeAmount',
  'mintCloseAuthority',
  'confidentialTransferMint',
  'confidentialTransferAccount',
  'defaultAccountState',
  'immutableOwner',
  'memoTransfer',
  'nonTransferable',
  'interestBearingConfig',
  'cpiGuard',
  'permanentDelegate',
  'nonTransferableAccount',
  'transferHook',
  'transferHookAccount',
  'confidentialTransferFeeConfig',
  'confidentialTransferFeeAmount',
  'metadataPointer',
  'tokenMetadata',
  'groupPointer',
  'tokenGroup',
  'groupMemberPointer',
  'tokenGroupMember',
  'confidentialMintBurn',
  'scaledUiAmount',
  'pausable',
  'pausableAccount',
  'permissionedBurn',
];

/** The rest of the data as u16 extension types; a stray odd byte or an unknown type is an error. */
function extensionTypes(r: Reader): string[] {
  const out: string[] = [];
  while (r.remaining > 0) {
    if (r.remaining < 2) fail();
    out.push(EXTENSION_TYPES[r.u16()] ?? fail());
  }
  return out;
}

// Token-2022's AuthorityType, in its u8 order, as Agave's UiAuthorityType names them; the account
// they apply to is the mint, except for the two token-account authorities.
const AUTHORITY_TYPES = [
  'mintTokens',
  'freezeAccount',
  'accountOwner',
  'closeAccount',
  'transferFeeConfig',
  'withheldWithdraw',
  'closeMint',
  'interestRate',
  'permanentDelegate',
  'confidentialTransferMint',
  'transferHookProgramId',
  'confidentialTransferFeeConfig',
  'metadataPointer',
  'groupPointer',
  'groupMemberPointer',
  'scaledUiAmount',
  'pause',
  'permissionedBurn',
];
const ACCOUNT_AUTHORITIES = new Set(['accountOwner', 'closeAccount']);

// Extension instructions whose data Agave requires to hold a sub-instruction byte before parsing.
const NEEDS_SUB_TAG = new Set([30, 33, 34, 36, 37, 39, 40, 41]);

const extension =
  (tag: number) =>
  (_r: Reader, data: Uint8Array): Build =>
  (a) => {
    if ((NEEDS_SUB_TAG.has(tag) && data.length < 2) || (tag === 28 && data.length <= 2)) fail();
    return parseTokenExtension(tag, data.subarray(1), a);
  };

const DECODERS: Record<number, (r: Reader, data: Uint8Array) => Build> = {
  0: initializeMint('initializeMint', true),
  1: plainIx('initializeAccount', ['account', 'mint', 'owner', 'rentSysvar']),
  2: initializeMultisig('initializeMultisig', true),
  3: amountIx('transfer', ['source', 'destination'], 'authority', 'multisigAuthority', false),
  4: amountIx('approve', ['source', 'delegate'], 'owner', 'multisigOwner', false),
  5: accountsIx('revoke', ['source'], 'owner', 'multisigOwner'),
  6: (r) => {
    const authorityType = AUTHORITY_TYPES[r.u8()] ?? fail();
    const newAuthority = pubkeyOption(r);
    return (a) => {
      checkAccounts(a, 2);
      const info: Info = {
        [ACCOUNT_AUTHORITIES.has(authorityType) ? 'account' : 'mint']: k(a, 0),
        authorityType,
        newAuthority,
      };
      return { type: 'setAuthority', info: addSigners(info, a, 1, 'authority', 'multisigAuthority') };
    };
  },
  7: amountIx('mintTo', ['mint', 'account'], 'mintAuthority', 'multisigMintAuthority', false),
  8: amountIx('burn', ['account', 'mint'], 'authority', 'multisigAuthority', false),
  9: accountsIx('closeAccount', ['account', 'destination'], 'owner', 'multisigOwner'),
  10: accountsIx('freezeAccount', ['account', 'mint'], 'freezeAuthority', 'multisigFreezeAuthority'),
  11: accountsIx('thawAccount', ['account', 'mint'], 'freezeAuthority', 'multisigFreezeAuthority'),
  12: amountIx('transferChecked', ['source', 'mint', 'destination'], 'authority', 'multisigAuthority', true),
  13: amountIx('approveChecked', ['source', 'mint', 'delegate'], 'owner', 'multisigOwner', true),
  14: amountIx('mintToChecked', ['mint', 'account'], 'mintAuthority', 'multisigMintAuthority', true),
  15: amountIx('burnChecked', ['account', 'mint'], 'authority', 'multisigAuthority', true),
  16: (r) => {
    const owner = r.pubkey();
    return (a) => {
      checkAccounts(a, 3);
      return { type: 'initializeAccount2', info: { account: k(a, 0), mint: k(a, 1), owner, rentSysvar: k(a, 2) } };
    };
  },
  17: plainIx('syncNative', ['account']),
  18: (r) => {
    const owner = r.pubkey();
    return (a) => {
      checkAccounts(a, 2);
      return { type: 'initializeAccount3', info: { account: k(a, 0), mint: k(a, 1), owner } };
    };
  },
  19: initializeMultisig('initializeMultisig2', false),
  20: initializeMint('initializeMint2', false),
  21: (r) => {
    const types = extensionTypes(r);
    return (a) => {
      checkAccounts(a, 1);
      const info: Info = { mint: k(a, 0) };
      if (types.length > 0) info.extensionTypes = types;
      return { type: 'getAccountDataSize', info };
    };
  },
  22: plainIx('initializeImmutableOwner', ['account']),
  23: (r) => {
    const amount = r.u64().toString();
    return (a) => {
      checkAccounts(a, 1);
      return { type: 'amountToUiAmount', info: { mint: k(a, 0), amount } };
    };
  },
  24: (r) => {
    const uiAmount = decodeUtf8(r.rest());
    return (a) => {
      checkAccounts(a, 1);
      return { type: 'uiAmountToAmount', info: { mint: k(a, 0), uiAmount } };
    };
  },
  25: (r) => {
    const newAuthority = pubkeyOption(r);
    return (a) => {
      checkAccounts(a, 1);
      return { type: 'initializeMintCloseAuthority', info: { mint: k(a, 0), newAuthority } };
    };
  },
  29: (r) => {
    const types = extensionTypes(r);
    return (a) => {
      checkAccounts(a, 4);
      const info: Info = { account: k(a, 0), payer: k(a, 1), systemProgram: k(a, 2), extensionTypes: types };
      return { type: 'reallocate', info: addSigners(info, a, 3, 'owner', 'multisigOwner') };
    };
  },
  31: plainIx('createNativeMint', ['payer', 'nativeMint', 'systemProgram']),
  32: plainIx('initializeNonTransferableMint', ['mint']),
  35: (r) => {
    const delegate = r.pubkey();
    return (a) => {
      checkAccounts(a, 1);
      return { type: 'initializePermanentDelegate', info: { mint: k(a, 0), delegate } };
    };
  },
  38: accountsIx('withdrawExcessLamports', ['source', 'destination'], 'authority', 'multisigAuthority'),
  45: (r) => {
    const amount = r.option(() => r.u64());
    return (a) => {
      checkAccounts(a, 3);
      const info: Info = { source: k(a, 0), destination: k(a, 1) };
      if (amount !== null) info.amount = amount.toString();
      return { type: 'unwrapLamports', info: addSigners(info, a, 2, 'authority', 'multisigAuthority') };
    };
  },
  255: (r) => {
    const batch = r.rest();
    return (a) => parseBatch(batch, a);
  },
};
for (const tag of [26, 27, 28, 30, 33, 34, 36, 37, 39, 40, 41, 42, 43, 44, 46]) DECODERS[tag] = extension(tag);

/**
 * Token's Batch: for each inner instruction a u8 account count, a u8 data length and the data; the
 * outer accounts are the inner instructions' accounts in turn. Any inner failure fails the batch.
 */
function parseBatch(data: Uint8Array, accounts: readonly string[]): Parsed {
  const instructions: Parsed[] = [];
  let at = 0;
  let acc = 0;
  while (at < data.length) {
    if (at + 2 > data.length) fail();
    const nAccounts = data[at]!;
    const len = data[at + 1]!;
    at += 2;
    if (at + len > data.length || acc + nAccounts > accounts.length) fail();
    const inner = data.subarray(at, at + len);
    const innerAccounts = accounts.slice(acc, acc + nAccounts);
    at += len;
    acc += nAccounts;
    // The program refuses nested batches.
    if (inner[0] === 255) fail();
    instructions.push(parseToken(innerAccounts, inner));
  }
  return { type: 'batch', info: { instructions } };
}
