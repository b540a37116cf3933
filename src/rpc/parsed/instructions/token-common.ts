// Pieces shared by the token parsers: Agave's UiTokenAmount for an instruction's amount and
// decimals, and its reading of a token instruction's trailing authority accounts.
import type { Info } from './common.js';

export interface UiTokenAmount {
  uiAmount: number | null;
  decimals: number;
  amount: string;
  uiAmountString: string;
}

// 10^decimals as a usize: past 10^19 it overflows and Agave gives no uiAmount.
const MAX_POW10_DECIMALS = 19;

/** Agave's token_amount_to_ui_amount_v3; instructions give no mint, so no interest or scaling applies. */
export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  return {
    // `amount as f64 / 10^decimals as f64`: two roundings, as in Rust (not a parse of the string).
    uiAmount: decimals <= MAX_POW10_DECIMALS ? Number(amount) / Number(10n ** BigInt(decimals)) : null,
    decimals,
    amount: amount.toString(),
    uiAmountString: realNumberStringTrimmed(amount, decimals),
  };
}

/** Agave's real_number_string_trimmed. */
export function realNumberStringTrimmed(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
}

/**
 * Agave's parse_signers: the account at `at` is the authority, unless accounts follow it, in which
 * case it is a multisig and those accounts are its signers.
 */
export function addSigners(info: Info, a: readonly string[], at: number, single: string, multisig: string): Info {
  if (a.length > at + 1) {
    info[multisig] = a[at];
    info.signers = a.slice(at + 1);
  } else if (at < a.length) info[single] = a[at];
  return info;
}
