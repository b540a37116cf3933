// Light compressed-account hashes and address derivation (validity-proof.md §12), used to build
// realistic tree data and to check ingested accounts.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToBigInt } from './field.js';
import { hashToBn254Field, hashvToBn254 } from './hash-to-field.js';
import { poseidon, poseidonMany } from './poseidon.js';

export type TreeVersion = 1 | 2;

export interface CompressedAccount {
  owner: Uint8Array; // 32-byte pubkey
  tree: Uint8Array; // 32-byte pubkey of the state tree
  leafIndex: number; // u32
  lamports: bigint; // u64
  address?: Uint8Array; // 32 bytes
  data?: { discriminator: Uint8Array; dataHash: Uint8Array }; // 8 bytes, 32 bytes
}

/**
 * hash_to_bn254 of a pubkey, memoised: trees are few and owners repeat (a Keccak each otherwise).
 * Bounded: the memo starts over when full.
 */
const fieldOfKey = new Map<string, bigint>();
function keyField(key: Uint8Array): bigint {
  const id = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
  let v = fieldOfKey.get(id);
  if (v === undefined) {
    if (fieldOfKey.size >= 8192) fieldOfKey.clear();
    fieldOfKey.set(id, (v = hashToBn254Field(key)));
  }
  return v;
}

function word(): Uint8Array {
  return new Uint8Array(32);
}

function putUint(buf: Uint8Array, offset: number, width: number, v: bigint, littleEndian: boolean): void {
  for (let i = 0; i < width; i++) {
    const byte = Number((v >> BigInt(8 * i)) & 0xffn);
    buf[littleEndian ? offset + i : offset + width - 1 - i] = byte;
  }
}

/**
 * Poseidon over: H(owner), leaf index (u32 at bytes 28..32; LE for V1 trees, BE for V2),
 * H(tree), lamports if non-zero (u64 at 24..32, byte 23 = 1), address if any, then discriminator
 * (bytes 24..32, byte 23 = 2) and data hash if any.
 */
export function compressedAccountHash(a: CompressedAccount, version: TreeVersion): bigint {
  return poseidon(compressedAccountInputs(a, version));
}

/**
 * The hashes of many accounts: one native call per count of inputs (eight at a time in the IFMA
 * lanes where the CPU has them), as a self-check over a run of blocks hashes.
 */
export function compressedAccountHashes(
  list: readonly { account: CompressedAccount; version: TreeVersion }[],
): bigint[] {
  const byArity = new Map<number, { at: number[]; inputs: bigint[][] }>();
  list.forEach(({ account, version }, i) => {
    const inputs = compressedAccountInputs(account, version);
    let g = byArity.get(inputs.length);
    if (!g) byArity.set(inputs.length, (g = { at: [], inputs: [] }));
    g.at.push(i);
    g.inputs.push(inputs);
  });
  const out = new Array<bigint>(list.length);
  for (const { at, inputs } of byArity.values()) poseidonMany(inputs).forEach((h, k) => (out[at[k]!] = h));
  return out;
}

function compressedAccountInputs(a: CompressedAccount, version: TreeVersion): bigint[] {
  if (!Number.isInteger(a.leafIndex) || a.leafIndex < 0 || a.leafIndex > 0xffffffff) {
    throw new RangeError(`leaf index is not a u32: ${a.leafIndex}`);
  }
  if (a.lamports < 0n || a.lamports >= 1n << 64n) throw new RangeError(`lamports is not a u64: ${a.lamports}`);
  const le = version === 1;
  const inputs: bigint[] = [keyField(a.owner)];
  const leaf = word();
  putUint(leaf, 28, 4, BigInt(a.leafIndex), le);
  inputs.push(bytesToBigInt(leaf));
  inputs.push(keyField(a.tree));
  if (a.lamports !== 0n) {
    const lamports = word();
    putUint(lamports, 24, 8, a.lamports, le);
    lamports[23] = 1;
    inputs.push(bytesToBigInt(lamports));
  }
  if (a.address) inputs.push(bytesToBigInt(a.address));
  if (a.data) {
    if (a.data.discriminator.length !== 8) throw new RangeError('discriminator must be 8 bytes');
    const disc = word();
    disc.set(a.data.discriminator, 24);
    disc[23] = 2;
    inputs.push(bytesToBigInt(disc), bytesToBigInt(a.data.dataHash));
  }
  return inputs;
}

const utf8 = (s: string | Uint8Array): Uint8Array => (typeof s === 'string' ? new TextEncoder().encode(s) : s);

/** V2 address: seed = hashv(seeds), address = hashv([seed, tree, program]). Returns [seed, address]. */
export function deriveAddressV2(
  seeds: readonly (string | Uint8Array)[],
  tree: Uint8Array,
  programId: Uint8Array,
): { seed: Uint8Array; address: Uint8Array } {
  const seed = hashvToBn254(seeds.map(utf8));
  return { seed, address: hashvToBn254([seed, tree, programId]) };
}

/** V1 (legacy) address: seed = keccak(program ‖ seeds) with byte 0 zeroed, address = hashv([tree, seed]). */
export function deriveAddressV1(
  seeds: readonly (string | Uint8Array)[],
  tree: Uint8Array,
  programId: Uint8Array,
): { seed: Uint8Array; address: Uint8Array } {
  const h = keccak_256.create();
  h.update(programId);
  for (const s of seeds) h.update(utf8(s));
  const seed = h.digest();
  seed[0] = 0;
  return { seed, address: hashvToBn254([tree, seed]) };
}
