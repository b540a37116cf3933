// Token-2022 TLV extensions as account-decoder's parse_token_extension shows them:
// `{ extension: "<camelCase variant>", state: {...} }`, or just `{ extension }` for marker variants.
// The lookups follow spl-token-2022's BaseStateWithExtensions: the type list comes from one walk
// over the TLV entries (any unknown type or malformed entry empties the whole list, as Agave's
// `get_extension_types().unwrap_or_default()` does), while each value is found by a separate walk
// that stops at the first entry of its type.
import { u64 } from '../../../wire/index.js';
import { rustDisplay } from './float.js';
import { DecodeError, Reader } from './reader.js';
import type { InterestBearingConfig, ScaledUiAmountConfig } from './token-amount.js';

export const ACCOUNT_TYPE_MINT = 1;
export const ACCOUNT_TYPE_ACCOUNT = 2;

export type UiExtension = { extension: string; state?: unknown };

const unparseable = (): UiExtension => ({ extension: 'unparseableExtension' });

const ACCOUNT_STATES = ['uninitialized', 'initialized', 'frozen'] as const;
/** `AccountState::try_from(byte).unwrap_or_default()`: anything unknown shows as uninitialized. */
export const accountStateName = (b: number): string => ACCOUNT_STATES[b] ?? 'uninitialized';

const transferFee = (r: Reader) => ({
  epoch: u64(r.u64()),
  maximumFee: u64(r.u64()),
  transferFeeBasisPoints: r.u16(),
});

export function readInterestBearingConfig(r: Reader): InterestBearingConfig {
  return {
    rateAuthority: r.nullablePubkey(),
    initializationTimestamp: r.i64(),
    preUpdateAverageRate: r.i16(),
    lastUpdateTimestamp: r.i64(),
    currentRate: r.i16(),
  };
}

export function readScaledUiAmountConfig(r: Reader): ScaledUiAmountConfig {
  return {
    authority: r.nullablePubkey(),
    multiplier: r.f64(),
    newMultiplierEffectiveTimestamp: r.i64(),
    newMultiplier: r.f64(),
  };
}

interface Spec {
  name: string;
  accountType: number;
  /** Pod size; a value of any other length fails bytemuck's cast and shows as unparseable. */
  size?: number;
  /** Marker extensions are listed without looking at their value. */
  marker?: true;
  decode?: (r: Reader) => unknown;
}

