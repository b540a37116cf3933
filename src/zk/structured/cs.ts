// Circuits written in TypeScript against one small interface, run in three ways: counting wires and
// constraints, emitting the constraints (for the setup), and computing the witness together with
// every constraint's A·w and B·w (for the prover, which then needs no coefficient matrices).
// This is how zkgate builds Light's production-size batch circuits (8–10 M constraints): circom in
// WebAssembly cannot compile them, and their coefficient matrices would be several GB on disk.
//
// Wire layout (snarkjs' convention, so the key is a standard .zkey): 0 = the constant 1,
// 1 = the single public input, 2 = ONE, a private wire constrained to 1 that carries every constant.
// Constraint 0 is ONE·w0 = w0; constraint 1 is pub·ONE = (what the circuit computes for it), filled
// in at the end. Wires 0 and 1 appear nowhere else, so the verifying key depends only on the domain
// size and the number of constraints: genesis can patch it into Light's program without the
// hours-long proving-key build.
import { FR } from '../field.js';
import { poseidonPermutation, type PoseidonAlgebra } from './poseidon-rounds.js';

const R = FR;

export class CircuitUnsatisfied extends Error {}

/** What circuits are written against; V is a value (witness) or a linear combination (constraints). */
export interface Cs<V> {
  readonly one: V;
  readonly zero: V;
  constant(k: bigint): V;
  add(a: V, b: V): V;
  sub(a: V, b: V): V;
  scale(a: V, k: bigint): V;
  /** A private wire whose value the witness supplies (an input or a hint); `value` runs only then. */
  witness(value: () => bigint): V;
  /** A new wire c = a·b. */
  mul(a: V, b: V): V;
  /** a·b = c; `what` names the check when a witness breaks it. */
  assertProduct(a: V, b: V, c: V, what: string): void;
  /** circomlib's Poseidon of 1–16 inputs. */
  poseidon(inputs: readonly V[]): V;
  /** The value of V (witness mode only). */
  value(v: V): bigint;
}

export const assertEqual = <V>(cs: Cs<V>, a: V, b: V, what: string): void =>
  cs.assertProduct(cs.sub(a, b), cs.one, cs.zero, what);

/** A circuit with one public input: `build` returns what that input must equal. */
export interface StructuredCircuit<I> {
  readonly name: string;
  build<V>(cs: Cs<V>, inputs?: I): V;
  /** The public input's value for these inputs. */
  publicInput(inputs: I): bigint;
}

// ---------------------------------------------------------------------------------------------
// Witness mode.

/** 32-byte little-endian scalars appended into fixed-size chunks (written as 64-bit limbs). */
export class ScalarWriter {
  private static readonly PER_CHUNK = 1 << 15;
  private readonly chunks: BigUint64Array[] = [];
  private cur = new BigUint64Array(4 * ScalarWriter.PER_CHUNK);
  private pos = 0;
  count = 0;

  push(v: bigint): void {
    if (this.pos === this.cur.length) {
      this.chunks.push(this.cur);
      this.cur = new BigUint64Array(this.cur.length);
      this.pos = 0;
    }
    write(this.cur, this.pos, v);
    this.pos += 4;
    this.count++;
  }

  /** Overwrites the scalar at `index` (already pushed). */
  set(index: number, v: bigint): void {
    const chunk = Math.floor(index / ScalarWriter.PER_CHUNK);
    write(chunk < this.chunks.length ? this.chunks[chunk]! : this.cur, (index % ScalarWriter.PER_CHUNK) * 4, v);
  }

  bytes(): Buffer {
    const parts = [...this.chunks, this.cur.subarray(0, this.pos)];
    return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
  }
}

function write(limbs: BigUint64Array, at: number, v: bigint): void {
  limbs[at] = BigInt.asUintN(64, v);
  limbs[at + 1] = BigInt.asUintN(64, v >> 64n);
  limbs[at + 2] = BigInt.asUintN(64, v >> 128n);
  limbs[at + 3] = v >> 192n;
}

export interface StructuredWitness {
  /** nVars scalars, wire order. */
  witness: Buffer;
  /** A·w per constraint, then the rows snarkjs adds for the one and public wires (w0, w1). */
  a: Buffer;
  /** B·w per constraint (zero on the added rows). */
  b: Buffer;
  nConstraints: number;
  publicInput: bigint;
}

export class WitnessCs implements Cs<bigint> {
  readonly one = 1n;
  readonly zero = 0n;
  private readonly w = new ScalarWriter();
  private readonly a = new ScalarWriter();
  private readonly b = new ScalarWriter();
  private readonly algebra: PoseidonAlgebra<bigint>;

