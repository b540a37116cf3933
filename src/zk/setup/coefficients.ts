// A zkey's coefficient section (snarkjs's section 4): a count, then for every A and B term of every
// constraint (matrix, constraint, wire, value), and A's 1 for the one and each public wire on rows
// of their own after the constraints. snarkjs reads each value in Montgomery form from the stored
// value·R² (R = 2^256 mod r); the native prover reads the same entries (native/src/groth16.cpp).
import { FR, mod, writeLE } from '../field.js';

const R2_MONT = mod((1n << 512n) % FR, FR);
const ENTRY = 44;

export class CoefficientSection {
  private readonly chunks: Buffer[] = [];
  private cur = Buffer.alloc(ENTRY * 65536);
  private pos = 0;
  private count = 0;

  push(matrix: 0 | 1, constraint: number, wire: number, value: bigint): void {
    if (this.pos === this.cur.length) {
      this.chunks.push(this.cur);
      this.cur = Buffer.alloc(this.cur.length);
      this.pos = 0;
    }
    const b = this.cur;
    b.writeUInt32LE(matrix, this.pos);
    b.writeUInt32LE(constraint, this.pos + 4);
    b.writeUInt32LE(wire, this.pos + 8);
    writeLE(b, this.pos + 12, (value * R2_MONT) % FR);
    this.pos += ENTRY;
    this.count++;
  }

  /** Entries already encoded (the native pass's): `count` of them, 44 bytes each. */
  pushEncoded(entries: Uint8Array, count: number): void {
    if (entries.byteLength !== ENTRY * count) throw new RangeError('coefficient entries are 44 bytes each');
    if (count === 0) return;
    if (this.pos > 0) {
      this.chunks.push(this.cur.subarray(0, this.pos));
      this.cur = Buffer.alloc(this.cur.length);
      this.pos = 0;
    }
    this.chunks.push(Buffer.from(entries.buffer, entries.byteOffset, entries.byteLength));
    this.count += count;
  }

  /** The rows snarkjs adds after the nConstraints constraints: A[nC + s][s] = 1 for s ≤ nPublic. */
  pushPublicRows(nConstraints: number, nPublic: number): void {
    for (let s = 0; s <= nPublic; s++) this.push(0, nConstraints + s, s, 1n);
  }

  /** The section's bytes: the count, then the entries. */
  finish(): { header: Buffer; chunks: Buffer[]; bytes: number } {
    const header = Buffer.alloc(4);
    header.writeUInt32LE(this.count, 0);
    const chunks = [...this.chunks, this.cur.subarray(0, this.pos)];
    return { header, chunks, bytes: 4 + ENTRY * this.count };
  }
}
