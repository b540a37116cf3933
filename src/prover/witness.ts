// Builds the witnesses of a validity-proof request from the trees, in Photon's processing order
// (validity-proof.md §2), all in one synchronous run of reads: every path and root comes from the
// same committed state, since writes only happen in synchronous transactions on this thread.
import type { TreeInfo, TreeStore } from '../state/index.js';
import { StateError } from '../state/index.js';
import { ADDRESS_BOUND } from '../zk/field.js';
import { bigIntToBase58 } from '../zk/base58.js';
import {
  inclusionWitness,
  nonInclusionWitness,
  type InclusionWitness,
  type NonInclusionWitness,
} from '../zk/inputs.js';
import { findShape, SHAPES, type Shape } from '../zk/shapes.js';
import { invalidPubkey, recordNotFound, validationError } from './errors.js';
import { treeType, type AccountEntry, type AddressEntry, type ApiVersion } from './types.js';

export const MAX_ADDRESSES = 1000;

export interface ValidityRequest {
  hashes: bigint[];
  addresses: { address: bigint; tree: string }[];
  api: ApiVersion;
}

export interface Witnesses {
  /** Undefined when there is nothing to prove (an empty V2 request). */
  shape?: Shape;
  accounts: AccountEntry[];
  addresses: AddressEntry[];
  accountWitnesses: InclusionWitness[];
  addressWitnesses: NonInclusionWitness[];
  slot: bigint;
}

const b58 = bigIntToBase58;
const list = (xs: bigint[]) => `[${xs.map((x) => JSON.stringify(b58(x))).join(', ')}]`;

function queueOf(t: TreeInfo): string {
  // Photon reports the V2 address tree itself as its queue.
  return t.kind === 'address' && t.version === 2 ? t.pubkey : t.queue || t.pubkey;
}

/** Counts zkgate has circuits for, as clients should be told when theirs is not one of them. */
export function allowedCounts(version: 1 | 2): { inclusion: number[]; nonInclusion: number[]; combined: string } {
  const of = (f: Shape['family']) => SHAPES.filter((s) => s.version === version && s.family === f);
  const combined = of('combined');
  const maxI = Math.max(...combined.map((s) => s.nInclusion));
  const maxJ = Math.max(...combined.map((s) => s.nNonInclusion));
  return {
    inclusion: of('inclusion').map((s) => s.nInclusion),
    nonInclusion: of('non-inclusion').map((s) => s.nNonInclusion),
    combined: `1-${maxI} compressed accounts with 1-${maxJ} new addresses`,
  };
}

function pickShape(version: 1 | 2, nAcc: number, nAddr: number): Shape {
  const shape = findShape(version, nAcc, nAddr);
  if (shape) return shape;
  const allowed = allowedCounts(version);
  const v = `V${version}`;
  if (nAddr === 0)
    throw validationError(
      `Invalid number of compressed accounts: ${nAcc}. Allowed numbers for ${v} trees: ${allowed.inclusion.join(', ')}`,
    );
  if (nAcc === 0)
    throw validationError(
      `Invalid number of new addresses: ${nAddr}. Allowed numbers for ${v} trees: ${allowed.nonInclusion.join(', ')}`,
    );
  throw validationError(
    `Invalid numbers for a combined proof: ${nAcc} compressed accounts with ${nAddr} new addresses. Allowed for ${v} trees: ${allowed.combined}`,
  );
}

