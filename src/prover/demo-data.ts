// Realistic compressed accounts for demos, tests and benchmarks: hashed by Light's rules for the
// tree they go into (owner, leaf index, tree, lamports, optional address and data), from a seed so
// that runs are reproducible.
import { createHash } from 'node:crypto';
import { compressedAccountHash } from '../zk/account.js';
import { decodeBase58 } from '../zk/base58.js';

const bytes = (seed: string, i: number, what: string) =>
  new Uint8Array(createHash('sha256').update(`${seed}/${what}/${i}`).digest());

/** Hashes of `count` accounts appended to `tree` from leaf `firstLeafIndex` on. */
export function demoAccountHashes(
  tree: string,
  version: 1 | 2,
  firstLeafIndex: number,
  count: number,
  seed = 'zkgate-demo',
): bigint[] {
  const treeBytes = decodeBase58(tree);
  return Array.from({ length: count }, (_, k) => {
    const i = firstLeafIndex + k;
    const withData = i % 3 === 0;
    return compressedAccountHash(
      {
        owner: bytes(seed, i, 'owner'),
        tree: treeBytes,
        leafIndex: i,
        lamports: BigInt(1_000_000 + ((i * 7919) % 1_000_000_000)),
        ...(withData
          ? {
              data: {
                discriminator: bytes(seed, i, 'discriminator').subarray(0, 8),
                dataHash: Uint8Array.from([0, ...bytes(seed, i, 'data').subarray(1)]),
              },
            }
          : {}),
      },
      version,
    );
  });
}

/** A fresh address below 2^248 (first byte 0), as Light derives them. */
export function demoAddress(i: number, seed = 'zkgate-demo'): bigint {
  const b = bytes(seed, i, 'address');
  b[0] = 0;
  return BigInt('0x' + Buffer.from(b).toString('hex'));
}
