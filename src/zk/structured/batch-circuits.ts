// Light's batch update and batch address append circuits as structured circuits: the update for the
// production zkp batch size (× 500; BatchUpdate in circuits/batch.circom has the same statement for
// × 10), the address append for every size. The single public input is the hash chain Light's
// account-compression program recomputes; inputs from src/forester/batch-inputs.ts. Address
// append: each value's low element (low < value < next, values below 2^248) is re-pointed at it,
// then the value is appended at startIndex + i pointing at the low element's old next value, each
// path taken against the tree the batch's earlier steps left.
import type { CircuitInputs } from '../inputs.js';
import { assertEqual, type Cs, type StructuredCircuit } from './cs.js';

type Inputs = CircuitInputs;

const scalar = (v: unknown, what: string): bigint => {
  if (typeof v !== 'string' || !/^[0-9]+$/.test(v)) throw new RangeError(`${what} is not a decimal field element`);
  return BigInt(v);
};
const list = (v: unknown, n: number, what: string): string[] => {
  if (!Array.isArray(v) || v.length !== n) throw new RangeError(`${what} must have ${n} entries`);
  return v as string[];
};

/** Reads named inputs as private wires (in witness mode; in constraint mode values are never read). */
class Reader<V> {
  constructor(
    private readonly cs: Cs<V>,
    private readonly inputs: Inputs | undefined,
  ) {}
  one(name: string): V {
    return this.cs.witness(() => scalar(this.inputs![name], name));
  }
  at(name: string, n: number, i: number): V {
    return this.cs.witness(() => scalar(list(this.inputs![name], n, name)[i], `${name}[${i}]`));
  }
  at2(name: string, n: number, m: number, i: number, j: number): V {
    return this.cs.witness(() =>
      scalar(list(list(this.inputs![name], n, name)[i], m, `${name}[${i}]`)[j], `${name}[${i}][${j}]`),
    );
  }
}

/** `bits` bits of x, least significant first; x must fit. */
export function toBits<V>(cs: Cs<V>, x: V, bits: number, what: string): V[] {
  const out: V[] = [];
  let sum = cs.zero;
  let weight = 1n;
  for (let k = 0; k < bits; k++) {
    const b = cs.witness(() => (cs.value(x) >> BigInt(k)) & 1n);
    cs.assertProduct(b, cs.sub(b, cs.one), cs.zero, `${what}: bit ${k}`);
    sum = cs.add(sum, cs.scale(b, weight));
    weight <<= 1n;
    out.push(b);
  }
  assertEqual(cs, sum, x, `${what} does not fit in ${bits} bits`);
  return out;
}

/** h = x[0]; h = Poseidon(h, x[i]) (Light's create_hash_chain). */
export function hashChain<V>(cs: Cs<V>, xs: readonly V[]): V {
  let acc: V = xs[0]!;
  for (let i = 1; i < xs.length; i++) acc = cs.poseidon([acc, xs[i]!]);
  return acc;
}

/** Root of a path from `leaf` (bit k = 1: the node is a right child at level k). */
export function pathRoot<V>(cs: Cs<V>, leaf: V, bits: readonly V[], siblings: readonly V[]): V {
  let cur = leaf;
  for (let k = 0; k < bits.length; k++) {
    const swap = cs.mul(bits[k]!, cs.sub(siblings[k]!, cur));
    cur = cs.poseidon([cs.add(cur, swap), cs.sub(siblings[k]!, swap)]);
  }
  return cur;
}

/** The old leaf is at `index` under `root`; returns the root with the new leaf there instead. */
export function leafUpdate<V>(
  cs: Cs<V>,
  root: V,
  oldLeaf: V,
  newLeaf: V,
  index: V,
  siblings: readonly V[],
  what: string,
): V {
  const bits = toBits(cs, index, siblings.length, `${what}: index`);
  assertEqual(cs, pathRoot(cs, oldLeaf, bits, siblings), root, `${what}: the old leaf is not in the tree`);
  return pathRoot(cs, newLeaf, bits, siblings);
}

