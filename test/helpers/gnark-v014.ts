// Test-only: Light's 0.27.0 key files rewritten in the layout Light's current prover (gnark v0.14)
// writes, from docs/light-keys/gnark-v014-cs.md and keyfile-format.md §4, since no file of that
// release is reachable here. The Groth16 keys are the same points; what changes is the framing
// (a domain byte, one Z point fewer, empty commitment lists) and the constraint system's encoding
// (instructions, call data, a tagged CBOR body, intcomp-compressed columns). The intcomp encoder
// is checked word for word against the real library's output (test/zk/fixtures).
import { parseLightKeyFile } from '../../src/zk/light/keyfile.js';
import { parseGnarkR1cs, type GnarkR1cs } from '../../src/zk/light/r1cs-cbor.js';
import { FR } from '../../src/zk/field.js';

// ---- intcomp v1.1.1's CompressUint32 / CompressUint64 (a fresh output, as gnark always uses)

const bitLength = (x: bigint) => x.toString(2).length - (x === 0n ? 1 : 0);

/** Compresses like intcomp: whole blocks delta bit-packed, the rest delta var-byte, then the trailer. */
function compress(values: readonly bigint[], width: 32 | 64): bigint[] {
  if (values.length === 0) return [];
  const W = BigInt(width);
  const M = (1n << W) - 1n;
  const block = width === 32 ? 128 : 256;
  const group = block / 4;
  const signed = (x: bigint) => (x >= 1n << (W - 1n) ? x - (1n << W) : x);
  const out: bigint[] = [];
  const nBlocks = Math.floor(values.length / block);
  if (nBlocks > 0) {
    const head = out.length;
    out.push(0n, 0n);
    if (width === 32) out.push(0n);
    let prev = values[0]!;
    if (width === 32) out[head + 2] = prev;
    else out[head + 1] = prev;
    for (let b = 0; b < nBlocks; b++) {
      const headerAt = out.length;
      out.push(0n);
      let header = 0n;
      for (let g = 0; g < 4; g++) {
        const vs = values.slice(b * block + g * group, b * block + (g + 1) * group);
        const deltas = vs.map((v, j) => signed((v - (j === 0 ? prev : vs[j - 1]!)) & M));
        const zigzag = deltas.some((d) => d < 0n);
        const coded = deltas.map((d) => (zigzag ? ((d << 1n) ^ (d < 0n ? M : 0n)) & M : d));
        const bits = bitLength(coded.reduce((a, c) => a | c, 0n));
        header |= ((zigzag ? 0x80n : 0n) | BigInt(bits)) << BigInt(24 - 8 * g);
        const payload = new Array<bigint>(bits).fill(0n);
        if (bits === width) payload.splice(0, bits, ...vs);
        else if (bits > 0)
          coded.forEach((c, j) => {
            const bit = j * bits;
            const k = Math.floor(bit / width);
            const s = BigInt(bit % width);
            payload[k] = (payload[k]! | (c << s)) & M;
            if (Number(s) + bits > width) payload[k + 1] = payload[k + 1]! | (c >> (W - s));
          });
        out.push(...payload);
        prev = vs[group - 1]!;
      }
      out[headerAt] = header;
    }
    const count = BigInt(nBlocks * block);
    const size = BigInt(out.length - head);
    if (width === 32) [out[head], out[head + 1]] = [count, size];
    else out[head] = count | (size << 32n);
  }
  const rest = values.slice(nBlocks * block);
  // The trailer is the last section's length: the bit-packed one (at 0) unless a var-byte one follows.
  let lastSection = 0;
  if (rest.length > 0) {
    lastSection = out.length;
    const bytes: number[] = [];
    let prev = 0n;
    for (const v of rest) {
      let d = (v - prev) & M;
      prev = v;
      do {
        const low = Number(d & 0x7fn);
        d >>= 7n;
        bytes.push(d > 0n ? low | 0x80 : low);
      } while (d > 0n);
    }
    const per = width / 8;
    while (bytes.length % per !== 0) bytes.push(0x80);
    const words: bigint[] = [];
    for (let i = 0; i < bytes.length; i += per)
      words.push(bytes.slice(i, i + per).reduce((w, b) => (w << 8n) | BigInt(b), 0n));
    const headerWords = width === 32 ? 2 : 1;
    const size = BigInt(headerWords + words.length);
    if (width === 32) out.push(BigInt(rest.length), size);
    else out.push(BigInt(rest.length) | (size << 32n));
    out.push(...words);
  }
  out.push(BigInt(out.length - lastSection));
  return out;
}