// ElGamal keys and ciphertexts print as base64 (their Display impls).
const SPECS: Record<number, Spec> = {
  1: {
    name: 'transferFeeConfig',
    accountType: ACCOUNT_TYPE_MINT,
    size: 108,
    decode: (r) => ({
      transferFeeConfigAuthority: r.nullablePubkey(),
      withdrawWithheldAuthority: r.nullablePubkey(),
      withheldAmount: u64(r.u64()),
      olderTransferFee: transferFee(r),
      newerTransferFee: transferFee(r),
    }),
  },
  2: {
    name: 'transferFeeAmount',
    accountType: ACCOUNT_TYPE_ACCOUNT,
    size: 8,
    decode: (r) => ({ withheldAmount: u64(r.u64()) }),
  },
  3: {
    name: 'mintCloseAuthority',
    accountType: ACCOUNT_TYPE_MINT,
    size: 32,
    decode: (r) => ({ closeAuthority: r.nullablePubkey() }),
  },
  4: {
    name: 'confidentialTransferMint',
    accountType: ACCOUNT_TYPE_MINT,
    size: 65,
    decode: (r) => {
      const authority = r.nullablePubkey();
      const autoApproveNewAccounts = r.podBool();
      const auditor = r.bytes(32);
      return {
        authority,
        autoApproveNewAccounts,
        auditorElgamalPubkey: auditor.every((b) => b === 0) ? null : Buffer.from(auditor).toString('base64'),
      };
    },
  },
  5: {
    name: 'confidentialTransferAccount',
    accountType: ACCOUNT_TYPE_ACCOUNT,
    size: 295,
    decode: (r) => ({
      approved: r.podBool(),
      elgamalPubkey: r.base64(32),
      pendingBalanceLo: r.base64(64),
      pendingBalanceHi: r.base64(64),
      availableBalance: r.base64(64),
      decryptableAvailableBalance: r.base64(36),
      allowConfidentialCredits: r.podBool(),
      allowNonConfidentialCredits: r.podBool(),
      pendingBalanceCreditCounter: u64(r.u64()),
      maximumPendingBalanceCreditCounter: u64(r.u64()),
      expectedPendingBalanceCreditCounter: u64(r.u64()),
      actualPendingBalanceCreditCounter: u64(r.u64()),
    }),
  },
  6: {
    name: 'defaultAccountState',
    accountType: ACCOUNT_TYPE_MINT,
    size: 1,
    decode: (r) => ({ accountState: accountStateName(r.u8()) }),
  },
  7: { name: 'immutableOwner', accountType: ACCOUNT_TYPE_ACCOUNT, marker: true },
  8: {
    name: 'memoTransfer',
    accountType: ACCOUNT_TYPE_ACCOUNT,
    size: 1,
    decode: (r) => ({ requireIncomingTransferMemos: r.podBool() }),
  },
  9: { name: 'nonTransferable', accountType: ACCOUNT_TYPE_MINT, marker: true },
  10: {
    name: 'interestBearingConfig',
    accountType: ACCOUNT_TYPE_MINT,
    size: 52,
    decode: (r) => {
      const c = readInterestBearingConfig(r);
      return {
        rateAuthority: c.rateAuthority,
        initializationTimestamp: u64(c.initializationTimestamp),
        preUpdateAverageRate: c.preUpdateAverageRate,
        lastUpdateTimestamp: u64(c.lastUpdateTimestamp),
        currentRate: c.currentRate,
      };
    },
  },
  11: { name: 'cpiGuard', accountType: ACCOUNT_TYPE_ACCOUNT, size: 1, decode: (r) => ({ lockCpi: r.podBool() }) },
  12: {
    name: 'permanentDelegate',
    accountType: ACCOUNT_TYPE_MINT,
    size: 32,
    decode: (r) => ({ delegate: r.nullablePubkey() }),
  },
  13: { name: 'nonTransferableAccount', accountType: ACCOUNT_TYPE_ACCOUNT, marker: true },
  14: {
    name: 'transferHook',
    accountType: ACCOUNT_TYPE_MINT,
    size: 64,
    decode: (r) => ({ authority: r.nullablePubkey(), programId: r.nullablePubkey() }),
  },
  15: {
    name: 'transferHookAccount',
    accountType: ACCOUNT_TYPE_ACCOUNT,
    size: 1,
    decode: (r) => ({ transferring: r.podBool() }),
  },
  16: {
    name: 'confidentialTransferFeeConfig',
    accountType: ACCOUNT_TYPE_MINT,
    size: 129,
    // The withdraw-withheld ElGamal key is not nullable: a zeroed key still prints (as base64).
    decode: (r) => ({
      authority: r.nullablePubkey(),
      withdrawWithheldAuthorityElgamalPubkey: r.base64(32),
      harvestToMintEnabled: r.podBool(),
      withheldAmount: r.base64(64),
    }),
  },
  17: {
    name: 'confidentialTransferFeeAmount',
    accountType: ACCOUNT_TYPE_ACCOUNT,
    size: 64,
    decode: (r) => ({ withheldAmount: r.base64(64) }),
  },
  18: {
    name: 'metadataPointer',
    accountType: ACCOUNT_TYPE_MINT,
    size: 64,
    decode: (r) => ({ authority: r.nullablePubkey(), metadataAddress: r.nullablePubkey() }),
  },
  19: {
    name: 'tokenMetadata',
    accountType: ACCOUNT_TYPE_MINT,
    decode: (r) => {
      const updateAuthority = r.nullablePubkey();
      const mint = r.pubkey();
      const name = r.borshString();
      const symbol = r.borshString();
      const uri = r.borshString();
      const n = r.u32();
      const additionalMetadata: [string, string][] = [];
      for (let i = 0; i < n; i++) additionalMetadata.push([r.borshString(), r.borshString()]);
      // borsh::from_slice refuses bytes left over after the value.
      if (r.remaining !== 0) throw new DecodeError('trailing bytes after token metadata');
      return { updateAuthority, mint, name, symbol, uri, additionalMetadata };
    },
  },
  20: {
    name: 'groupPointer',
    accountType: ACCOUNT_TYPE_MINT,
    size: 64,
    decode: (r) => ({ authority: r.nullablePubkey(), groupAddress: r.nullablePubkey() }),
  },
  21: {
    name: 'tokenGroup',
    accountType: ACCOUNT_TYPE_MINT,
    size: 80,
    decode: (r) => ({
      updateAuthority: r.nullablePubkey(),
      mint: r.pubkey(),
      size: u64(r.u64()),
      maxSize: u64(r.u64()),
    }),
  },
  22: {
    name: 'groupMemberPointer',
    accountType: ACCOUNT_TYPE_MINT,
    size: 64,
    decode: (r) => ({ authority: r.nullablePubkey(), memberAddress: r.nullablePubkey() }),
  },
  23: {
    name: 'tokenGroupMember',
    accountType: ACCOUNT_TYPE_MINT,
    size: 72,
    decode: (r) => ({ mint: r.pubkey(), group: r.pubkey(), memberNumber: u64(r.u64()) }),
  },
  24: {
    name: 'confidentialMintBurn',
    accountType: ACCOUNT_TYPE_MINT,
    size: 196,
    decode: (r) => ({
      confidentialSupply: r.base64(64),
      decryptableSupply: r.base64(36),
      supplyElgamalPubkey: r.base64(32),
      pendingBurn: r.base64(64),
    }),
  },
  25: {
    name: 'scaledUiAmountConfig',
    accountType: ACCOUNT_TYPE_MINT,
    size: 56,
    decode: (r) => {
      const c = readScaledUiAmountConfig(r);
      return {
        authority: c.authority,
        multiplier: rustDisplay(c.multiplier),
        newMultiplierEffectiveTimestamp: u64(c.newMultiplierEffectiveTimestamp),
        newMultiplier: rustDisplay(c.newMultiplier),
      };
    },
  },
  26: {
    name: 'pausableConfig',
    accountType: ACCOUNT_TYPE_MINT,
    size: 33,
    decode: (r) => ({ authority: r.nullablePubkey(), paused: r.podBool() }),
  },
  27: { name: 'pausableAccount', accountType: ACCOUNT_TYPE_ACCOUNT, marker: true },
  28: {
    name: 'permissionedBurnConfig',
    accountType: ACCOUNT_TYPE_MINT,
    size: 32,
    decode: (r) => ({ authority: r.nullablePubkey() }),
  },
};

