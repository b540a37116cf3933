// The dev setups' pass over a circuit's constraints (circom's R1CS in dev-setup.ts, the structured
// circuits' in ../structured/setup.ts): the QAP polynomials of every wire at tau,
// u_i(tau) = Σ_c A[c][i]·L_c(tau) and likewise v (B) and w (C), and the zkey's coefficient section
// (A and B entries; C is derived by the prover as A·B on the domain). Constraints come in runs of
// R1CS section bytes, so a circuit emitted in pieces never has all of its constraints in memory.
// Natively where the addon has it (qapAccumulate, native/src/qap_setup.hpp: one multiply-add per
// term), else in bigints; `ZKGATE_SETUP=wasm` keeps the bigint form. A test holds the two equal.
import { bytesToScalars, FR, scalarsToBytes } from '../field.js';
import { loadNativeAddon, type NativeAddon } from '../native-addon.js';
import { readLE } from '../r1cs.js';
import { CoefficientSection } from './coefficients.js';

const R = FR;

export interface ConstraintPass {
  /** u_i(tau), v_i(tau), w_i(tau) per wire. */
  u: bigint[];
  v: bigint[];
  w: bigint[];
  /** The zkey's coefficient section: its count, then the A and B entries. */
  coefHeader: Buffer;
  coefChunks: Buffer[];
}

/** The addon, where it has the pass and the caller has not asked for bigints. */
function nativePass(): NativeAddon | undefined {
  if (process.env.ZKGATE_SETUP === 'wasm') return undefined;
  const status = loadNativeAddon();
  return status.ok && typeof status.addon.qapAccumulate === 'function' ? status.addon : undefined;
}

export class QapPass {
  private readonly addon: NativeAddon | undefined;
  /** Native: canonical 32-byte sums per wire. Bigint: sums per wire, reduced in finish (a bigint sum is cheaper than a reduction). */
  private readonly bytes: [Uint8Array, Uint8Array, Uint8Array] | undefined;
  private readonly sums: [bigint[], bigint[], bigint[]] | undefined;
  private readonly coefs: CoefficientSection | undefined;

  constructor(nVars: number, opts: { coefficients: boolean; native?: boolean }) {
    this.addon = opts.native === false ? undefined : nativePass();
    if (this.addon)
      this.bytes = [0, 1, 2].map(() => new Uint8Array(32 * nVars)) as [Uint8Array, Uint8Array, Uint8Array];
    else this.sums = [0, 1, 2].map(() => new Array<bigint>(nVars).fill(0n)) as [bigint[], bigint[], bigint[]];
    this.coefs = opts.coefficients ? new CoefficientSection() : undefined;
  }

  get native(): boolean {
    return this.addon !== undefined;
  }

  /** Adds constraints first .. first + lagrange.length − 1: their R1CS bytes (n8 = 32) and L_c(tau). */
  add(constraints: Uint8Array, first: number, lagrange: readonly bigint[]): void {
    if (this.addon) {
      const [u, v, w] = this.bytes!;
      const { coefs, count } = this.addon.qapAccumulate(
        constraints,
        lagrange.length,
        first,
        scalarsToBytes(lagrange),
        u,
        v,
        w,
        this.coefs !== undefined,
      );
      this.coefs?.pushEncoded(coefs, count);
      return;
    }
    const sums = this.sums!;
    const buf = Buffer.from(constraints.buffer, constraints.byteOffset, constraints.byteLength);
    let pos = 0;
    for (let c = 0; c < lagrange.length; c++) {
      const lc = lagrange[c]!;
      for (const matrix of [0, 1, 2] as const) {
        const acc = sums[matrix];
        const nTerms = buf.readUInt32LE(pos);
        pos += 4;
        for (let t = 0; t < nTerms; t++) {
          const s = buf.readUInt32LE(pos);
          const coef = readLE(buf, pos + 4, 32);
          pos += 36;
          acc[s] = acc[s]! + (coef === 1n ? lc : coef * lc);
          if (matrix !== 2) this.coefs?.push(matrix, first + c, s, coef);
        }
      }
    }
  }

  /**
   * Adds snarkjs's extra rows after the nConstraints constraints (A[nConstraints + s][s] = 1 for
   * the one and each public wire, `publicLagrange` their L values) and returns the pass.
   */
  finish(nConstraints: number, publicLagrange: readonly bigint[]): ConstraintPass {
    const [u, v, w] = this.bytes ? this.bytes.map(bytesToScalars) : this.sums!.map((a) => a.map((x) => x % R));
    publicLagrange.forEach((l, s) => (u![s] = (u![s]! + l) % R));
    this.coefs?.pushPublicRows(nConstraints, publicLagrange.length - 1);
    const section = this.coefs?.finish();
    return {
      u: u!,
      v: v!,
      w: w!,
      coefHeader: section?.header ?? Buffer.alloc(4),
      coefChunks: section?.chunks ?? [],
    };
  }
}
