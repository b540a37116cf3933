// Token-2022 extension instructions (Agave's parse_token/extension/*): each sits behind its own
// token tag and reads a sub-instruction byte first. Most extensions' data is a fixed-size struct
// that must match exactly. The confidential-transfer families are not parsed here: Agave parses
// them, these fall back to the partially decoded form.
import { type Info, type Parsed, Reader, checkAccounts, fail, int, key as k } from './common.js';
import { addSigners, uiTokenAmount } from './token-common.js';

type Accounts = readonly string[];

export function parseTokenExtension(tag: number, data: Uint8Array, a: Accounts): Parsed {
  const parse = EXTENSIONS[tag] ?? fail;
  return parse(data, a);
}

/** spl-token-2022's decode_instruction_type: the first byte, which must name a known sub-instruction. */
function subTag(data: Uint8Array, count: number): number {
  const t = data[0];
  return t !== undefined && t < count ? t : fail();
}

/** spl-token-2022's decode_instruction_data: the struct after the sub-instruction byte, to the exact byte. */
function struct(data: Uint8Array, size: number): Reader {
  if (data.length !== size + 1) fail();
  return new Reader(data, 1);
}

const ACCOUNT_STATES = ['uninitialized', 'initialized', 'frozen'];

const EXTENSIONS: Record<number, (data: Uint8Array, a: Accounts) => Parsed> = {
  26: transferFee,
  28: (data, a) => {
    if (data.length !== 2) fail();
    const sub = subTag(data, 2);
    const accountState = ACCOUNT_STATES[data[1]!] ?? fail();
    if (sub === 0) {
      checkAccounts(a, 1);
      return { type: 'initializeDefaultAccountState', info: { mint: k(a, 0), accountState } };
    }
    checkAccounts(a, 2);
    const info = addSigners({ mint: k(a, 0), accountState }, a, 1, 'freezeAuthority', 'multisigFreezeAuthority');
    return { type: 'updateDefaultAccountState', info };
  },
  30: toggle('RequiredMemoTransfers'),
  33: (data, a) => {
    if (subTag(data, 2) === 0) {
      checkAccounts(a, 1);
      const r = struct(data, 34);
      const rateAuthority = r.optionalPubkey();
      const rate = r.i16();
      return { type: 'initializeInterestBearingConfig', info: { mint: k(a, 0), rateAuthority, rate } };
    }
    checkAccounts(a, 2);
    const newRate = struct(data, 2).i16();
    const info = addSigners({ mint: k(a, 0), newRate }, a, 1, 'rateAuthority', 'multisigRateAuthority');
    return { type: 'updateInterestBearingConfigRate', info };
  },
  34: toggle('CpiGuard'),
  36: pointer('TransferHook', 'programId'),
  39: pointer('MetadataPointer', 'metadataAddress'),
  40: pointer('GroupPointer', 'groupAddress'),
  41: pointer('GroupMemberPointer', 'memberAddress'),
  43: (data, a) => {
    if (subTag(data, 2) === 0) {
      checkAccounts(a, 1);
      const r = struct(data, 40);
      const authority = r.optionalPubkey();
      const multiplier = rustF64(r.f64());
      return { type: 'initializeScaledUiAmountConfig', info: { mint: k(a, 0), authority, multiplier } };
    }
    checkAccounts(a, 2);
    const r = struct(data, 16);
    const info: Info = { mint: k(a, 0), newMultiplier: rustF64(r.f64()), newMultiplierTimestamp: int(r.i64()) };
    return { type: 'updateMultiplier', info: addSigners(info, a, 1, 'authority', 'multisigAuthority') };
  },
  44: (data, a) => {
    const sub = subTag(data, 3);
    if (sub === 0) {
      checkAccounts(a, 1);
      // A plain address here (Agave's Option of it is always Some): all zeros is still a key.
      const authority = struct(data, 32).pubkey();
      return { type: 'initializePausableConfig', info: { mint: k(a, 0), authority } };
    }
    checkAccounts(a, 2);
    const info = addSigners({ mint: k(a, 0) }, a, 1, 'authority', 'multisigAuthority');
    return { type: sub === 1 ? 'pause' : 'resume', info };
  },
  46: permissionedBurn,
};

/** Enable/Disable pairs on a token account (required memos, CPI guard). */
function toggle(name: string) {
  return (data: Uint8Array, a: Accounts): Parsed => {
    checkAccounts(a, 2);
    const verb = subTag(data, 2) === 0 ? 'enable' : 'disable';
    return { type: `${verb}${name}`, info: addSigners({ account: k(a, 0) }, a, 1, 'owner', 'multisigOwner') };
  };
}

