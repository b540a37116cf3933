// Circuit inputs of the batch circuits (circuits/batch.circom) for one zkp batch, built against a
// tree as zkgate holds it: each leaf's path is read from the tree as the batch's earlier updates
// left it (an in-memory overlay, nothing is written), so the proof's new root is the root the
// program will record. Also returns the public input the account-compression program recomputes
// (compression-e2e.md §2): Poseidon hash chains of the roots, the batch's hash chain and, for
// appends, the start index.
import { AppError } from '../errors.js';
import type { IndexedElement } from '../state/index.js';
import { zeroValues } from '../state/merkle.js';
import { hashChain } from '../zk/hash-chain.js';
import type { CircuitInputs } from '../zk/inputs.js';
import { poseidon } from '../zk/poseidon.js';

export class BatchInputError extends AppError {
  readonly kind = 'batch_inputs';
}

/** Read access to a tree's nodes (level 0 = leaves; absent nodes are the empty subtree's). */
export interface NodeSource {
  height: number;
  node(level: number, index: number): bigint;
}

/** The other child of a node's parent (indices reach 2^40: no 32-bit bitwise operators). */
const sibling = (i: number): number => (i % 2 === 0 ? i + 1 : i - 1);

/** A tree's nodes with pending leaf changes on top: paths and roots as if they were written. */
class Overlay {
  private readonly changed = new Map<string, bigint>();

  constructor(private readonly src: NodeSource) {}

  node(level: number, index: number): bigint {
    return this.changed.get(`${level}:${index}`) ?? this.src.node(level, index);
  }

  root(): bigint {
    return this.node(this.src.height, 0);
  }

  leaf(index: number): bigint {
    return this.node(0, index);
  }

  siblings(index: number): bigint[] {
    const out: bigint[] = [];
    for (let level = 0, i = index; level < this.src.height; level++, i = Math.floor(i / 2))
      out.push(this.node(level, sibling(i)));
    return out;
  }

  /** Sets a leaf and rehashes its path. */
  set(index: number, leaf: bigint): void {
    let cur = leaf;
    let i = index;
    for (let level = 0; level < this.src.height; level++, i = Math.floor(i / 2)) {
      this.changed.set(`${level}:${i}`, cur);
      const other = this.node(level, sibling(i));
      cur = i % 2 === 0 ? poseidon([cur, other]) : poseidon([other, cur]);
    }
    this.changed.set(`${this.src.height}:0`, cur);
  }
}

export interface BatchInputs {
  inputs: CircuitInputs;
  publicInputHash: bigint;
  oldRoot: bigint;
  newRoot: bigint;
  /** The hash chain of the batch's leaves, nullifiers or addresses (what the queue account holds). */
  hashChain: bigint;
}

const dec = (v: bigint | number): string => v.toString();

/**
 * The boundary siblings of the range start..start+n-1 at each level, from the tree before the batch:
 * left = the node just before the range's first node, right = the node just after its last (zero
 * where there is none; the circuit uses one only when the range's end node needs it).
 */
function rangeSiblings(tree: NodeSource, start: number, n: number): { left: bigint[]; right: bigint[] } {
  const left: bigint[] = [];
  const right: bigint[] = [];
  for (let level = 0; level < tree.height; level++) {
    const first = Math.floor(start / 2 ** level);
    const last = Math.floor((start + n - 1) / 2 ** level);
    left.push(first > 0 ? tree.node(level, first - 1) : 0n);
    right.push(last + 1 < 2 ** (tree.height - level) ? tree.node(level, last + 1) : 0n);
  }
  return { left, right };
}

/** Output-queue leaves appended at startIndex..: a position already holding a nullifier keeps it. */
export function appendInputs(tree: NodeSource, startIndex: number, leaves: readonly bigint[]): BatchInputs {
  if (leaves.length === 0 || startIndex + leaves.length > 2 ** tree.height)
    throw new BatchInputError(`${leaves.length} leaves from ${startIndex} do not fit a tree of height ${tree.height}`);
  const o = new Overlay(tree);
  const oldRoot = o.root();
  const { left, right } = rangeSiblings(tree, startIndex, leaves.length);
  const oldLeaves = leaves.map((_, i) => o.leaf(startIndex + i));
  leaves.forEach((leaf, i) => o.set(startIndex + i, oldLeaves[i] === 0n ? leaf : oldLeaves[i]!));
  const newRoot = o.root();
  const chain = hashChain(leaves);
  const pih = hashChain([oldRoot, newRoot, chain, BigInt(startIndex)]);
  return {
    publicInputHash: pih,
    oldRoot,
    newRoot,
    hashChain: chain,
    inputs: {
      publicInputHash: dec(pih),
      oldRoot: dec(oldRoot),
      newRoot: dec(newRoot),
      leavesHashchainHash: dec(chain),
      startIndex: dec(startIndex),
      oldLeaves: oldLeaves.map(dec),
      leaves: leaves.map(dec),
      leftSiblings: left.map(dec),
      rightSiblings: right.map(dec),
    },
  };
}

export interface SpentLeaf {
  /** The account hash. */
  leaf: bigint;
  leafIndex: number;
  txHash: bigint;
}