/** a < b for values below 2^248: b - a - 1 fits in 248 bits. */
export function assertLess248<V>(cs: Cs<V>, a: V, b: V, what: string): void {
  toBits(cs, cs.sub(cs.sub(b, a), cs.one), 248, what);
}

const dec = (inputs: Inputs, name: string) => scalar(inputs[name], name);

/** Input-queue entries nullified: leaf pathIndices[i] becomes Poseidon(leaf, index, txHash). */
export function batchUpdateCircuit(n: number, height: number): StructuredCircuit<Inputs> {
  return {
    name: `batch_update_${height}_${n}`,
    publicInput: (inputs) => dec(inputs, 'publicInputHash'),
    build<V>(cs: Cs<V>, inputs?: Inputs): V {
      const r = new Reader(cs, inputs);
      const oldRoot = r.one('oldRoot');
      const newRoot = r.one('newRoot');
      const chainHash = r.one('leavesHashchainHash');
      const nullifiers: V[] = [];
      let root = oldRoot;
      for (let i = 0; i < n; i++) {
        const leaf = r.at('leaves', n, i);
        const index = r.at('pathIndices', n, i);
        const txHash = r.at('txHashes', n, i);
        const oldLeaf = r.at('oldLeaves', n, i);
        const nullifier = cs.poseidon([leaf, index, txHash]);
        nullifiers.push(nullifier);
        cs.assertProduct(oldLeaf, cs.sub(oldLeaf, leaf), cs.zero, `update ${i}: the position holds another leaf`);
        const siblings = Array.from({ length: height }, (_, k) => r.at2('merkleProofs', n, height, i, k));
        root = leafUpdate(cs, root, oldLeaf, nullifier, index, siblings, `update ${i}`);
      }
      assertEqual(cs, hashChain(cs, nullifiers), chainHash, 'the nullifiers do not hash to leavesHashchainHash');
      assertEqual(cs, root, newRoot, 'the updates do not end at newRoot');
      return hashChain(cs, [oldRoot, newRoot, chainHash]);
    },
  };
}

/** Address-queue values inserted into an indexed tree (leaf = Poseidon(value, nextValue)). */
export function batchAddressAppendCircuit(n: number, height: number): StructuredCircuit<Inputs> {
  return {
    name: `batch_address_append_${height}_${n}`,
    publicInput: (inputs) => dec(inputs, 'publicInputHash'),
    build<V>(cs: Cs<V>, inputs?: Inputs): V {
      const r = new Reader(cs, inputs);
      const oldRoot = r.one('oldRoot');
      const newRoot = r.one('newRoot');
      const chainHash = r.one('hashchainHash');
      const startIndex = r.one('startIndex');
      const values: V[] = [];
      let root = oldRoot;
      for (let i = 0; i < n; i++) {
        const low = r.at('lowElementValues', n, i);
        const lowNext = r.at('lowElementNextValues', n, i);
        const lowIndex = r.at('lowElementIndices', n, i);
        const value = r.at('newElementValues', n, i);
        values.push(value);
        assertLess248(cs, low, value, `address ${i}: not above its low element`);
        assertLess248(cs, value, lowNext, `address ${i}: not below its low element's next value`);
        const lowProof = Array.from({ length: height }, (_, k) => r.at2('lowElementProofs', n, height, i, k));
        root = leafUpdate(
          cs,
          root,
          cs.poseidon([low, lowNext]),
          cs.poseidon([low, value]),
          lowIndex,
          lowProof,
          `address ${i} (low element)`,
        );
        const newProof = Array.from({ length: height }, (_, k) => r.at2('newElementProofs', n, height, i, k));
        root = leafUpdate(
          cs,
          root,
          cs.zero,
          cs.poseidon([value, lowNext]),
          cs.add(startIndex, cs.constant(BigInt(i))),
          newProof,
          `address ${i} (append)`,
        );
      }
      assertEqual(cs, hashChain(cs, values), chainHash, 'the addresses do not hash to hashchainHash');
      assertEqual(cs, root, newRoot, 'the insertions do not end at newRoot');
      return hashChain(cs, [oldRoot, newRoot, chainHash, startIndex]);
    },
  };
}