export function buildWitnesses(store: TreeStore, req: ValidityRequest): Witnesses {
  const { hashes, addresses, api } = req;
  if (hashes.length === 0 && addresses.length === 0) {
    if (api === 2) return { accounts: [], addresses: [], accountWitnesses: [], addressWitnesses: [], slot: 0n };
    throw validationError('No hashes or new addresses provided for proof generation');
  }
  if (addresses.length > MAX_ADDRESSES)
    throw validationError(`Too many addresses requested ${addresses.length}. Maximum allowed: ${MAX_ADDRESSES}`);

  const seen = new Map<bigint, number>();
  hashes.forEach((h, i) => {
    const j = seen.get(h);
    if (j !== undefined) throw validationError(`Duplicate hash ${b58(h)} at hashes[${j}] and hashes[${i}]`);
    seen.set(h, i);
  });

  // Accounts: where each hash lives; unknown and spent ones are reported together. An account
  // still in a V2 output queue is proved by index (V2 API only: the V1 API knows tree leaves only).
  const located = hashes.map((h) => {
    const loc = store.locateAccount(h);
    return { hash: h, loc: loc && (!loc.queued || api === 2) ? loc : undefined };
  });
  const missing = located.filter((x) => !x.loc).map((x) => x.hash);
  const spent = located.filter((x) => x.loc?.spent);
  if (spent.length > 0) {
    const s = spent[0]!;
    throw validationError(
      `Account ${b58(s.hash)} is spent: leaf ${s.loc!.leafIndex} of state tree ${s.loc!.tree} was nullified` +
        (spent.length > 1 ? ` (and ${spent.length - 1} more spent)` : ''),
    );
  }
  if (missing.length > 0) {
    if (api === 1)
      throw recordNotFound(
        `Leaf nodes not found for hashes. Got ${hashes.length - missing.length} hashes. Expected ${hashes.length}. Not found: ${list(missing)}`,
      );
    const found = located.filter((x) => x.loc).map((x) => x.hash);
    throw validationError(
      `Not all requested account hashes exist or are available (might be spent). Requested: ${list(hashes)}, Found in DB: ${list(found)}`,
    );
  }

  // Addresses: known address trees, in range, not present, no duplicates per tree.
  const addrTrees = new Map<string, TreeInfo>();
  const seenAddr = new Map<string, number>();
  addresses.forEach(({ address, tree }, i) => {
    let info = addrTrees.get(tree);
    if (!info) {
      if (!store.has(tree)) throw invalidPubkey(tree, `newAddressesWithTrees[${i}].tree is not a known address tree`);
      info = store.info(tree);
      if (info.kind !== 'address')
        throw invalidPubkey(tree, `newAddressesWithTrees[${i}].tree is a state tree, not an address tree`);
      addrTrees.set(tree, info);
    }
    if (address >= ADDRESS_BOUND)
      throw validationError(`Address ${b58(address)} at newAddressesWithTrees[${i}] is not below 2^248`);
    const key = `${tree}:${address}`;
    const j = seenAddr.get(key);
    if (j !== undefined)
      throw validationError(
        `Duplicate address ${b58(address)} in tree ${tree} at newAddressesWithTrees[${j}] and [${i}]`,
      );
    seenAddr.set(key, i);
    if (store.addressTree(tree).has(address)) throw validationError(`Address ${b58(address)} already exists`);
  });

  // One circuit version: heights may not mix (accounts proved by index take no part in the proof).
  const infos = new Map<string, TreeInfo>();
  const infoOf = (tree: string) => {
    let i = infos.get(tree);
    if (!i) infos.set(tree, (i = store.info(tree)));
    return i;
  };
  const proved = located.filter((x) => !x.loc!.queued);
  const stateInfos = new Map<string, TreeInfo>();
  for (const x of proved) stateInfos.set(x.loc!.tree, infoOf(x.loc!.tree));
  const stateHeights = new Set([...stateInfos.values()].map((t) => t.height));
  const addrHeights = new Set([...addrTrees.values()].map((t) => t.height));
  if (stateHeights.size > 1) throw validationError('All state trees for account proofs must have the same height');
  if (addrHeights.size > 1) throw validationError('All address trees for new address proofs must have the same height');
  const versions = new Set([...stateInfos.values(), ...addrTrees.values()].map((t) => t.version));
  if (versions.size > 1) {
    throw validationError(
      `Cannot mix V1 and V2 trees in one proof: state trees of height ${[...stateHeights].join('/')} with address trees of height ${[...addrHeights].join('/')}`,
    );
  }
  const nothingToProve = proved.length === 0 && addresses.length === 0;
  const version = [...versions][0] ?? 2;
  const shape = nothingToProve ? undefined : pickShape(version, proved.length, addresses.length);
  const unsupported = [...stateInfos.values(), ...addrTrees.values()].find((t) =>
    t.kind === 'state' ? t.height !== shape!.stateHeight : t.height !== shape!.addressHeight,
  );
  if (unsupported)
    throw validationError(
      `Tree ${unsupported.pubkey} has height ${unsupported.height}; ${shape!.name.split('_')[0]} circuits need ${unsupported.kind} trees of height ${unsupported.kind === 'state' ? shape!.stateHeight : shape!.addressHeight}`,
    );

  const accounts: AccountEntry[] = [];
  const accountWitnesses: InclusionWitness[] = [];
  for (const { hash, loc } of located) {
    const info = infoOf(loc!.tree);
    if (loc!.queued) {
      // Photon's prove-by-index entry: no root, no proof; the program finds the leaf in the queue.
      accounts.push({
        hash,
        root: 0n,
        rootIndex: 0,
        leafIndex: loc!.leafIndex,
        proveByIndex: true,
        tree: info.pubkey,
        treeType: treeType(info),
        queue: queueOf(info),
      });
      continue;
    }
    const p = store.stateTree(info.pubkey).proofByIndex(loc!.leafIndex);
    if (p.leaf !== hash) throw new StateError('leaf_not_found', `leaf ${loc!.leafIndex} of ${info.pubkey} changed`);
    accountWitnesses.push(inclusionWitness(p));
    accounts.push({
      hash,
      root: p.root,
      rootIndex: p.rootIndex,
      leafIndex: p.leafIndex,
      proveByIndex: false,
      tree: info.pubkey,
      treeType: treeType(info),
      queue: queueOf(info),
    });
  }
  const addressEntries: AddressEntry[] = [];
  const addressWitnesses: NonInclusionWitness[] = [];
  for (const { address, tree } of addresses) {
    const info = addrTrees.get(tree)!;
    const p = store.addressTree(tree).nonInclusionProof(address);
    addressWitnesses.push(nonInclusionWitness(p));
    addressEntries.push({
      address,
      root: p.root,
      rootIndex: p.rootIndex,
      lowElementLeafIndex: p.lowElement.index,
      tree,
      treeType: treeType(info),
      queue: queueOf(info),
    });
  }
  let slot = 0n;
  for (const t of [...infos.values(), ...addrTrees.values()]) if (t.slot > slot) slot = t.slot;
  return { ...(shape ? { shape } : {}), accounts, addresses: addressEntries, accountWitnesses, addressWitnesses, slot };
}
