// A sparse binary Merkle tree over the store: only nodes that differ from the empty subtree of
// their level are kept, so a tree with n leaves holds about 2n nodes whatever its height.
import { poseidon, poseidonMany } from '../zk/poseidon.js';
import { readAhead } from '../util/read-ahead.js';
import { bufField, fieldBuf, nodeKey, type Dbs } from './store.js';

const zeroCache: bigint[] = [0n];

/** Z[k]: root of an empty subtree of height k (Z[0] = 0, Z[k+1] = H(Z[k], Z[k])). */
export function zeroValues(height: number): bigint[] {
  while (zeroCache.length <= height) {
    const z = zeroCache[zeroCache.length - 1]!;
    zeroCache.push(poseidon([z, z]));
  }
  return zeroCache.slice(0, height + 1);
}

export class SparseMerkleTree {
  private readonly zeros: bigint[];

  constructor(
    private readonly dbs: Dbs,
    readonly treeId: number,
    readonly height: number,
  ) {
    this.zeros = zeroValues(height);
  }

  get capacity(): number {
    return 2 ** this.height;
  }

  node(level: number, index: number): bigint {
    this.settle();
    const v = this.dbs.nodes.get(nodeKey(this.treeId, level, index));
    return v ? bufField(v) : this.zeros[level]!;
  }

  /** A node that differs from the empty subtree of its level (undefined: it is the empty one). */
  stored(level: number, index: number): bigint | undefined {
    this.settle();
    const v = this.dbs.nodes.get(nodeKey(this.treeId, level, index));
    return v ? bufField(v) : undefined;
  }

  leaf(index: number): bigint {
    return this.node(0, index);
  }

  /**
   * The filled subtrees of an append-only tree holding `n` leaves: per level, the last left node
   * on the path of the last leaf (what the next append combines with), or the empty subtree.
   */
  subtrees(n: number): bigint[] {
    if (n === 0) return this.zeros.slice(0, this.height);
    return this.nodesAt((level) => {
      const i = Math.floor((n - 1) / 2 ** level);
      return i % 2 === 0 ? i : i - 1;
    });
  }

  root(): bigint {
    return this.node(this.height, 0);
  }

  /** Siblings from the leaf level up (pathElements in Light's order). */
  siblings(index: number): bigint[] {
    return this.nodesAt((level) => {
      const i = Math.floor(index / 2 ** level);
      return i % 2 === 0 ? i + 1 : i - 1;
    });
  }

  /** One node per level from the leaves up, at the index `at` gives for it; read ahead together. */
  private nodesAt(at: (level: number) => number): bigint[] {
    this.settle();
    const indices = Array.from({ length: this.height }, (_, level) => at(level));
    readAhead(this.dbs.nodes, () => indices.map((i, level) => nodeKey(this.treeId, level, i)));
    return indices.map((i, level) => this.node(level, i));
  }

  /**
   * Sets leaves and rehashes every ancestor once, level by level (a batch of b consecutive
   * leaves costs about 2b + height hashes). Must run inside a write transaction: the writes
   * land in it and reads see them. Returns the new root.
   */
  update(leaves: ReadonlyMap<number, bigint>): bigint {
    this.settle();
    readAhead(this.dbs.nodes, () => this.siblingsOutside([...leaves.keys()]));
    let dirty = new Map(leaves);
    for (let level = 0; level < this.height; level++) {
      const parents: number[] = [];
      const seen = new Set<number>();
      const pairs: bigint[][] = [];
      for (const [index, value] of dirty) {
        this.write(level, index, value);
        const p = Math.floor(index / 2);
        if (seen.has(p)) continue;
        seen.add(p);
        parents.push(p);
        pairs.push([dirty.get(2 * p) ?? this.node(level, 2 * p), dirty.get(2 * p + 1) ?? this.node(level, 2 * p + 1)]);
      }
      // One call hashes the whole level (the native Poseidon takes them as a batch).
      const hashes = poseidonMany(pairs);
      dirty = new Map(parents.map((p, i) => [p, hashes[i]!]));
    }
    const root = dirty.get(0)!;
    this.write(this.height, 0, root);
    return root;
  }

  /**
   * The nodes update() reads for leaves at `indices`: at each level, the other child of each
   * parent of a changed node, where that child is not changed itself. Indices alone decide them.
   */
  private siblingsOutside(indices: number[]): Buffer[] {
    const keys: Buffer[] = [];
    let changed = new Set(indices);
    for (let level = 0; level < this.height; level++) {
      const parents = new Set<number>();
      for (const i of changed) parents.add(Math.floor(i / 2));
      for (const p of parents)
        for (const c of [2 * p, 2 * p + 1]) if (!changed.has(c)) keys.push(nodeKey(this.treeId, level, c));
      changed = parents;
    }
    return keys;
  }

  /** Appends deferred for this tree are hashed in before its nodes are read or changed. */
  private settle(): void {
    this.dbs.deferred?.get(this.treeId)?.settle();
  }

  private write(level: number, index: number, value: bigint): void {
    const key = nodeKey(this.treeId, level, index);
    if (value === this.zeros[level]) this.dbs.nodes.remove(key);
    else this.dbs.nodes.put(key, fieldBuf(value));
  }
}
