// The snarkjs .zkey container (iden3 "binfile"): magic "zkey", version 1, then sections of
// (id u32, size u64, bytes). Written atomically, so a crash never leaves a truncated key where a
// good one is expected.
import { open } from 'node:fs/promises';
import { AppError } from '../errors.js';
import { writeAtomic } from '../util/atomic-file.js';
import { FP, FR, writeLE } from './field.js';

export class ZkeyFormatError extends AppError {
  readonly kind = 'zkey_format';
}

/** Section id → its content as consecutive buffers. */
export type ZkeySections = Record<number, Buffer[]>;

/**
 * Section 2 (Groth16 header): the field sizes and moduli, the counts, then α₁, β₁, β₂, γ₂, δ₁, δ₂
 * as the zkey stores points (64 bytes in G1, 128 in G2, each as `points` gives them).
 */
export function groth16HeaderSection(
  counts: { nVars: number; nPublic: number; domainSize: number },
  points: { alpha1: Buffer; beta1: Buffer; beta2: Buffer; gamma2: Buffer; delta1: Buffer; delta2: Buffer },
): Buffer {
  const head = Buffer.alloc(4 + 32 + 4 + 32 + 12);
  head.writeUInt32LE(32, 0);
  writeLE(head, 4, FP);
  head.writeUInt32LE(32, 36);
  writeLE(head, 40, FR);
  head.writeUInt32LE(counts.nVars, 72);
  head.writeUInt32LE(counts.nPublic, 76);
  head.writeUInt32LE(counts.domainSize, 80);
  const { alpha1, beta1, beta2, gamma2, delta1, delta2 } = points;
  const sizes = [alpha1.length, beta1.length, beta2.length, gamma2.length, delta1.length, delta2.length];
  if (sizes.join() !== '64,64,128,128,64,128') throw new Error(`zkey header points of sizes ${sizes.join()}`);
  return Buffer.concat([head, alpha1, beta1, beta2, gamma2, delta1, delta2]);
}

export function writeZkey(path: string, sections: ZkeySections): Promise<void> {
  return writeAtomic(path, async (fh) => {
    const ids = Object.keys(sections).map(Number);
    const head = Buffer.alloc(12);
    head.write('zkey', 0, 'latin1');
    head.writeUInt32LE(1, 4);
    head.writeUInt32LE(ids.length, 8);
    await fh.write(head);
    for (const id of ids) {
      const parts = sections[id]!;
      const size = parts.reduce((a, b) => a + b.length, 0);
      const sh = Buffer.alloc(12);
      sh.writeUInt32LE(id, 0);
      sh.writeBigUInt64LE(BigInt(size), 4);
      await fh.write(sh);
      for (const part of parts) if (part.length > 0) await fh.write(part);
    }
  });
}

export interface ZkeyHeader {
  protocol: number;
  nVars: number;
  nPublic: number;
  domainSize: number;
  /** Number of A/B coefficients (section 4). */
  nCoefs: number;
}

/** Reads a Groth16 zkey's header fields (for checking an imported key against its circuit). */
export async function readZkeyHeader(path: string): Promise<ZkeyHeader> {
  const fh = await open(path, 'r');
  try {
    const read = async (pos: number, len: number) => {
      const b = Buffer.alloc(len);
      const { bytesRead } = await fh.read(b, 0, len, pos);
      if (bytesRead !== len) throw new ZkeyFormatError(`${path}: truncated zkey`);
      return b;
    };
    const head = await read(0, 12);
    if (head.toString('latin1', 0, 4) !== 'zkey') throw new ZkeyFormatError(`${path} is not a zkey file (bad magic)`);
    const n = head.readUInt32LE(8);
    const where = new Map<number, { pos: number; size: number }>();
    let pos = 12;
    for (let i = 0; i < n; i++) {
      const sh = await read(pos, 12);
      const size = Number(sh.readBigUInt64LE(4));
      where.set(sh.readUInt32LE(0), { pos: pos + 12, size });
      pos += 12 + size;
    }
    const s1 = where.get(1);
    const s2 = where.get(2);
    const s4 = where.get(4);
    if (!s1 || !s2 || !s4) throw new ZkeyFormatError(`${path}: missing zkey sections`);
    const protocol = (await read(s1.pos, 4)).readUInt32LE(0);
    if (protocol !== 1) throw new ZkeyFormatError(`${path}: not a Groth16 zkey (protocol ${protocol})`);
    const g = await read(s2.pos, 84);
    return {
      protocol,
      nVars: g.readUInt32LE(72),
      nPublic: g.readUInt32LE(76),
      domainSize: g.readUInt32LE(80),
      nCoefs: (await read(s4.pos, 4)).readUInt32LE(0),
    };
  } finally {
    await fh.close();
  }
}
