// Rust's f64 formatting, reproduced where Agave puts formatted floats into strings: uiAmountString
// of interest-bearing / scaled-ui-amount mints (`format!("{:.*}", decimals, x)`) and the
// multipliers of the scaled-ui-amount extension (`x.to_string()`). JavaScript's toFixed and
// toString differ from Rust (exponent notation, precision caps, rounding of exact ties), so both
// are done here exactly.

/** x = (-1)^neg * mant * 2^exp, exactly. */
function decompose(x: number): { neg: boolean; mant: bigint; exp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased !== 0) mant |= 1n << 52n;
  return { neg: hi >>> 31 === 1, mant, exp: biased === 0 ? -1074 : biased - 1075 };
}

/**
 * Rust's `format!("{:.digits$}", x)`: the exact decimal value of the double, rounded to `digits`
 * places with ties to even (core's exact-mode float formatting), never in exponent notation, and
 * with the sign kept on negative zero.
 */
export function rustFixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const { neg, mant, exp } = decompose(x);
  let num = mant * 10n ** BigInt(digits);
  let den = 1n;
  if (exp >= 0) num <<= BigInt(exp);
  else den <<= BigInt(-exp);
  let q = num / den;
  const twice = 2n * (num - q * den);
  if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  let s = q.toString();
  if (digits > 0) {
    s = s.padStart(digits + 1, '0');
    s = `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
  }
  return neg ? `-${s}` : s;
}

/**
 * Rust's `Display` for f64: the shortest digits that round-trip (the same digits JavaScript picks),
 * written out positionally however large or small the exponent.
 */
export function rustDisplay(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const intLen = Number(exponent) + 1;
  let s: string;
  if (intLen <= 0) s = `0.${'0'.repeat(-intLen)}${digits}`;
  else if (intLen >= digits.length) s = digits + '0'.repeat(intLen - digits.length);
  else s = `${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
  return x < 0 ? `-${s}` : s;
}

/**
 * num_traits::pow for f64 (square-and-multiply). Token-2022 divides by `pow(10.0, decimals)`, and
 * above 10^22 the product's rounding depends on this exact sequence of multiplications.
 */
export function powF64(base: number, exp: number): number {
  if (exp === 0) return 1;
  while ((exp & 1) === 0) {
    base *= base;
    exp >>>= 1;
  }
  if (exp === 1) return base;
  let acc = base;
  while (exp > 1) {
    exp >>>= 1;
    base *= base;
    if ((exp & 1) === 1) acc *= base;
  }
  return acc;
}
