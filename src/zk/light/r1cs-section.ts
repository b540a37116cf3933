// zkgate's encoding of a gnark constraint system inside an imported key (zkey section 101), which
// the native solver reads (native/src/r1cs_solver.cpp): little-endian u32 throughout.
//   version (1), constraints, wires, public wires (with the constant), secret wires
//   coefficients: count, then each 32 bytes canonical
//   terms: count; row starts (3 × constraints + 1: L, R, O of each constraint); (coefficient, wire) pairs
//   hints: count; each: gnark's id, input count (1), input starts (2), term count, terms, output count, outputs
import { writeLE } from '../field.js';
import type { GnarkR1cs } from './r1cs-cbor.js';

const VERSION = 1;

export function encodeR1csSection(cs: GnarkR1cs): Buffer {
  const hintBytes = cs.hints.reduce((n, h) => n + 4 * (6 + h.input.length + h.outputs.length), 0);
  const size = 4 * 6 + 32 * cs.coefficients.length + 4 + 4 * cs.rowStart.length + 4 * cs.terms.length + 4 + hintBytes;
  const out = Buffer.alloc(size);
  let p = 0;
  const u32 = (v: number) => {
    out.writeUInt32LE(v, p);
    p += 4;
  };
  const u32s = (a: Uint32Array) => {
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).copy(out, p);
    p += a.byteLength;
  };
  // The typed arrays are copied as stored: little-endian only (every platform zkgate builds for).
  for (const v of [VERSION, cs.nConstraints, cs.nWires, cs.nPublic, cs.nSecret, cs.coefficients.length]) u32(v);
  for (const c of cs.coefficients) {
    writeLE(out, p, c);
    p += 32;
  }
  u32(cs.terms.length / 2);
  u32s(cs.rowStart);
  u32s(cs.terms);
  u32(cs.hints.length);
  for (const h of cs.hints) {
    u32(h.id);
    u32(1);
    u32(0);
    u32(h.input.length / 2);
    u32(h.input.length / 2);
    u32s(h.input);
    u32(h.outputs.length);
    u32s(h.outputs);
  }
  if (p !== size) throw new Error(`constraint system section: wrote ${p} of ${size} bytes`);
  return out;
}
