// SPL Token and Token-2022 accounts (account-decoder's parse_token_v3). Both programs go through
// the Token-2022 unpacking rules, as in Agave: a base state (165-byte account or 82-byte mint),
// then, when the data is longer, an account-type byte at offset 165 and the TLV extensions.
import { encodeBase58, decodeBase58 } from '../../../zk/base58.js';
import { NATIVE_MINT } from './ids.js';
import { DecodeError, Reader } from './reader.js';
import { uiTokenAmount, type MintAmountInfo } from './token-amount.js';
import {
  ACCOUNT_TYPE_ACCOUNT,
  ACCOUNT_TYPE_MINT,
  accountStateName,
  parseExtensions,
  podExtension,
  readInterestBearingConfig,
  readScaledUiAmountConfig,
} from './token-extensions.js';
import type { AccountParseContext } from './index.js';

const ACCOUNT_LEN = 165;
const MINT_LEN = 82;
const MULTISIG_LEN = 355;
const MAX_SIGNERS = 11;
const INTEREST_BEARING_CONFIG = 10;
const SCALED_UI_AMOUNT = 25;

/** COption<T>: a four-byte tag that must be exactly 0 or 1, then the value's bytes either way. */
function cOption<T>(r: Reader, size: number, read: (r: Reader) => T): T | null {
  const tag = r.u32();
  const body = new Reader(r.bytes(size));
  if (tag === 0) return null;
  if (tag !== 1) throw new DecodeError(`invalid COption tag ${tag}`);
  return read(body);
}
const cOptionPubkey = (r: Reader) => cOption(r, 32, (b) => b.pubkey());

