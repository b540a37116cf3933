// The forester's instructions to Light's registry program (compression-e2e.md §6): the V2 batch
// updates (the registry checks the forester's epoch registration, then invokes account-compression
// with its CPI authority) and the per-epoch registration. Anchor instructions: sha256("global:name")
// [..8], then borsh arguments.
import { createHash } from 'node:crypto';
import { findProgramAddress } from '../zk/pda.js';
import { LIGHT_IDS } from '../ledger/light-ids.js';
import type { AccountMeta, Instruction } from '../ledger/tx-build.js';
import { decodeBase58 } from '../zk/base58.js';
import type { CompressedProof } from '../zk/proof-format.js';

const disc = (name: string): Buffer => createHash('sha256').update(`global:${name}`).digest().subarray(0, 8);

export const REGISTRY_DISCRIMINATORS = {
  batchAppend: disc('batch_append'),
  batchNullify: disc('batch_nullify'),
  batchUpdateAddressTree: disc('batch_update_address_tree'),
  registerForesterEpoch: disc('register_forester_epoch'),
  finalizeRegistration: disc('finalize_registration'),
  nullify: disc('nullify'),
  updateAddressMerkleTree: disc('update_address_merkle_tree'),
} as const;

const key = (s: string) => decodeBase58(s);
export const REGISTRY = key(LIGHT_IDS.registry);
const ACCOUNT_COMPRESSION = key(LIGHT_IDS.accountCompression);
const NOOP = key(LIGHT_IDS.noop);
const SYSTEM_PROGRAM = new Uint8Array(32);
const u64le = (n: bigint | number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
const pda = (seeds: Uint8Array[]) => key(findProgramAddress(seeds, LIGHT_IDS.registry));

/** The registry's PDAs (programs/registry/src/utils.rs). */
export const registryPdas = {
  /** Signs account-compression's CPIs; its bump goes into every batch instruction. */
  cpiAuthority: pda([Buffer.from('cpi_authority')]),
  cpiAuthorityBump: 255,
  /** The registry as a program registered with account-compression. */
  registeredProgram: key(findProgramAddress([REGISTRY], LIGHT_IDS.accountCompression)),
  protocolConfig: pda([Buffer.from('authority')]),
  forester: (authority: Uint8Array) => pda([Buffer.from('forester'), authority]),
  foresterEpoch: (forester: Uint8Array, epoch: bigint) => pda([Buffer.from('forester_epoch'), forester, u64le(epoch)]),
  epoch: (epoch: bigint) => pda([u64le(epoch)]),
};

const meta = (pubkey: Uint8Array, isWritable: boolean, isSigner = false): AccountMeta => ({
  pubkey,
  isSigner,
  isWritable,
});

/** What a batch instruction carries: the root after the batch and the proof of it. */
export interface BatchUpdate {
  authority: Uint8Array;
  epoch: bigint;
  tree: Uint8Array;
  newRoot: Uint8Array;
  proof: CompressedProof;
}

function batchData(d: Buffer, u: BatchUpdate): Uint8Array {
  const body = Buffer.concat([u.newRoot, Buffer.from(u.proof.a), Buffer.from(u.proof.b), Buffer.from(u.proof.c)]);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(body.length);
  return Buffer.concat([d, Buffer.of(registryPdas.cpiAuthorityBump), len, body]);
}

function batchAccounts(u: BatchUpdate): AccountMeta[] {
  const forester = registryPdas.forester(u.authority);
  return [
    meta(registryPdas.foresterEpoch(forester, u.epoch), true),
    meta(u.authority, false, true),
    meta(registryPdas.cpiAuthority, false),
    meta(registryPdas.registeredProgram, false),
    meta(ACCOUNT_COMPRESSION, false),
    meta(NOOP, false),
    meta(u.tree, true),
  ];
}

/** Output queue → state tree. The queue reimburses the network fee to `authority`. */
export const batchAppendIx = (u: BatchUpdate & { outputQueue: Uint8Array }): Instruction => ({
  programId: REGISTRY,
  keys: [...batchAccounts(u), meta(u.outputQueue, true), meta(u.authority, true)],
  data: batchData(REGISTRY_DISCRIMINATORS.batchAppend, u),
});

/** Input queue → nullifiers in the state tree. */
export const batchNullifyIx = (u: BatchUpdate): Instruction => ({
  programId: REGISTRY,
  keys: batchAccounts(u),
  data: batchData(REGISTRY_DISCRIMINATORS.batchNullify, u),
});

/** Address queue → address tree. The tree reimburses the network fee to `authority`. */
export const batchAddressAppendIx = (u: BatchUpdate): Instruction => ({
  programId: REGISTRY,
  keys: [...batchAccounts(u), meta(u.authority, true)],
  data: batchData(REGISTRY_DISCRIMINATORS.batchUpdateAddressTree, u),
});

/** Registers the forester for an epoch (accepted during the epoch's registration phase). */
export function registerEpochIx(authority: Uint8Array, epoch: bigint): Instruction {
  const forester = registryPdas.forester(authority);
  return {
    programId: REGISTRY,
    keys: [
      meta(authority, true, true),
      meta(authority, false, true),
      meta(forester, false),
      meta(registryPdas.foresterEpoch(forester, epoch), true),
      meta(registryPdas.protocolConfig, false),
      meta(registryPdas.epoch(epoch), true),
      meta(SYSTEM_PROGRAM, false),
    ],
    data: Buffer.concat([REGISTRY_DISCRIMINATORS.registerForesterEpoch, u64le(epoch)]),
  };
}

/** Finalizes the epoch's registration (once it is active): fixes the total weight eligibility uses. */
export function finalizeRegistrationIx(authority: Uint8Array, epoch: bigint): Instruction {
  const forester = registryPdas.forester(authority);
  return {
    programId: REGISTRY,
    keys: [
      meta(authority, false, true),
      meta(registryPdas.foresterEpoch(forester, epoch), true),
      meta(registryPdas.epoch(epoch), false),
    ],
    data: Buffer.from(REGISTRY_DISCRIMINATORS.finalizeRegistration),
  };
}

/** A V1 nullification: one queued spend, its leaf's path below the canopy, and where it sits in the queue. */
export interface V1Nullify {
  authority: Uint8Array;
  epoch: bigint;
  tree: Uint8Array;
  queue: Uint8Array;
  /** The tree's current changelog index (the proof is against the root it names). */
  changelogIndex: number;
  /** The spend's bucket in the queue account's hash set. */
  queueIndex: number;
  leafIndex: number;
  /** Siblings from the leaf level up to the canopy. */
  proof: Uint8Array[];
}

export function v1NullifyIx(n: V1Nullify): Instruction {
  const forester = registryPdas.forester(n.authority);
  const vec = (count: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(count);
    return b;
  };
  const u16 = Buffer.alloc(2);
  u16.writeUInt16LE(n.queueIndex);
  return {
    programId: REGISTRY,
    keys: [
      meta(registryPdas.foresterEpoch(forester, n.epoch), true),
      meta(n.authority, true, true),
      meta(registryPdas.cpiAuthority, false),
      meta(registryPdas.registeredProgram, false),
      meta(ACCOUNT_COMPRESSION, false),
      meta(NOOP, false),
      meta(n.tree, true),
      meta(n.queue, true),
    ],
    data: Buffer.concat([
      REGISTRY_DISCRIMINATORS.nullify,
      Buffer.of(registryPdas.cpiAuthorityBump),
      vec(1),
      u64le(n.changelogIndex),
      vec(1),
      u16,
      vec(1),
      u64le(n.leafIndex),
      vec(1),
      vec(n.proof.length),
      ...n.proof,
    ]),
  };
}

/** A V1 address insertion: the queued address's low element, its path below the canopy, and where things sit. */
export interface V1AddressUpdate {
  authority: Uint8Array;
  epoch: bigint;
  tree: Uint8Array;
  queue: Uint8Array;
  /** The tree's changelog and indexed-changelog indexes naming its current root (no patching needed). */
  changelogIndex: number;
  indexedChangelogIndex: number;
  /** The address's bucket in the queue account's hash set. */
  queueIndex: number;
  low: { index: number; value: Uint8Array; nextIndex: number; nextValue: Uint8Array };
  /** Siblings of the low element's leaf from the leaf level up to the canopy (16 on Light's V1 trees). */
  proof: Uint8Array[];
}

export function v1AddressUpdateIx(u: V1AddressUpdate): Instruction {
  const forester = registryPdas.forester(u.authority);
  const head = Buffer.alloc(7);
  head.writeUInt8(registryPdas.cpiAuthorityBump, 0);
  head.writeUInt16LE(u.changelogIndex, 1);
  head.writeUInt16LE(u.indexedChangelogIndex, 3);
  head.writeUInt16LE(u.queueIndex, 5);
  return {
    programId: REGISTRY,
    keys: [
      meta(registryPdas.foresterEpoch(forester, u.epoch), true),
      meta(u.authority, true, true),
      meta(registryPdas.cpiAuthority, false),
      meta(registryPdas.registeredProgram, false),
      meta(ACCOUNT_COMPRESSION, false),
      meta(u.queue, true),
      meta(u.tree, true),
      meta(NOOP, false),
    ],
    data: Buffer.concat([
      REGISTRY_DISCRIMINATORS.updateAddressMerkleTree,
      head,
      u64le(u.low.index),
      u.low.value,
      u64le(u.low.nextIndex),
      u.low.nextValue,
      ...u.proof,
    ]),
  };
}
