// Reader of iden3's binary R1CS format (what circom writes): header and constraint section.
import { AppError } from '../errors.js';

export class R1csFormatError extends AppError {
  readonly kind = 'r1cs_format';
}

export interface R1csHeader {
  n8: number;
  prime: bigint;
  nWires: number;
  nPubOut: number;
  nPubIn: number;
  nPrvIn: number;
  nConstraints: number;
}

export interface R1cs {
  header: R1csHeader;
  /** Section 2: for each constraint, linear combinations A, B, C as (nTerms u32, (wire u32, coef n8 LE)*). */
  constraints: Buffer;
}

export function readLE(buf: Buffer, offset: number, n: number): bigint {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(buf[offset + i]!);
  return v;
}

export function parseR1cs(buf: Buffer): R1cs {
  if (buf.toString('latin1', 0, 4) !== 'r1cs') throw new R1csFormatError('not an r1cs file (bad magic)');
  const nSections = buf.readUInt32LE(8);
  let pos = 12;
  let header: R1csHeader | undefined;
  let constraints: Buffer | undefined;
  for (let i = 0; i < nSections; i++) {
    const type = buf.readUInt32LE(pos);
    const size = Number(buf.readBigUInt64LE(pos + 4));
    const start = pos + 12;
    if (type === 1) {
      const n8 = buf.readUInt32LE(start);
      const p = start + 4 + n8; // then: nWires, nPubOut, nPubIn, nPrvIn (u32), nLabels (u64), nConstraints (u32)
      header = {
        n8,
        prime: readLE(buf, start + 4, n8),
        nWires: buf.readUInt32LE(p),
        nPubOut: buf.readUInt32LE(p + 4),
        nPubIn: buf.readUInt32LE(p + 8),
        nPrvIn: buf.readUInt32LE(p + 12),
        nConstraints: buf.readUInt32LE(p + 24),
      };
    } else if (type === 2) {
      constraints = buf.subarray(start, start + size);
    }
    pos = start + size;
  }
  if (!header || !constraints) throw new R1csFormatError('r1cs file lacks its header or constraint section');
  return { header, constraints };
}