interface AccountBase {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: number;
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

interface MintBase {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

function unpackAccountBase(r: Reader): AccountBase {
  const mint = r.pubkey();
  const owner = r.pubkey();
  const amount = r.u64();
  const delegate = cOptionPubkey(r);
  const state = r.u8();
  if (state > 2) throw new DecodeError(`invalid account state ${state}`);
  const isNative = cOption(r, 8, (b) => b.u64());
  const delegatedAmount = r.u64();
  const closeAuthority = cOptionPubkey(r);
  // Pack::unpack refuses an uninitialized base.
  if (state === 0) throw new DecodeError('uninitialized token account');
  return { mint, owner, amount, delegate, state, isNative, delegatedAmount, closeAuthority };
}

function unpackMintBase(r: Reader): MintBase {
  const mintAuthority = cOptionPubkey(r);
  const supply = r.u64();
  const decimals = r.u8();
  const isInitialized = r.bool();
  const freezeAuthority = cOptionPubkey(r);
  if (!isInitialized) throw new DecodeError('uninitialized mint');
  return { mintAuthority, supply, decimals, isInitialized, freezeAuthority };
}

/**
 * StateWithExtensions::unpack: the base state, then the TLV area. Anything after the base must
 * be zero padding up to offset 165, the account-type byte, and the TLV entries; a multisig-sized
 * buffer is never a mint or an account.
 */
function unpackWithExtensions<T>(
  data: Uint8Array,
  baseLen: number,
  accountType: number,
  unpackBase: (r: Reader) => T,
): { base: T; tlv: Uint8Array } | undefined {
  if (data.length === MULTISIG_LEN || data.length < baseLen) return undefined;
  let base: T;
  try {
    base = unpackBase(new Reader(data.subarray(0, baseLen)));
  } catch (e) {
    if (e instanceof DecodeError) return undefined;
    throw e;
  }
  if (data.length === baseLen) return { base, tlv: new Uint8Array(0) };
  if (data.length < ACCOUNT_LEN + 1) return undefined;
  for (let i = baseLen; i < ACCOUNT_LEN; i++) if (data[i] !== 0) return undefined;
  if (data[ACCOUNT_LEN] !== accountType) return undefined;
  return { base, tlv: data.subarray(ACCOUNT_LEN + 1) };
}

const unpackAccount = (data: Uint8Array) =>
  unpackWithExtensions(data, ACCOUNT_LEN, ACCOUNT_TYPE_ACCOUNT, unpackAccountBase);
const unpackMint = (data: Uint8Array) => unpackWithExtensions(data, MINT_LEN, ACCOUNT_TYPE_MINT, unpackMintBase);

/**
 * The RPC side of Agave (get_additional_mint_data): the mint's decimals plus the two Token-2022
 * configs that change how amounts read. The mint's owner is not checked, as in Agave.
 */
function mintAmountInfo(mint: string, ctx: AccountParseContext): MintAmountInfo | undefined {
  const account = ctx.accountData(decodeBase58(mint));
  if (!account) {
    // Agave's token-account listings answer for wrapped SOL without reading its mint account.
    return mint === NATIVE_MINT ? { decimals: 9, unixTimestamp: () => ctx.unixTimestamp() } : undefined;
  }
  const unpacked = unpackMint(account.data);
  if (!unpacked) return undefined;
  const { base, tlv } = unpacked;
  const info: MintAmountInfo = { decimals: base.decimals, unixTimestamp: () => ctx.unixTimestamp() };
  const interest = podExtension(tlv, ACCOUNT_TYPE_MINT, INTEREST_BEARING_CONFIG);
  if (interest) info.interestBearing = readInterestBearingConfig(interest);
  const scaled = podExtension(tlv, ACCOUNT_TYPE_MINT, SCALED_UI_AMOUNT);
  if (scaled) info.scaledUiAmount = readScaledUiAmountConfig(scaled);
  return info;
}

function parseTokenAccount(base: AccountBase, tlv: Uint8Array, mint: MintAmountInfo): unknown {
  // Optional fields are left out when absent (serde skip_serializing_if), not written as null.
  const info: Record<string, unknown> = {
    mint: base.mint,
    owner: base.owner,
    tokenAmount: uiTokenAmount(base.amount, mint),
  };
  if (base.delegate !== null) info.delegate = base.delegate;
  info.state = accountStateName(base.state);
  info.isNative = base.isNative !== null;
  if (base.isNative !== null) info.rentExemptReserve = uiTokenAmount(base.isNative, mint);
  if (base.delegate !== null) info.delegatedAmount = uiTokenAmount(base.delegatedAmount, mint);
  if (base.closeAuthority !== null) info.closeAuthority = base.closeAuthority;
  const extensions = parseExtensions(tlv, ACCOUNT_TYPE_ACCOUNT);
  if (extensions.length > 0) info.extensions = extensions;
  return { type: 'account', info };
}

function parseMint(base: MintBase, tlv: Uint8Array): unknown {
  const info: Record<string, unknown> = {
    mintAuthority: base.mintAuthority,
    supply: base.supply.toString(),
    decimals: base.decimals,
    isInitialized: base.isInitialized,
    freezeAuthority: base.freezeAuthority,
  };
  const extensions = parseExtensions(tlv, ACCOUNT_TYPE_MINT);
  if (extensions.length > 0) info.extensions = extensions;
  return { type: 'mint', info };
}

function parseMultisig(data: Uint8Array): unknown {
  const r = new Reader(data);
  const numRequiredSigners = r.u8();
  const numValidSigners = r.u8();
  const isInitialized = r.bool();
  if (!isInitialized) return undefined;
  const signers: string[] = [];
  for (let i = 0; i < MAX_SIGNERS; i++) {
    const key = r.bytes(32);
    // Unused signer slots are zeroed and left out.
    if (key.some((b) => b !== 0)) signers.push(encodeBase58(key));
  }
  return { type: 'multisig', info: { numRequiredSigners, numValidSigners, isInitialized, signers } };
}

/** parse_token_v3 for an account owned by SPL Token or Token-2022; undefined where Agave errs. */
export function parseToken(data: Uint8Array, ctx: AccountParseContext): unknown {
  const account = unpackAccount(data);
  if (account) {
    // A token account cannot be shown without its mint's decimals; Agave then gives up on
    // jsonParsed (and the caller falls back to binary) rather than trying the other layouts.
    const mint = mintAmountInfo(account.base.mint, ctx);
    return mint ? parseTokenAccount(account.base, account.tlv, mint) : undefined;
  }
  const mint = unpackMint(data);
  if (mint) return parseMint(mint.base, mint.tlv);
  if (data.length === MULTISIG_LEN) return parseMultisig(data);
  return undefined;
}