/**
 * Input-queue entries nullified: each leaf becomes Poseidon3(hash, index, txHash). The position
 * holds the account, or zero when the account still waits in the output queue.
 */
export function updateInputs(tree: NodeSource, entries: readonly SpentLeaf[]): BatchInputs {
  const o = new Overlay(tree);
  const oldRoot = o.root();
  const oldLeaves: bigint[] = [];
  const proofs: bigint[][] = [];
  const nullifiers: bigint[] = [];
  for (const e of entries) {
    const old = o.leaf(e.leafIndex);
    if (old !== 0n && old !== e.leaf)
      throw new BatchInputError(
        `leaf ${e.leafIndex} holds 0x${old.toString(16)}, not the account 0x${e.leaf.toString(16)} being nullified`,
      );
    const nullifier = poseidon([e.leaf, BigInt(e.leafIndex), e.txHash]);
    oldLeaves.push(old);
    proofs.push(o.siblings(e.leafIndex));
    nullifiers.push(nullifier);
    o.set(e.leafIndex, nullifier);
  }
  const newRoot = o.root();
  const chain = hashChain(nullifiers);
  const pih = hashChain([oldRoot, newRoot, chain]);
  return {
    publicInputHash: pih,
    oldRoot,
    newRoot,
    hashChain: chain,
    inputs: {
      publicInputHash: dec(pih),
      oldRoot: dec(oldRoot),
      newRoot: dec(newRoot),
      leavesHashchainHash: dec(chain),
      txHashes: entries.map((e) => dec(e.txHash)),
      leaves: entries.map((e) => dec(e.leaf)),
      oldLeaves: oldLeaves.map(dec),
      merkleProofs: proofs.map((p) => p.map(dec)),
      pathIndices: entries.map((e) => dec(e.leafIndex)),
    },
  };
}

/** An address tree's nodes and elements: the element with the largest value below a value. */
export interface IndexedSource extends NodeSource {
  lowElement(value: bigint): IndexedElement | undefined;
  element(index: number): IndexedElement | undefined;
}

/**
 * Address-queue values inserted at startIndex.. into a V2 indexed tree: each one's low element
 * (among the tree's and the batch's earlier ones) is re-pointed at it, then it is appended.
 */
export function addressAppendInputs(tree: IndexedSource, startIndex: number, values: readonly bigint[]): BatchInputs {
  const o = new Overlay(tree);
  const oldRoot = o.root();
  // Elements this batch changed or added, by index; its new values in order for the low lookup.
  const elements = new Map<number, IndexedElement>();
  const added: IndexedElement[] = [];
  const low = {
    values: [] as bigint[],
    nextValues: [] as bigint[],
    indices: [] as number[],
    proofs: [] as bigint[][],
  };
  const newProofs: bigint[][] = [];
  values.forEach((value, i) => {
    let lowEl = tree.lowElement(value);
    for (const a of added) if (a.value < value && (!lowEl || a.value > lowEl.value)) lowEl = a;
    if (lowEl) lowEl = elements.get(lowEl.index) ?? lowEl;
    if (!lowEl || lowEl.value === value || lowEl.nextValue <= value)
      throw new BatchInputError(`address 0x${value.toString(16)} is already in the tree or has no low element`);
    const index = startIndex + i;
    low.values.push(lowEl.value);
    low.nextValues.push(lowEl.nextValue);
    low.indices.push(lowEl.index);
    low.proofs.push(o.siblings(lowEl.index));
    o.set(lowEl.index, poseidon([lowEl.value, value]));
    if (o.leaf(index) !== 0n) throw new BatchInputError(`address tree leaf ${index} is not empty`);
    newProofs.push(o.siblings(index));
    o.set(index, poseidon([value, lowEl.nextValue]));
    const fresh: IndexedElement = { index, value, nextIndex: lowEl.nextIndex, nextValue: lowEl.nextValue };
    elements.set(lowEl.index, { ...lowEl, nextIndex: index, nextValue: value });
    elements.set(index, fresh);
    added.push(fresh);
  });
  const newRoot = o.root();
  const chain = hashChain(values);
  const pih = hashChain([oldRoot, newRoot, chain, BigInt(startIndex)]);
  return {
    publicInputHash: pih,
    oldRoot,
    newRoot,
    hashChain: chain,
    inputs: {
      publicInputHash: dec(pih),
      oldRoot: dec(oldRoot),
      newRoot: dec(newRoot),
      hashchainHash: dec(chain),
      startIndex: dec(startIndex),
      lowElementValues: low.values.map(dec),
      lowElementNextValues: low.nextValues.map(dec),
      lowElementIndices: low.indices.map(dec),
      lowElementProofs: low.proofs.map((p) => p.map(dec)),
      newElementValues: values.map(dec),
      newElementProofs: newProofs.map((p) => p.map(dec)),
    },
  };
}

/** An empty tree of a height (tests, benchmarks). */
export function emptyNodes(height: number): NodeSource {
  const zeros = zeroValues(height);
  return { height, node: (level) => zeros[level]! };
}
