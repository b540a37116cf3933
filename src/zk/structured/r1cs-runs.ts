// The constraints a structured circuit emits (cs.ts's ConstraintSink: terms of A, then B, then C,
// one constraint after another), written as R1CS section bytes (per constraint and matrix a u32
// term count, then a u32 wire and a 32-byte coefficient per term) in runs of consecutive
// constraints, each handed to `flush` once it holds about RUN_BYTES: what the setup's QAP pass
// (../setup/qap.ts) takes. A constraint emitted out of order (constraint 1 comes last) starts a run.
import { writeLE } from '../field.js';
import type { ConstraintSink } from './cs.js';

const RUN_BYTES = 16 << 20;
/** Coefficients repeat (address append × 10: 640 distinct among 11 M terms): their bytes are kept. */
const ENCODED_MAX = 1 << 16;

export class R1csRuns implements ConstraintSink {
  private buf = Buffer.alloc(RUN_BYTES + (1 << 16));
  private pos = 0;
  /** The run's first constraint and the open one (-1: none). */
  private first = -1;
  private row = -1;
  /** The open matrix of the open constraint, where its term count goes, and the count so far. */
  private matrix = -1;
  private countAt = 0;
  private terms = 0;
  private readonly encoded = new Map<bigint, Buffer>();

  constructor(private readonly flush: (constraints: Buffer, first: number, count: number) => void) {}

  term(matrix: 0 | 1 | 2, constraint: number, wire: number, coef: bigint): void {
    if (constraint !== this.row) this.open(constraint);
    if (matrix < this.matrix) throw new Error(`constraint ${constraint}: matrix ${matrix} after ${this.matrix}`);
    while (this.matrix < matrix) this.nextMatrix();
    this.reserve(36);
    this.buf.writeUInt32LE(wire, this.pos);
    this.encode(coef).copy(this.buf, this.pos + 4);
    this.pos += 36;
    this.terms++;
  }

  /** Closes the last constraint and flushes what is left. */
  end(): void {
    if (this.row < 0) return;
    this.close();
    this.emit();
    this.row = -1;
  }

  private open(constraint: number): void {
    if (this.row >= 0) {
      this.close();
      if (constraint !== this.row + 1 || this.pos >= RUN_BYTES) this.emit();
    }
    if (this.first < 0) this.first = constraint;
    this.row = constraint;
    this.matrix = -1;
  }

  private nextMatrix(): void {
    if (this.matrix >= 0) this.buf.writeUInt32LE(this.terms, this.countAt);
    this.matrix++;
    this.reserve(4);
    this.countAt = this.pos;
    this.pos += 4;
    this.terms = 0;
  }

  private close(): void {
    while (this.matrix < 2) this.nextMatrix();
    this.buf.writeUInt32LE(this.terms, this.countAt);
  }

  private emit(): void {
    this.flush(this.buf.subarray(0, this.pos), this.first, this.row - this.first + 1);
    this.pos = 0;
    this.first = -1;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.alloc(Math.max(2 * this.buf.length, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  private encode(coef: bigint): Buffer {
    let b = this.encoded.get(coef);
    if (b) return b;
    if (this.encoded.size >= ENCODED_MAX) this.encoded.clear();
    b = Buffer.alloc(32);
    writeLE(b, 0, coef);
    this.encoded.set(coef, b);
    return b;
  }
}
