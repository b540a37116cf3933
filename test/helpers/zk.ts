// One key cache for the whole suite (node_modules/.cache, kept between runs so only the first
// run compiles and sets up).
import assert from 'node:assert/strict';
import * as snarkjs from 'snarkjs';
import type { SnarkjsVerificationKey } from '../../src/zk/verify.js';
import { verifyGroth16 } from '../../src/zk/verify.js';
import type { ProofPoints } from '../../src/zk/proof-format.js';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const KEY_CACHE = fileURLToPath(new URL('../../node_modules/.cache/zkgate-test/', import.meta.url));
mkdirSync(KEY_CACHE, { recursive: true });

export function toSnarkjsProof({ a, b, c }: ProofPoints) {
  return {
    pi_a: [a.x.toString(), a.y.toString(), '1'],
    pi_b: [
      [b.x.c0.toString(), b.x.c1.toString()],
      [b.y.c0.toString(), b.y.c1.toString()],
      ['1', '0'],
    ],
    pi_c: [c.x.toString(), c.y.toString(), '1'],
    protocol: 'groth16',
    curve: 'bn128',
  };
}

/** Asserts that snarkjs and the independent noble verifier both accept the proof. */
export async function assertVerifies(
  vk: SnarkjsVerificationKey,
  publicInputs: readonly bigint[],
  points: ProofPoints,
): Promise<void> {
  assert.equal(
    await snarkjs.groth16.verify(vk, publicInputs.map(String), toSnarkjsProof(points)),
    true,
    'snarkjs verifies the proof',
  );
  assert.equal(verifyGroth16(vk, publicInputs, points), true, 'the independent verifier accepts the proof');
}
