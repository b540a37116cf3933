// Photon's Merkle-proof reads: an account's path in its tree (V1: by hash, leaves of the tree only;
// V2: by index for accounts still in an output queue), several at once, and the low-element
// proofs of new addresses (non-inclusion), from the trees ingest keeps.
import { StateError, type LeafProof, type TreeInfo } from '../../../state/index.js';
import { bigIntToBytes32, bytesToBigInt } from '../../../zk/field.js';
import { u64 } from '../../../wire/index.js';
import type { Backends, CompressionIndex } from '../backends.js';
import type { MethodDef } from '../types.js';
import { photonMethod, withContext } from './define.js';
import { invalidPubkey, notFound, validation } from './errors.js';
import { b58, ZERO_KEY } from './json.js';
import { field, hash, pubkey, seq, struct } from './params.js';

const ADDRESS_TREE_V1 = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';
const hex = (v: bigint) => b58(bigIntToBytes32(v));
const hashRequest = struct('HashRequest', { hash: field(hash, { required: true }) }, false);

const proofJson = (p: LeafProof) => ({
  proof: p.pathElements.map(hex),
  root: hex(p.root),
  leafIndex: p.leafIndex,
  hash: hex(p.leaf),
});

/** The tree path of a leaf of the tree (not one waiting in an output queue), by hash. */
function treeLeaf(index: CompressionIndex, h: Uint8Array): { info: TreeInfo; proof: LeafProof } | undefined {
  const loc = index.trees.locateAccount(bytesToBigInt(h));
  if (!loc || loc.queued) return undefined;
  index.guard?.(loc.tree);
  const proof = index.trees.stateTree(loc.tree).proofByIndex(loc.leafIndex);
  return { info: index.trees.info(loc.tree), proof };
}

const v1Proof = (l: { info: TreeInfo; proof: LeafProof }) => ({
  ...proofJson(l.proof),
  merkleTree: l.info.pubkey,
  rootSeq: u64(l.proof.rootSeq),
});

const treeContext = (a: { treeType: number; tree: string; queue: string }) => ({
  treeType: a.treeType,
  tree: a.tree,
  queue: a.queue,
  cpiContext: null,
});

function v2Proof(index: CompressionIndex, h: Uint8Array, multiple: boolean) {
  const a = index.store.account(h);
  if (!a) throw notFound('Account not found');
  index.guard?.(a.tree);
  const leaf = treeLeaf(index, h);
  if (leaf)
    return {
      ...proofJson(leaf.proof),
      rootSeq: u64(leaf.proof.rootSeq),
      proveByIndex: false,
      treeContext: treeContext(a),
    };
  if (multiple)
    return {
      proof: [],
      root: ZERO_KEY,
      leafIndex: a.leafIndex,
      hash: b58(a.hash),
      rootSeq: 0,
      proveByIndex: true,
      treeContext: treeContext(a),
    };
  // The single V2 call answers the path at the account's future leaf index.
  const p = index.trees.stateTree(a.tree).pathAt(a.leafIndex);
  return {
    ...proofJson(p),
    hash: b58(a.hash),
    rootSeq: u64(p.rootSeq),
    proveByIndex: true,
    treeContext: treeContext(a),
  };
}

function addressProofs(index: CompressionIndex, list: { address: Uint8Array; tree: string }[]) {
  if (list.length === 0) throw validation('No addresses provided');
  if (list.length > 1000) throw validation(`Too many addresses requested ${list.length}. Maximum allowed: 1000`);
  return list.map(({ address, tree: requested }) => {
    const tree = index.trees.has(requested) ? requested : index.trees.treeOfQueue(requested);
    const info = tree ? index.trees.info(tree) : undefined;
    if (!info || info.kind !== 'address') throw invalidPubkey(requested);
    index.guard?.(info.pubkey);
    const value = bytesToBigInt(address);
    const t = index.trees.addressTree(info.pubkey);
    if (t.has(value)) throw validation(`Address ${b58(address)} already exists`);
    let p;
    try {
      p = t.nonInclusionProof(value);
    } catch (e) {
      if (e instanceof StateError) throw validation(e.message);
      throw e;
    }
    return {
      root: hex(p.root),
      address: b58(address),
      lowerRangeAddress: hex(p.lowElement.value),
      higherRangeAddress: hex(p.lowElement.nextValue),
      nextIndex: p.lowElement.nextIndex,
      proof: p.pathElements.map(hex),
      merkleTree: requested,
      rootSeq: u64(p.rootSeq),
      lowElementLeafIndex: p.lowElement.index,
    };
  });
}

export function proofMethods(backends: Backends): MethodDef[] {
  const m = photonMethod;
  const tooMany = (n: number) => {
    if (n > 1000) throw validation(`Too many hashes requested ${n}. Maximum allowed: 1000`);
  };
  return [
    m(backends, 'getCompressedAccountProof', hashRequest, (ix, p) => {
      const l = treeLeaf(ix, p.hash);
      if (!l) throw notFound('Leaf nodes not found for hashes. Got 0 hashes. Expected 1.');
      return withContext(ix, v1Proof(l));
    }),
    m(backends, 'getCompressedAccountProofV2', hashRequest, (ix, p) => withContext(ix, v2Proof(ix, p.hash, false))),
    m(backends, 'getMultipleCompressedAccountProofs', seq(hash), (ix, hashes) => {
      tooMany(hashes.length);
      const found = hashes.map((h) => treeLeaf(ix, h));
      // Photon counts distinct leaves found: a repeated hash is one short too.
      const got = new Set(hashes.filter((_, i) => found[i]).map((h) => b58(h))).size;
      if (got !== hashes.length)
        throw notFound(`Leaf nodes not found for hashes. Got ${got} hashes. Expected ${hashes.length}.`);
      return withContext(
        ix,
        found.map((l) => v1Proof(l!)),
      );
    }),
    m(backends, 'getMultipleCompressedAccountProofsV2', seq(hash), (ix, hashes) => {
      tooMany(hashes.length);
      if (new Set(hashes.map((h) => b58(h))).size !== hashes.length || hashes.some((h) => !ix.store.account(h)))
        throw notFound('Some accounts not found');
      return withContext(
        ix,
        hashes.map((h) => v2Proof(ix, h, true)),
      );
    }),
    m(backends, 'getMultipleNewAddressProofs', seq(pubkey), (ix, addresses) =>
      withContext(
        ix,
        addressProofs(
          ix,
          addresses.map((address) => ({ address, tree: ADDRESS_TREE_V1 })),
        ),
      ),
    ),
    m(
      backends,
      'getMultipleNewAddressProofsV2',
      seq(
        struct(
          'AddressWithTree',
          { address: field(pubkey, { required: true }), tree: field(pubkey, { required: true }) },
          true,
        ),
      ),
      (ix, list) =>
        withContext(
          ix,
          addressProofs(
            ix,
            list.map((x) => ({ address: x.address, tree: b58(x.tree) })),
          ),
        ),
    ),
  ];
}
