// The little of ELF64 that locating data inside an sBPF program file needs: its sections and its
// dynamic relocations. Solana programs are little-endian ELF64 shared objects.
export class ElfError extends Error {}

export interface ElfSection {
  name: string;
  type: number;
  addr: number;
  offset: number;
  size: number;
}

export interface Elf {
  sections: ElfSection[];
  section(name: string): ElfSection;
  /** r_offset of every REL relocation (the virtual address of the patched word). */
  relocationOffsets(): number[];
  /** The file offset of a virtual address inside a section with file contents. */
  fileOffset(vaddr: number): number | undefined;
}

const SHT_REL = 9;
const SHT_NOBITS = 8;

export function parseElf(bytes: Uint8Array): Elf {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 64 || b.readUInt32BE(0) !== 0x7f454c46) throw new ElfError('not an ELF file');
  if (b[4] !== 2 || b[5] !== 1) throw new ElfError('not a little-endian ELF64 file');
  const shoff = Number(b.readBigUInt64LE(0x28));
  const shentsize = b.readUInt16LE(0x3a);
  const shnum = b.readUInt16LE(0x3c);
  const shstrndx = b.readUInt16LE(0x3e);
  if (shentsize < 64 || shoff + shnum * shentsize > b.length || shstrndx >= shnum)
    throw new ElfError('section header table out of range');
  const raw = Array.from({ length: shnum }, (_, i) => {
    const o = shoff + i * shentsize;
    return {
      nameOff: b.readUInt32LE(o),
      type: b.readUInt32LE(o + 4),
      addr: Number(b.readBigUInt64LE(o + 16)),
      offset: Number(b.readBigUInt64LE(o + 24)),
      size: Number(b.readBigUInt64LE(o + 32)),
    };
  });
  const strtab = raw[shstrndx]!;
  const name = (off: number) => {
    const start = strtab.offset + off;
    const end = b.indexOf(0, start);
    return b.toString('latin1', start, end < 0 ? start : end);
  };
  const sections: ElfSection[] = raw.map((s) => {
    if (s.type !== SHT_NOBITS && s.offset + s.size > b.length) throw new ElfError('section out of range');
    return { name: name(s.nameOff), type: s.type, addr: s.addr, offset: s.offset, size: s.size };
  });
  return {
    sections,
    section(n) {
      const found = sections.filter((s) => s.name === n);
      if (found.length !== 1) throw new ElfError(`expected one ${n} section, found ${found.length}`);
      return found[0]!;
    },
    relocationOffsets() {
      const out: number[] = [];
      for (const s of sections) {
        if (s.type !== SHT_REL) continue;
        for (let o = s.offset; o + 16 <= s.offset + s.size; o += 16) out.push(Number(b.readBigUInt64LE(o)));
      }
      return out;
    },
    fileOffset(vaddr) {
      const s = sections.find((x) => x.type !== SHT_NOBITS && x.addr > 0 && vaddr >= x.addr && vaddr < x.addr + x.size);
      return s ? vaddr - s.addr + s.offset : undefined;
    },
  };
}

/**
 * The address a relocated 64-bit data word refers to. Older sBPF toolchains wrote the address in
 * the upper 32 bits of data words (the loader still reads them that way); newer ones write it whole.
 */
export function relocatedAddress(bytes: Uint8Array, offset: number): number {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const low = b.readUInt32LE(offset);
  const high = b.readUInt32LE(offset + 4);
  return low === 0 ? high : high * 0x100000000 + low;
}
