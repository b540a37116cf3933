// getValidityProof / getValidityProofV2 (Photon): params are a named object (or, as serde allows,
// an array in field order); unknown fields are rejected as Photon's `deny_unknown_fields` does.
// Hashes, addresses and trees are checked here (base58 of 32 bytes); the prover, reached over
// gRPC, does the rest. Wire shapes: validity-proof.md §1 and §3.
import { ProverError, type ClientValidityProof } from '../../prover/index.js';
import { bigIntToBase58, decodeBase58 } from '../../zk/base58.js';
import { bytesToBigInt } from '../../zk/field.js';
import { BackendNotConfiguredError } from '../errors.js';
import { array, fail, object, optional, required, type Check, type Infer } from '../validate.js';
import type { Backends } from './backends.js';
import { defineMethod, type MethodDef } from './types.js';

/** Photon's ADDRESS_TREE_V1: the tree of the deprecated `newAddresses` field. */
export const ADDRESS_TREE_V1 = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';

/** A base58 string of exactly 32 bytes, as a big-endian number. */
const value32: Check<bigint> = (v, path) => {
  if (typeof v !== 'string') return fail(path, 'a base58 string of 32 bytes', v);
  let bytes: Uint8Array;
  try {
    bytes = decodeBase58(v);
  } catch {
    return fail(path, 'a base58 string of 32 bytes', v);
  }
  if (bytes.length !== 32) return fail(path, `a base58 string of 32 bytes (it decodes to ${bytes.length})`, v);
  return bytesToBigInt(bytes);
};

/** A pubkey: 32 bytes of base58, kept as its canonical string. */
const pubkey: Check<string> = (v, path) => {
  value32(v, path);
  return v as string;
};

const addressWithTree = object({ address: required(value32), tree: required(pubkey) }, 'deny');

/** serde accepts a struct as an array of its fields in order. */
function positional<T>(fields: string[], check: Check<T>): Check<T> {
  return (v, path) => {
    if (!Array.isArray(v)) return check(v, path);
    if (v.length > fields.length) return fail(path, `at most ${fields.length} positional fields`, v);
    const o: Record<string, unknown> = {};
    v.forEach((x, i) => {
      if (x !== undefined && x !== null) o[fields[i]!] = x;
    });
    return check(o, path);
  };
}

export const validityProofParams = positional(
  ['hashes', 'newAddresses', 'newAddressesWithTrees'],
  object(
    {
      hashes: optional(array(value32, 'an array of base58 hashes')),
      newAddresses: optional(array(value32, 'an array of base58 addresses')),
      newAddressesWithTrees: optional(array(addressWithTree, 'an array of {address, tree} objects')),
    },
    'deny',
  ),
);
export type ValidityProofParams = Infer<typeof validityProofParams>;

export const validityProofV2Params = positional(
  ['hashes', 'newAddressesWithTrees'],
  object(
    {
      hashes: optional(array(value32, 'an array of base58 hashes')),
      newAddressesWithTrees: optional(array(addressWithTree, 'an array of {address, tree} objects')),
    },
    'deny',
  ),
);
export type ValidityProofV2Params = Infer<typeof validityProofV2Params>;

const b58 = bigIntToBase58;
const proofJson = (r: ClientValidityProof) =>
  r.compressedProof && { a: r.compressedProof.a, b: r.compressedProof.b, c: r.compressedProof.c };

/** Photon V1: parallel arrays, accounts first then addresses (address entries: the address as leaf). */
export function v1Json(r: ClientValidityProof): unknown {
  return {
    value: {
      compressedProof: proofJson(r),
      roots: [...r.accounts.map((a) => b58(a.root)), ...r.addresses.map((a) => b58(a.root))],
      rootIndices: [...r.accounts.map((a) => a.rootIndex), ...r.addresses.map((a) => a.rootIndex)],
      leafIndices: [...r.accounts.map((a) => a.leafIndex), ...r.addresses.map((a) => a.lowElementLeafIndex)],
      leaves: [...r.accounts.map((a) => b58(a.hash)), ...r.addresses.map((a) => b58(a.address))],
      merkleTrees: [...r.accounts.map((a) => a.tree), ...r.addresses.map((a) => a.tree)],
    },
    context: { slot: r.slot },
  };
}

const merkleContext = (e: { tree: string; treeType: number; queue: string }) => ({
  treeType: e.treeType,
  tree: e.tree,
  queue: e.queue,
  cpiContext: null,
  nextTreeContext: null,
});

/** Photon V2: one entry per account and per address, each with its merkle context. */
export function v2Json(r: ClientValidityProof): unknown {
  return {
    value: {
      compressedProof: proofJson(r) ?? null,
      accounts: r.accounts.map((a) => ({
        hash: b58(a.hash),
        root: b58(a.root),
        rootIndex: { rootIndex: a.rootIndex, proveByIndex: a.proveByIndex },
        leafIndex: a.leafIndex,
        merkleContext: merkleContext(a),
      })),
      addresses: r.addresses.map((a) => ({
        address: b58(a.address),
        root: b58(a.root),
        rootIndex: a.rootIndex,
        merkleContext: merkleContext(a),
      })),
    },
    context: { slot: r.slot },
  };
}

const notConfigured = (method: string) => new BackendNotConfiguredError(method, 'validity-proof (prover)');

export function validityProofMethods(backends: Backends): MethodDef[] {
  return [
    defineMethod<unknown, unknown>({
      name: 'getValidityProof',
      params: (v, path) => (backends.photon?.forwardsRaw ? v : validityProofParams(v, path)),
      call: async (raw, ctx) => {
        // A Photon/Helius upstream proves against Light's ceremony keys: relay the call as sent.
        if (backends.photon?.forwardsRaw) return backends.photon.call('getValidityProof', raw);
        const p = raw as ValidityProofParams;
        const backend = backends.validityProof;
        if (!backend) throw notConfigured('getValidityProof');
        const legacy = p.newAddresses ?? [];
        const withTrees = p.newAddressesWithTrees ?? [];
        if (legacy.length > 0 && withTrees.length > 0)
          throw new ProverError(
            'validation',
            'Validation Error: Cannot provide both newAddresses and newAddressesWithTree',
          );
        const addresses = legacy.length > 0 ? legacy.map((address) => ({ address, tree: ADDRESS_TREE_V1 })) : withTrees;
        return v1Json(
          await backend.getValidityProof({
            hashes: p.hashes ?? [],
            addresses,
            api: 1,
            caller: ctx.keyId,
            admin: ctx.admin,
          }),
        );
      },
    }),
    defineMethod<unknown, unknown>({
      name: 'getValidityProofV2',
      params: (v, path) => (backends.photon?.forwardsRaw ? v : validityProofV2Params(v, path)),
      call: async (raw, ctx) => {
        if (backends.photon?.forwardsRaw) return backends.photon.call('getValidityProofV2', raw);
        const p = raw as ValidityProofV2Params;
        const backend = backends.validityProof;
        if (!backend) throw notConfigured('getValidityProofV2');
        const r = await backend.getValidityProof({
          hashes: p.hashes ?? [],
          addresses: p.newAddressesWithTrees ?? [],
          api: 2,
          caller: ctx.keyId,
          admin: ctx.admin,
        });
        return v2Json(r);
      },
    }),
  ];
}
