// UiTokenAmount (account-decoder's token_amount_to_ui_amount_v3): a raw u64 amount shown with the
// mint's decimals, or, for Token-2022 mints with an interest-bearing or scaled-ui-amount config,
// with the mint's own amount_to_ui_amount arithmetic (f64, evaluated in the same order so the
// last bits agree).
import { powF64, rustFixed } from './float.js';

export interface InterestBearingConfig {
  rateAuthority: string | null;
  initializationTimestamp: bigint;
  preUpdateAverageRate: number;
  lastUpdateTimestamp: bigint;
  currentRate: number;
}

export interface ScaledUiAmountConfig {
  authority: string | null;
  multiplier: number;
  newMultiplierEffectiveTimestamp: bigint;
  newMultiplier: number;
}

/** What a token account's amounts need from its mint (Agave's SplTokenAdditionalDataV2). */
export interface MintAmountInfo {
  decimals: number;
  interestBearing?: InterestBearingConfig;
  scaledUiAmount?: ScaledUiAmountConfig;
  /** The Clock's unix_timestamp; read only when one of the configs is present. */
  unixTimestamp: () => bigint;
}

export interface UiTokenAmount {
  uiAmount: number | null;
  decimals: number;
  amount: string;
  uiAmountString: string;
}

/** real_number_string_trimmed: the exact decimal string, trailing zeros (and point) removed. */
export function realNumberStringTrimmed(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const s = amount.toString().padStart(decimals + 1, '0');
  return trimUiAmountString(`${s.slice(0, s.length - decimals)}.${s.slice(s.length - decimals)}`, decimals);
}

function trimUiAmountString(s: string, decimals: number): string {
  return decimals > 0 ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;
/** i64::checked_sub: Token-2022 yields no UI amount at all when a timespan overflows. */
const checkedSub = (a: bigint, b: bigint): bigint | undefined => {
  const d = a - b;
  return d < I64_MIN || d > I64_MAX ? undefined : d;
};

// Token-2022 spells the year as 365.24 days of f64 arithmetic; keep the expression as written.
const SECONDS_PER_YEAR = 60 * 60 * 24 * 365.24;
const ONE_IN_BASIS_POINTS = 10_000;

function interestExp(rate: number, timespan: bigint): number {
  // The i16 x i64 product is taken in i128 and only then rounded to f64.
  const numerator = Number(BigInt(rate) * timespan);
  return Math.exp(numerator / SECONDS_PER_YEAR / ONE_IN_BASIS_POINTS);
}

function interestBearingUiAmount(
  c: InterestBearingConfig,
  amount: bigint,
  decimals: number,
  now: bigint,
): string | undefined {
  const pre = checkedSub(c.lastUpdateTimestamp, c.initializationTimestamp);
  if (pre === undefined) return undefined;
  const post = checkedSub(now, c.lastUpdateTimestamp);
  if (post === undefined) return undefined;
  const scale = (interestExp(c.preUpdateAverageRate, pre) * interestExp(c.currentRate, post)) / powF64(10, decimals);
  return trimUiAmountString(rustFixed(Number(amount) * scale, decimals), decimals);
}

function scaledUiAmount(c: ScaledUiAmountConfig, amount: bigint, decimals: number, now: bigint): string {
  const multiplier = now >= c.newMultiplierEffectiveTimestamp ? c.newMultiplier : c.multiplier;
  const scaled = Number(amount) * (multiplier / powF64(10, decimals));
  return trimUiAmountString(rustFixed(scaled, decimals), decimals);
}

/** serde_json writes a non-finite f64 as null; Rust's f64 parse of "inf"/"NaN" gives exactly that. */
const finiteOrNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

export function uiTokenAmount(amount: bigint, mint: MintAmountInfo): UiTokenAmount {
  const { decimals } = mint;
  let uiAmount: number | null;
  let uiAmountString: string;
  if (mint.interestBearing) {
    const s = interestBearingUiAmount(mint.interestBearing, amount, decimals, mint.unixTimestamp());
    uiAmount = s === undefined ? null : finiteOrNull(Number(s));
    uiAmountString = s ?? '';
  } else if (mint.scaledUiAmount) {
    uiAmountString = scaledUiAmount(mint.scaledUiAmount, amount, decimals, mint.unixTimestamp());
    uiAmount = finiteOrNull(Number(uiAmountString));
  } else {
    // 10usize.checked_pow(decimals): beyond 10^19 it overflows and Agave gives no uiAmount.
    uiAmount = decimals <= 19 ? Number(amount) / Number(10n ** BigInt(decimals)) : null;
    uiAmountString = realNumberStringTrimmed(amount, decimals);
  }
  return { uiAmount, decimals, amount: amount.toString(), uiAmountString };
}