/** Mint extensions that hold an authority and one address, each optional (all zeros for none). */
function pointer(name: string, field: string) {
  return (data: Uint8Array, a: Accounts): Parsed => {
    if (subTag(data, 2) === 0) {
      checkAccounts(a, 1);
      const r = struct(data, 64);
      const authority = r.optionalPubkey();
      const address = r.optionalPubkey();
      const info: Info = { mint: k(a, 0) };
      if (authority !== null) info.authority = authority;
      if (address !== null) info[field] = address;
      return { type: `initialize${name}`, info };
    }
    checkAccounts(a, 2);
    const address = struct(data, 32).optionalPubkey();
    const info: Info = { mint: k(a, 0) };
    if (address !== null) info[field] = address;
    return { type: `update${name}`, info: addSigners(info, a, 1, 'authority', 'multisigAuthority') };
  };
}

function transferFee(data: Uint8Array, a: Accounts): Parsed {
  const r = new Reader(data);
  switch (r.u8()) {
    case 0: {
      const configAuthority = r.option(() => r.pubkey());
      const withdrawAuthority = r.option(() => r.pubkey());
      const transferFeeBasisPoints = r.u16();
      const maximumFee = int(r.u64());
      checkAccounts(a, 1);
      const info: Info = { mint: k(a, 0), transferFeeBasisPoints, maximumFee };
      if (configAuthority !== null) info.transferFeeConfigAuthority = configAuthority;
      if (withdrawAuthority !== null) info.withdrawWithheldAuthority = withdrawAuthority;
      return { type: 'initializeTransferFeeConfig', info };
    }
    case 1: {
      const amount = r.u64();
      const decimals = r.u8();
      const fee = r.u64();
      checkAccounts(a, 4);
      const info: Info = {
        source: k(a, 0),
        mint: k(a, 1),
        destination: k(a, 2),
        tokenAmount: uiTokenAmount(amount, decimals),
        feeAmount: uiTokenAmount(fee, decimals),
      };
      return { type: 'transferCheckedWithFee', info: addSigners(info, a, 3, 'authority', 'multisigAuthority') };
    }
    case 2: {
      checkAccounts(a, 3);
      const info = addSigners(
        { mint: k(a, 0), feeRecipient: k(a, 1) },
        a,
        2,
        'withdrawWithheldAuthority',
        'multisigWithdrawWithheldAuthority',
      );
      return { type: 'withdrawWithheldTokensFromMint', info };
    }
    case 3: {
      const n = r.u8();
      checkAccounts(a, 3 + n);
      // The source accounts are the last `n`; the authority and its signers come before them.
      const first = a.length - n;
      const info: Info = { mint: k(a, 0), feeRecipient: k(a, 1), sourceAccounts: a.slice(first) };
      addSigners(info, a.slice(0, first), 2, 'withdrawWithheldAuthority', 'multisigWithdrawWithheldAuthority');
      return { type: 'withdrawWithheldTokensFromAccounts', info };
    }
    case 4:
      checkAccounts(a, 1);
      return { type: 'harvestWithheldTokensToMint', info: { mint: k(a, 0), sourceAccounts: a.slice(1) } };
    case 5: {
      const transferFeeBasisPoints = r.u16();
      const maximumFee = int(r.u64());
      checkAccounts(a, 2);
      // Agave spells the multisig field with a lower-case "t".
      const info = addSigners(
        { mint: k(a, 0), transferFeeBasisPoints, maximumFee },
        a,
        1,
        'transferFeeConfigAuthority',
        'multisigtransferFeeConfigAuthority',
      );
      return { type: 'setTransferFee', info };
    }
    default:
      return fail();
  }
}

function permissionedBurn(data: Uint8Array, a: Accounts): Parsed {
  const sub = subTag(data, 4);
  if (sub === 0) {
    checkAccounts(a, 1);
    return { type: 'initializePermissionedBurnConfig', info: { mint: k(a, 0), authority: struct(data, 32).pubkey() } };
  }
  // The confidential burn's proof accounts are not parsed here.
  if (sub === 3) fail();
  checkAccounts(a, 4);
  const info: Info = { account: k(a, 0), mint: k(a, 1), permissionedBurnAuthority: k(a, 2) };
  if (sub === 1) {
    info.amount = struct(data, 8).u64().toString();
  } else {
    const r = struct(data, 9);
    const amount = r.u64();
    info.tokenAmount = uiTokenAmount(amount, r.u8());
  }
  addSigners(info, a, 3, 'authority', 'multisigAuthority');
  return { type: sub === 1 ? 'permissionedBurn' : 'permissionedBurnChecked', info };
}

/** Rust's `f64::to_string`: the shortest round-trip digits, never in exponent form. */
export function rustF64(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (Object.is(x, -0)) return '-0';
  const s = String(x);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const sign = s.startsWith('-') ? '-' : '';
  const mantissa = s.slice(sign.length, e);
  const dot = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  const point = (dot < 0 ? mantissa.length : dot) + Number(s.slice(e + 1));
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