  constructor(private readonly pub: bigint) {
    if (pub < 0n || pub >= R) throw new CircuitUnsatisfied('public input is not a field element');
    this.w.push(1n);
    this.w.push(pub);
    this.w.push(1n); // ONE
    this.a.push(1n); // constraint 0: ONE · w0 = w0
    this.b.push(1n);
    this.a.push(pub); // constraint 1: pub · ONE = result
    this.b.push(1n);
    // Linear layers unreduced (all terms are non-negative): one reduction per S-box instead of
    // one per term, which is most of the witness time otherwise.
    this.algebra = {
      constant: (k) => k,
      add: (x, y) => x + y,
      scale: (x, k) => x * k,
      sbox: (x) => {
        const r = x % R;
        const x2 = this.mul(r, r);
        const x4 = this.mul(x2, x2);
        return this.mul(x4, r);
      },
    };
  }

  constant(k: bigint): bigint {
    return ((k % R) + R) % R;
  }
  add(x: bigint, y: bigint): bigint {
    return (x + y) % R;
  }
  sub(x: bigint, y: bigint): bigint {
    return (x - y + R) % R;
  }
  scale(x: bigint, k: bigint): bigint {
    return (x * this.constant(k)) % R;
  }
  witness(value: () => bigint): bigint {
    const v = value();
    if (v < 0n || v >= R) throw new CircuitUnsatisfied(`witness value is not a field element: ${v}`);
    this.w.push(v);
    return v;
  }
  mul(x: bigint, y: bigint): bigint {
    const c = (x * y) % R;
    this.w.push(c);
    this.a.push(x);
    this.b.push(y);
    return c;
  }
  assertProduct(x: bigint, y: bigint, c: bigint, what: string): void {
    if ((x * y) % R !== c) throw new CircuitUnsatisfied(what);
    this.a.push(x);
    this.b.push(y);
  }
  poseidon(inputs: readonly bigint[]): bigint {
    return poseidonPermutation(this.algebra, inputs) % R;
  }
  value(v: bigint): bigint {
    return v;
  }

  finish(result: bigint): StructuredWitness {
    if (result !== this.pub) throw new CircuitUnsatisfied('the public input does not match the inputs');
    const nConstraints = this.a.count;
    this.a.push(1n);
    this.a.push(this.pub);
    for (let i = 0; i < 2; i++) this.b.push(0n);
    return { witness: this.w.bytes(), a: this.a.bytes(), b: this.b.bytes(), nConstraints, publicInput: this.pub };
  }
}

/** The witness of `circuit` for `inputs`; throws CircuitUnsatisfied naming the first broken check. */
export function structuredWitness<I>(circuit: StructuredCircuit<I>, inputs: I): StructuredWitness {
  const cs = new WitnessCs(circuit.publicInput(inputs));
  return cs.finish(circuit.build(cs, inputs));
}

// ---------------------------------------------------------------------------------------------
// Constraint mode.

/** wire → coefficient; a wire may repeat (terms add up). */
export interface Lc {
  wires: number[];
  coefs: bigint[];
}

/** Receives every term of every constraint: matrix 0 = A, 1 = B, 2 = C. */
export interface ConstraintSink {
  term(matrix: 0 | 1 | 2, constraint: number, wire: number, coef: bigint): void;
}

export const ONE_WIRE = 2;
const lc = (wire: number, coef = 1n): Lc => ({ wires: [wire], coefs: [coef] });

/** A Poseidon of one arity as constraints over local variables: 0 = ONE, 1..m = inputs, then new wires. */
interface PoseidonTemplate {
  arity: number;
  newWires: number;
  constraints: [Lc, Lc, Lc][];
  out: Lc;
}

function lcAdd(x: Lc, y: Lc): Lc {
  return { wires: [...x.wires, ...y.wires], coefs: [...x.coefs, ...y.coefs] };
}
function lcScale(x: Lc, k: bigint): Lc {
  return { wires: x.wires, coefs: x.coefs.map((c) => (c * k) % R) };
}
/** Merges repeated wires and drops zero coefficients. */
function lcCompact(x: Lc): Lc {
  const m = new Map<number, bigint>();
  x.wires.forEach((w, i) => m.set(w, ((m.get(w) ?? 0n) + x.coefs[i]!) % R));
  const out: Lc = { wires: [], coefs: [] };
  for (const [w, c] of m)
    if (c !== 0n) {
      out.wires.push(w);
      out.coefs.push(c);
    }
  return out;
}

