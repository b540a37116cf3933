// Light Protocol's program ids on localnet (as @lightprotocol/zk-compression-cli loads them) and
// the accounts its programs and indexers key on.
import { decodeBase58 } from '../zk/base58.js';

export const LIGHT_IDS = {
  system: 'SySTEM1eSU2p4BGQfQpimFEWWSC1XDFeun3Nqzz3rT7',
  accountCompression: 'compr6CUsB5m2jS4Y3831ztGSTnDpnKJTKS95d64XVq',
  compressedToken: 'cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m',
  registry: 'Lighton6oQpVkeewmo2mcPTQQp7kYHr4fWpAgJyEmDX',
  noop: 'noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV',
  /** The system program's registered-program PDA: accounts[1] of every insert_into_queues it makes. */
  registeredProgramPda: '35hkDgaAKwMCaxRz2ocSZ6NaUrtKkyNqU6c4RV3tYJRh',
} as const;

export const LIGHT_SYSTEM_PROGRAM_ID = decodeBase58(LIGHT_IDS.system);