const u16At = (b: Uint8Array, i: number): number => b[i]! | (b[i + 1]! << 8);

/** get_extension_types: undefined where spl-token-2022 returns an error. */
function extensionTypes(tlv: Uint8Array): number[] | undefined {
  const types: number[] = [];
  let i = 0;
  while (i < tlv.length) {
    // A lone trailing byte is slack left for a realloc, not an entry.
    if (tlv.length < i + 2) break;
    const type = u16At(tlv, i);
    if (type !== 0 && !(type in SPECS)) return undefined;
    if (type === 0) break;
    if (tlv.length < i + 4) return undefined;
    const end = i + 4 + u16At(tlv, i + 2);
    if (end > tlv.length) return undefined;
    types.push(type);
    i = end;
  }
  return types;
}

/** get_extension_bytes: the value of the first entry of `type`, walking entries without judging them. */
export function extensionValue(tlv: Uint8Array, type: number): Uint8Array | undefined {
  let i = 0;
  while (i < tlv.length) {
    if (tlv.length < i + 4) return undefined;
    const t = u16At(tlv, i);
    const end = i + 4 + u16At(tlv, i + 2);
    if (t === type) return end > tlv.length ? undefined : tlv.subarray(i + 4, end);
    if (t === 0) return undefined;
    i = end;
  }
  return undefined;
}

/**
 * get_extension::<V>() for a fixed-size value: present, belonging to this kind of base state (mint
 * or account), and exactly V's size.
 */
export function podExtension(tlv: Uint8Array, baseType: number, type: number): Reader | undefined {
  const spec = SPECS[type];
  if (!spec || spec.accountType !== baseType) return undefined;
  const value = extensionValue(tlv, type);
  if (value === undefined || (spec.size !== undefined && value.length !== spec.size)) return undefined;
  return new Reader(value);
}

function parseExtension(tlv: Uint8Array, baseType: number, type: number): UiExtension {
  const spec = SPECS[type]!;
  if (spec.marker) return { extension: spec.name };
  const r = podExtension(tlv, baseType, type);
  if (!r) return unparseable();
  try {
    return { extension: spec.name, state: spec.decode!(r) };
  } catch (e) {
    if (e instanceof DecodeError) return unparseable();
    throw e;
  }
}

/** The `extensions` list of a mint (baseType 1) or token account (baseType 2). */
export function parseExtensions(tlv: Uint8Array, baseType: number): UiExtension[] {
  const types = extensionTypes(tlv) ?? [];
  return types.map((t) => parseExtension(tlv, baseType, t));
}
