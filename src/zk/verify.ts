// An independent Groth16 verifier over @noble/curves' BN254 pairing (no snarkjs code involved):
// e(-A, B) · e(alpha, beta) · e(IC(x), gamma) · e(C, delta) == 1, as Solana's groth16 verifiers
// check it. Used to cross-check the provers.
import { bn254 } from '@noble/curves/bn254.js';
import type { G1, G2, ProofPoints } from './proof-format.js';
import { FR } from './field.js';

/** snarkjs verification_key.json (decimal strings, projective triples). */
export interface SnarkjsVerificationKey {
  protocol: string;
  curve: string;
  nPublic: number;
  vk_alpha_1: string[];
  vk_beta_2: string[][];
  vk_gamma_2: string[][];
  vk_delta_2: string[][];
  IC: string[][];
}

const g1Point = (p: G1) => (p.x === 0n && p.y === 0n ? bn254.G1.Point.ZERO : bn254.G1.Point.fromAffine(p));
const g2Point = (p: G2) =>
  p.x.c0 === 0n && p.x.c1 === 0n && p.y.c0 === 0n && p.y.c1 === 0n ? bn254.G2.Point.ZERO : bn254.G2.Point.fromAffine(p);

export const vkG1 = (v: string[]): G1 => ({ x: BigInt(v[0]!), y: BigInt(v[1]!) });
export const vkG2 = (v: string[][]): G2 => ({
  x: { c0: BigInt(v[0]![0]!), c1: BigInt(v[0]![1]!) },
  y: { c0: BigInt(v[1]![0]!), c1: BigInt(v[1]![1]!) },
});

export function verifyGroth16(
  vk: SnarkjsVerificationKey,
  publicInputs: readonly bigint[],
  proof: ProofPoints,
): boolean {
  if (publicInputs.length !== vk.nPublic) return false;
  if (publicInputs.some((x) => x < 0n || x >= FR)) return false;
  try {
    let acc = g1Point(vkG1(vk.IC[0]!));
    publicInputs.forEach((x, i) => {
      if (x !== 0n) acc = acc.add(g1Point(vkG1(vk.IC[i + 1]!)).multiply(x));
    });
    const a = g1Point(proof.a);
    const pairs = [
      { g1: a.negate(), g2: g2Point(proof.b) },
      { g1: g1Point(vkG1(vk.vk_alpha_1)), g2: g2Point(vkG2(vk.vk_beta_2)) },
      { g1: acc, g2: g2Point(vkG2(vk.vk_gamma_2)) },
      { g1: g1Point(proof.c), g2: g2Point(vkG2(vk.vk_delta_2)) },
    ];
    return bn254.fields.Fp12.eql(bn254.pairingBatch(pairs), bn254.fields.Fp12.ONE);
  } catch {
    // Points off the curve or outside the subgroup.
    return false;
  }
}