const templates = new Map<number, PoseidonTemplate>();
function poseidonTemplate(arity: number): PoseidonTemplate {
  let t = templates.get(arity);
  if (t) return t;
  const constraints: [Lc, Lc, Lc][] = [];
  let next = arity + 1;
  const algebra: PoseidonAlgebra<Lc> = {
    constant: (k) => lc(0, k),
    add: (x, y) => lcCompact(lcAdd(x, y)),
    scale: (x, k) => lcScale(x, k),
    sbox: (x) => {
      const x2 = lc(next++);
      constraints.push([x, x, x2]);
      const x4 = lc(next++);
      constraints.push([x2, x2, x4]);
      const y = lc(next++);
      constraints.push([x4, x, y]);
      return y;
    },
  };
  const inputs = Array.from({ length: arity }, (_, i) => lc(i + 1));
  const out = poseidonPermutation(algebra, inputs);
  t = { arity, newWires: next - arity - 1, constraints, out };
  templates.set(arity, t);
  return t;
}

export class ConstraintCs implements Cs<Lc> {
  readonly one = lc(ONE_WIRE);
  readonly zero: Lc = { wires: [], coefs: [] };
  nWires = 3;
  nConstraints = 2;

  /** Without a sink it only counts. */
  constructor(private readonly sink?: ConstraintSink) {
    this.emit(0, this.one, lc(0), lc(0));
  }

  private emit(j: number, a: Lc, b: Lc, c: Lc): void {
    const s = this.sink;
    if (!s) return;
    for (let i = 0; i < a.wires.length; i++) s.term(0, j, a.wires[i]!, a.coefs[i]!);
    for (let i = 0; i < b.wires.length; i++) s.term(1, j, b.wires[i]!, b.coefs[i]!);
    for (let i = 0; i < c.wires.length; i++) s.term(2, j, c.wires[i]!, c.coefs[i]!);
  }

  constant(k: bigint): Lc {
    return lc(ONE_WIRE, ((k % R) + R) % R);
  }
  add(x: Lc, y: Lc): Lc {
    return lcAdd(x, y);
  }
  sub(x: Lc, y: Lc): Lc {
    return lcAdd(x, lcScale(y, R - 1n));
  }
  scale(x: Lc, k: bigint): Lc {
    return lcScale(x, ((k % R) + R) % R);
  }
  witness(): Lc {
    return lc(this.nWires++);
  }
  mul(x: Lc, y: Lc): Lc {
    const c = lc(this.nWires++);
    this.emit(this.nConstraints++, x, y, c);
    return c;
  }
  assertProduct(x: Lc, y: Lc, c: Lc): void {
    this.emit(this.nConstraints++, x, y, c);
  }
  poseidon(inputs: readonly Lc[]): Lc {
    const t = poseidonTemplate(inputs.length);
    const base = this.nWires - t.arity - 1; // local var v > arity is wire base + v
    const map = (x: Lc): Lc => {
      const out: Lc = { wires: [], coefs: [] };
      for (let i = 0; i < x.wires.length; i++) {
        const v = x.wires[i]!;
        const k = x.coefs[i]!;
        if (v === 0) {
          out.wires.push(ONE_WIRE);
          out.coefs.push(k);
        } else if (v <= t.arity) {
          const input = inputs[v - 1]!;
          for (let j = 0; j < input.wires.length; j++) {
            out.wires.push(input.wires[j]!);
            out.coefs.push(k === 1n ? input.coefs[j]! : (k * input.coefs[j]!) % R);
          }
        } else {
          out.wires.push(base + v);
          out.coefs.push(k);
        }
      }
      return out;
    };
    if (this.sink) for (const [a, b, c] of t.constraints) this.emit(this.nConstraints++, map(a), map(b), map(c));
    else this.nConstraints += t.constraints.length;
    this.nWires += t.newWires;
    return map(t.out);
  }
  value(): bigint {
    throw new Error('values exist only when computing a witness');
  }

  /** Constraint 1, binding the public input to what the circuit computed. */
  finish(result: Lc): void {
    this.emit(1, lc(1), this.one, result);
  }
}

export interface CircuitSize {
  nVars: number;
  nConstraints: number;
  nPublic: 1;
}

/** Wires and constraints of a circuit, without emitting anything. */
export function structuredSize(circuit: StructuredCircuit<unknown>): CircuitSize {
  const cs = new ConstraintCs();
  cs.finish(circuit.build(cs));
  return { nVars: cs.nWires, nConstraints: cs.nConstraints, nPublic: 1 };
}

/** Emits every constraint of the circuit into `sink`. */
export function emitConstraints(circuit: StructuredCircuit<unknown>, sink: ConstraintSink): CircuitSize {
  const cs = new ConstraintCs(sink);
  cs.finish(circuit.build(cs));
  return { nVars: cs.nWires, nConstraints: cs.nConstraints, nPublic: 1 };
}