export const compressUint32 = (values: readonly number[]): Uint32Array =>
  Uint32Array.from(compress(values.map(BigInt), 32).map(Number));
export const compressUint64 = (values: readonly bigint[]): BigUint64Array => BigUint64Array.from(compress(values, 64));

// ---- CBOR, as fxamacker/cbor's deterministic mode writes it

type Cbor = number | string | null | Cbor[] | { tag: number; value: Cbor } | { map: [Cbor, Cbor][] };

function cbor(v: Cbor, out: number[]): void {
  const head = (major: number, n: number) => {
    if (n < 24) out.push((major << 5) | n);
    else if (n < 0x100) out.push((major << 5) | 24, n);
    else if (n < 0x10000) out.push((major << 5) | 25, n >> 8, n & 0xff);
    else out.push((major << 5) | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
  };
  if (v === null) out.push(0xf6);
  else if (typeof v === 'number') head(0, v);
  else if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    head(3, b.length);
    out.push(...b);
  } else if (Array.isArray(v)) {
    head(4, v.length);
    for (const x of v) cbor(x, out);
  } else if ('tag' in v) {
    head(6, v.tag);
    cbor(v.value, out);
  } else {
    head(5, v.map.length);
    for (const [k, x] of v.map) {
      cbor(k, out);
      cbor(x, out);
    }
  }
}

/** A Go struct: fields ordered by their encoded key (shorter names first, then bytewise). */
const struct = (fields: Record<string, Cbor>): Cbor => ({
  map: Object.entries(fields).sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)),
});

// ---- The constraint system

const V014_HINT_OF: Record<number, [number, string]> = {
  0x84902ccb: [0xf54cdbeb, 'github.com/consensys/gnark/std/math/bits.nBits'],
  0x80defd9d: [0x970c3c2f, 'github.com/consensys/gnark/constraint/solver.InvZeroHint'],
};

const le64 = (v: bigint | number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  return b;
};
const uvarint = (v: number, out: number[]) => {
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
};

export interface V014Options {
  /** gnark's version in the frame and the body. */
  version?: [number, number, number];
  /** Replaces a hint's v0.14 id (to test refusals). */
  hintId?: number;
}

