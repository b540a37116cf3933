// Conversions between the proto messages of zkgate.prover.v1 and the service's domain types.
// Values are 32-byte big-endian buffers on the wire; pubkeys are base58 strings inside.
import { bigIntToBytes32, bytesToBigInt } from '../zk/field.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import type { CompressedProof, ProofPoints } from '../zk/proof-format.js';
import { ProverError } from './errors.js';
import type { AccountEntry, AddressEntry, Proof, TreeTypeNumber } from './types.js';

export type Bytes = Buffer | Uint8Array;

const invalid = (msg: string) => new ProverError('invalid_argument', msg);

export function value32(b: Bytes | undefined, field: string): bigint {
  if (!b || b.length !== 32) throw invalid(`${field} must be 32 bytes, got ${b?.length ?? 0}`);
  return bytesToBigInt(b);
}

export const bytes32 = (v: bigint): Buffer => Buffer.from(bigIntToBytes32(v));

export function pubkey(b: Bytes | undefined, field: string): string {
  if (!b || b.length !== 32) throw invalid(`${field} must be a 32-byte public key, got ${b?.length ?? 0} bytes`);
  return encodeBase58(b);
}

export const pubkeyBytes = (s: string): Buffer => Buffer.from(decodeBase58(s));

/** Proto enum names of Light's tree types (proto-loader gives enums as their names). */
export const TREE_TYPE_NAMES: Record<TreeTypeNumber, string> = {
  1: 'TREE_TYPE_STATE_V1',
  2: 'TREE_TYPE_ADDRESS_V1',
  3: 'TREE_TYPE_STATE_V2',
  4: 'TREE_TYPE_ADDRESS_V2',
};

export function treeTypeNumber(name: string | number | undefined): TreeTypeNumber | undefined {
  if (typeof name === 'number') return name >= 1 && name <= 4 ? (name as TreeTypeNumber) : undefined;
  const hit = Object.entries(TREE_TYPE_NAMES).find(([, n]) => n === name);
  return hit ? (Number(hit[0]) as TreeTypeNumber) : undefined;
}

export interface CompressedProofMsg {
  a: Bytes;
  b: Bytes;
  c: Bytes;
}

export const compressedToMsg = (c: CompressedProof): CompressedProofMsg => ({
  a: Buffer.from(c.a),
  b: Buffer.from(c.b),
  c: Buffer.from(c.c),
});

export const compressedFromMsg = (m: CompressedProofMsg): CompressedProof => ({
  a: [...m.a],
  b: [...m.b],
  c: [...m.c],
});

export function rawToMsg(p: ProofPoints): { ar: Buffer; bs: Buffer; krs: Buffer } {
  const cat = (...vs: bigint[]) => Buffer.concat(vs.map(bytes32));
  return {
    ar: cat(p.a.x, p.a.y),
    bs: cat(p.b.x.c1, p.b.x.c0, p.b.y.c1, p.b.y.c0),
    krs: cat(p.c.x, p.c.y),
  };
}

export function pointsFromRawMsg(m: { ar: Bytes; bs: Bytes; krs: Bytes }): ProofPoints {
  const at = (b: Bytes, i: number) => bytesToBigInt(b.subarray(i * 32, i * 32 + 32));
  return {
    a: { x: at(m.ar, 0), y: at(m.ar, 1) },
    b: { x: { c1: at(m.bs, 0), c0: at(m.bs, 1) }, y: { c1: at(m.bs, 2), c0: at(m.bs, 3) } },
    c: { x: at(m.krs, 0), y: at(m.krs, 1) },
  };
}

const context = (e: { tree: string; treeType: TreeTypeNumber; queue: string }) => ({
  tree: pubkeyBytes(e.tree),
  treeType: TREE_TYPE_NAMES[e.treeType],
  queue: pubkeyBytes(e.queue),
});

export const accountToMsg = (a: AccountEntry) => ({
  hash: bytes32(a.hash),
  root: bytes32(a.root),
  rootIndex: String(a.rootIndex),
  proveByIndex: a.proveByIndex,
  leafIndex: String(a.leafIndex),
  merkleContext: context(a),
});

export const addressToMsg = (a: AddressEntry) => ({
  address: bytes32(a.address),
  root: bytes32(a.root),
  rootIndex: String(a.rootIndex),
  lowElementLeafIndex: String(a.lowElementLeafIndex),
  merkleContext: context(a),
});