/** A v0.8 constraint system re-encoded as gnark v0.14 writes it. */
export function encodeR1csV014(cs: GnarkR1cs, opts: V014Options = {}): Buffer {
  const [major, minor, patch] = opts.version ?? [0, 14, 0];
  // Each hint goes right before the first constraint that reads one of its outputs.
  const firstUse = new Map<number, number>();
  for (let c = cs.nConstraints - 1; c >= 0; c--)
    for (let t = cs.rowStart[3 * c]!; t < cs.rowStart[3 * c + 3]!; t++) firstUse.set(cs.terms[2 * t + 1]!, c);
  const hintsAt = new Map<number, GnarkR1cs['hints']>();
  for (const h of cs.hints) {
    for (let j = 1; j < h.outputs.length; j++)
      if (h.outputs[j] !== h.outputs[0]! + j) throw new Error('a hint with outputs that are not consecutive');
    const at = Math.min(...[...h.outputs].map((w) => firstUse.get(w) ?? cs.nConstraints));
    hintsAt.set(at, [...(hintsAt.get(at) ?? []), h]);
  }
  const blueprint: number[] = [];
  const constraintOffset: number[] = [];
  const wireOffset: number[] = [];
  const start: bigint[] = [];
  const callData: number[] = [];
  const add = (bp: number, words: number[], c: number) => {
    blueprint.push(bp);
    constraintOffset.push(c);
    wireOffset.push(cs.nWires);
    start.push(BigInt(callData.length));
    callData.push(words.length + 1, ...words);
  };
  for (let c = 0; c <= cs.nConstraints; c++) {
    for (const h of hintsAt.get(c) ?? []) {
      const [id] = V014_HINT_OF[h.id]!;
      const outs = [h.outputs[0]!, h.outputs[h.outputs.length - 1]! + 1];
      add(0, [opts.hintId ?? id, 1, h.input.length / 2, ...h.input, ...outs], c);
    }
    if (c === cs.nConstraints) break;
    const sides = [0, 1, 2].map((k) => [cs.rowStart[3 * c + k]!, cs.rowStart[3 * c + k + 1]!]);
    const words = [...sides.map(([a, b]) => b! - a!)];
    for (const [a, b] of sides) for (let t = a!; t < b!; t++) words.push(cs.terms[2 * t]!, cs.terms[2 * t + 1]!);
    add(1, words, c);
  }

  const stream32 = (vs: number[]) => {
    const w = compressUint32(vs);
    return Buffer.concat([le64(w.length), Buffer.from(w.buffer)]);
  };
  const levels = Buffer.concat([le64(1), stream32(blueprint.map((_, i) => i))]);
  const w64 = compressUint64(start);
  const instructions = Buffer.concat([
    stream32(blueprint),
    stream32(constraintOffset),
    stream32(wireOffset),
    le64(w64.length),
    Buffer.from(w64.buffer),
  ]);
  const cd: number[] = [];
  for (const w of callData) uvarint(w, cd);
  const callDataBytes = Buffer.concat([le64(callData.length), Buffer.from(cd)]);

  const nInternal = cs.nWires - cs.nPublic - cs.nSecret;
  const dependencies = [...new Set(cs.hints.map((h) => h.id))].map((id) => V014_HINT_OF[id]!).sort(([a], [b]) => a - b);
  const body: number[] = [];
  cbor(
    struct({
      Logs: null,
      Type: 1,
      MDebug: { map: [] },
      Public: cs.publicNames,
      Secret: cs.secretNames,
      GkrInfo: struct({
        Prints: null,
        Circuit: null,
        HashName: '',
        NbInstances: 0,
        ProveHintID: 0,
        SolveHintID: 0,
        Dependencies: null,
      }),
      DebugInfo: null,
      Blueprints: [
        { tag: 0x510527, value: { map: [] } },
        { tag: 0x510528, value: { map: [] } },
      ],
      ScalarField: FR.toString(16),
      SymbolTable: struct({ Functions: null, Locations: null }),
      GnarkVersion: `${major}.${minor}.${patch}`,
      NbConstraints: cs.nConstraints,
      CommitmentInfo: { tag: 0x510529, value: [] },
      MHintsDependencies: { map: dependencies.map(([id, name]) => [opts.hintId ?? id, name]) },
      NbInternalVariables: nInternal,
    }),
    body,
  );
  const R = (1n << 256n) % FR;
  const coefficients = Buffer.alloc(8 + 32 * cs.coefficients.length);
  coefficients.writeBigUInt64LE(BigInt(cs.coefficients.length), 0);
  cs.coefficients.forEach((c, i) => {
    const m = (c * R) % FR;
    for (let l = 0; l < 4; l++)
      coefficients.writeBigUInt64LE((m >> BigInt(64 * l)) & ((1n << 64n) - 1n), 8 + 32 * i + 8 * l);
  });
  const sections = [levels, instructions, callDataBytes, Buffer.from(body)];
  const system = Buffer.concat([...sections.map((s) => le64(s.length)), ...sections]);
  const total = system.length + coefficients.length;
  return Buffer.concat([le64(total), le64(major), le64(minor), le64(patch), system, coefficients]);
}

/**
 * A 0.27.0 key file in the current release's layout: the domain's precompute byte, Z without its
 * last point, empty commitment lists after each key, the constraint system re-encoded.
 */
export function keyFileV014(name: string, bytes: Buffer, opts: V014Options & { commitments?: number } = {}): Buffer {
  const file = parseLightKeyFile(name, bytes);
  const cs = parseGnarkR1cs(name, bytes.subarray(file.csOffset));
  const domainEnd = file.pk.alpha1.offset;
  const zCountAt = file.pk.z.offset - 4;
  const zEnd = file.pk.z.offset + file.pk.z.count * 32;
  const pkEnd = file.vkBytes.byteOffset - bytes.byteOffset;
  const vkEnd = file.csOffset;
  const u32 = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v);
    return b;
  };
  return Buffer.concat([
    bytes.subarray(0, domainEnd),
    Buffer.of(1),
    bytes.subarray(domainEnd, zCountAt),
    u32(file.pk.z.count - 1),
    bytes.subarray(file.pk.z.offset, zEnd - 32),
    bytes.subarray(zEnd, pkEnd),
    u32(opts.commitments ?? 0),
    bytes.subarray(pkEnd, vkEnd),
    u32(0),
    u32(0),
    encodeR1csV014(cs, opts),
  ]);
}