export interface MerkleContextMsg {
  tree: Bytes;
  treeType: string;
  queue: Bytes;
}
export interface AccountMsg {
  hash: Bytes;
  root: Bytes;
  rootIndex: string;
  proveByIndex: boolean;
  leafIndex: string;
  merkleContext: MerkleContextMsg;
}
export interface AddressMsg {
  address: Bytes;
  root: Bytes;
  rootIndex: string;
  lowElementLeafIndex: string;
  merkleContext: MerkleContextMsg;
}

const contextFromMsg = (m: MerkleContextMsg) => ({
  tree: encodeBase58(m.tree),
  treeType: treeTypeNumber(m.treeType) ?? 1,
  queue: encodeBase58(m.queue),
});

export const accountFromMsg = (m: AccountMsg): AccountEntry => ({
  hash: bytesToBigInt(m.hash),
  root: bytesToBigInt(m.root),
  rootIndex: Number(m.rootIndex),
  leafIndex: Number(m.leafIndex),
  proveByIndex: m.proveByIndex,
  ...contextFromMsg(m.merkleContext),
});

export const addressFromMsg = (m: AddressMsg): AddressEntry => ({
  address: bytesToBigInt(m.address),
  root: bytesToBigInt(m.root),
  rootIndex: Number(m.rootIndex),
  lowElementLeafIndex: Number(m.lowElementLeafIndex),
  ...contextFromMsg(m.merkleContext),
});

export const proofPublicInputs = (p: Proof | undefined): Buffer[] => (p ? p.publicInputs.map(bytes32) : []);

// Request messages as @grpc/proto-loader decodes them (camelCase fields, bytes as Buffer, 64-bit
// integers as decimal strings, enums as their names, absent fields as defaults).
export interface GetValidityProofRequestMsg {
  hashes: Bytes[];
  newAddresses: { address: Bytes; tree: Bytes }[];
  apiVersion: string;
}
export interface InclusionInputMsg {
  root: Bytes;
  pathIndex: string;
  pathElements: Bytes[];
  leaf: Bytes;
}
export interface NonInclusionInputMsg {
  root: Bytes;
  value: Bytes;
  pathIndex: string;
  pathElements: Bytes[];
  leafLowerRangeValue: Bytes;
  leafHigherRangeValue: Bytes;
  nextIndex: string;
}
export interface ProveRequestMsg {
  circuitType: string;
  stateTreeHeight: number;
  addressTreeHeight: number;
  publicInputHash: Bytes;
  inputCompressedAccounts: InclusionInputMsg[];
  newAddresses: NonInclusionInputMsg[];
}
export interface RegisterTreeRequestMsg {
  pubkey: Bytes;
  treeType: string;
  height: number;
  rootHistoryCapacity: number;
  queue: Bytes;
}
export interface AppendLeavesRequestMsg {
  tree: Bytes;
  leaves: Bytes[];
  slot: string;
}
export interface NullifyLeavesRequestMsg {
  tree: Bytes;
  leaves: { hash: Bytes; leafIndex: string; txHash: Bytes }[];
  slot: string;
}
export interface InsertAddressesRequestMsg {
  tree: Bytes;
  addresses: Bytes[];
  slot: string;
}
export interface GetTreeRequestMsg {
  tree: Bytes;
}

// Response messages as the client receives them.
export interface GetValidityProofResponseMsg {
  compressedProof: CompressedProofMsg | null;
  accounts: AccountMsg[];
  addresses: AddressMsg[];
  slot: string;
  circuit: string;
  publicInputs: Bytes[];
  keySha256: string;
}
export interface ProveResponseMsg {
  compressedProof: CompressedProofMsg;
  rawProof: { ar: Bytes; bs: Bytes; krs: Bytes };
  circuit: string;
  publicInputs: Bytes[];
  keySha256: string;
}
export interface GetVerifyingKeyResponseMsg {
  circuit: string;
  keySha256: string;
  verificationKeyJson: string;
}
export interface TreeStateMsg {
  pubkey: Bytes;
  treeType: string;
  height: number;
  rootHistoryCapacity: number;
  queue: Bytes;
  root: Bytes;
  rootSeq: string;
  rootIndex: string;
  nextIndex: string;
  slot: string;
}
