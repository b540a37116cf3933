// The constraint system at the end of a Light proving-system file: gnark v0.8's R1CS in CBOR
// (fxamacker/cbor's deterministic encoding of the Go structs: maps keyed by field name, definite
// lengths, nil as null). Read into flat arrays: the constraints as rows of (coefficient, wire)
// terms, the coefficient table (stored in Montgomery form), and the hints with their inputs and
// outputs. Debug information, levels and the symbol table are skipped. The format, with its
// sources, is docs/light-keys/r1cs-cbor-and-solver.md.
import { FR, mod, modPow } from '../field.js';
import { LightKeyFileError } from './keyfile.js';

/** gnark's hint IDs (FNV-1a of the Go function's name) for the two hints Light's circuits use. */
export const HINTS = {
  0x84902ccb: 'github.com/consensys/gnark/std/math/bits.NBits',
  0x80defd9d: 'github.com/consensys/gnark/backend/hint.InvZero',
} as const;

/** A term's wire id for "the coefficient alone" (hint inputs only). */
export const CONSTANT_WIRE = 0xffffffff;

export interface R1csHint {
  id: number;
  /** Its one input, a linear expression: (coefficient, wire) pairs. */
  input: Uint32Array;
  outputs: Uint32Array;
}

export interface GnarkR1cs {
  nConstraints: number;
  nWires: number;
  /** With the constant wire. */
  nPublic: number;
  nSecret: number;
  publicNames: string[];
  secretNames: string[];
  /** Canonical values. */
  coefficients: bigint[];
  /** Constraint i's L, R, O: rows 3i, 3i+1, 3i+2, each [rowStart[k], rowStart[k+1]) of the term pairs. */
  rowStart: Uint32Array;
  /** (coefficient, wire) pairs. */
  terms: Uint32Array;
  hints: R1csHint[];
}

/** 2^256 mod r, inverted: takes gnark's Montgomery limbs to the value. */
const R_INV = modPow(mod(1n << 256n, FR), FR - 2n, FR);

class Growing {
  data = new Uint32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Uint32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
  done(): Uint32Array {
    return this.data.slice(0, this.length);
  }
}

/** Reads the CBOR constraint system in `bytes`; `file` names the file in errors. */
export function parseGnarkR1cs(file: string, bytes: Uint8Array): GnarkR1cs {
  let pos = 0;
  const fail = (what: string): never => {
    throw new LightKeyFileError(`${file}: the constraint system ${what} (at byte ${pos} of it)`);
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  /** A head: major type and argument (lengths and small integers). */
  const head = (): [number, number] => {
    if (pos >= bytes.length) fail('ends early');
    const b = bytes[pos++]!;
    const major = b >> 5;
    const info = b & 31;
    if (info < 24) return [major, info];
    const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
    if (size === 0) fail(`has an indefinite or reserved head (0x${b.toString(16)})`);
    if (pos + size > bytes.length) fail('ends early');
    let v: number;
    if (size === 1) v = bytes[pos]!;
    else if (size === 2) v = view.getUint16(pos);
    else if (size === 4) v = view.getUint32(pos);
    else {
      const big = view.getBigUint64(pos);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) fail('has a length or count beyond 2^53');
      v = Number(big);
    }
    pos += size;
    return [major, v];
  };
  /** A uint64 (coefficient limbs): full width. */
  const limb = (): bigint => {
    const b = bytes[pos];
    if (b === 0x1b) {
      if (pos + 9 > bytes.length) fail('ends early');
      const v = view.getBigUint64(pos + 1);
      pos += 9;
      return v;
    }
    const [major, v] = head();
    if (major !== 0) fail('has a coefficient limb that is not an unsigned integer');
    return BigInt(v);
  };
  const uint = (what: string): number => {
    const [major, v] = head();
    if (major !== 0) fail(`has ${what} that is not an unsigned integer`);
    return v;
  };
  const isNull = () => {
    if (bytes[pos] === 0xf6) {
      pos++;
      return true;
    }
    return false;
  };
  const arrayLen = (what: string): number => {
    if (isNull()) return 0;
    const [major, n] = head();
    if (major !== 4) fail(`has ${what} that is not an array`);
    // Every item takes a byte at least: a count beyond the bytes left is a corrupt file, refused
    // before anything is allocated for it.
    if (n > bytes.length - pos) fail(`claims ${n} items of ${what} in ${bytes.length - pos} bytes`);
    return n;
  };
  const mapLen = (what: string): number => {
    if (isNull()) return 0;
    const [major, n] = head();
    if (major !== 5) fail(`has ${what} that is not a map`);
    if (2 * n > bytes.length - pos) fail(`claims ${n} entries of ${what} in ${bytes.length - pos} bytes`);
    return n;
  };
  const text = (what: string): string => {
    const [major, n] = head();
    if (major !== 3) fail(`has ${what} that is not a string`);
    if (pos + n > bytes.length) fail('ends early');
    const s = Buffer.from(bytes.buffer, bytes.byteOffset + pos, n).toString('utf8');
    pos += n;
    return s;
  };
  const skip = (): void => {
    const [major, n] = head();
    if (major === 2 || major === 3) {
      if (pos + n > bytes.length) fail('ends early');
      pos += n;
    } else if (major === 4) for (let i = 0; i < n; i++) skip();
    else if (major === 5) for (let i = 0; i < 2 * n; i++) skip();
    else if (major === 6) skip();
    // 0, 1 (integers) and 7 (simple values: null, booleans) carry nothing more
  };
  /** A struct's fields by name, each read by `field` (which must consume it). */
  const struct = (what: string, field: (name: string) => void) => {
    const n = mapLen(what);
    for (let i = 0; i < n; i++) field(text(`${what}'s field name`));
  };
  /** A linear expression ([]Term{CID, VID}) into `out` as (coefficient, wire) pairs. */
  const linear = (out: Growing, what: string) => {
    const n = arrayLen(what);
    for (let i = 0; i < n; i++) {
      // The usual bytes first: {"CID": c, "VID": v}, both below 2^32 (most of a file's bytes).
      if (
        bytes[pos] === 0xa2 &&
        bytes[pos + 1] === 0x63 &&
        bytes[pos + 2] === 0x43 &&
        bytes[pos + 3] === 0x49 &&
        bytes[pos + 4] === 0x44
      ) {
        pos += 5;
        const cid = uint('a coefficient id');
        if (bytes[pos] === 0x63 && bytes[pos + 1] === 0x56 && bytes[pos + 2] === 0x49 && bytes[pos + 3] === 0x44) {
          pos += 4;
          out.push(cid);
          out.push(uint('a wire id'));
          continue;
        }
        fail('has a term whose second field is not its wire');
      }
      let cid = -1;
      let vid = -1;
      struct('a term', (name) => {
        if (name === 'CID') cid = uint('a coefficient id');
        else if (name === 'VID') vid = uint('a wire id');
        else skip();
      });
      if (cid < 0 || vid < 0) fail('has a term without its coefficient or wire');
      out.push(cid);
      out.push(vid);
    }
  };

  let gnarkVersion = '';
  let scalarField = '';
  let nInternal = -1;
  let publicNames: string[] = [];
  let secretNames: string[] = [];
  let coefficients: bigint[] = [];
  let commitment = false;
  const dependencies = new Map<number, string>();
  const rowStart = new Growing();
  const terms = new Growing();
  let nConstraints = 0;
  const hintByFirstOutput = new Map<number, R1csHint>();

  struct('the system', (name) => {
    switch (name) {
      case 'GnarkVersion':
        gnarkVersion = text('GnarkVersion');
        break;
      case 'ScalarField':
        scalarField = text('ScalarField');
        break;
      case 'NbInternalVariables':
        nInternal = uint('NbInternalVariables');
        break;
      case 'Public':
      case 'Secret': {
        const names = Array.from({ length: arrayLen(name) }, () => text(`a ${name} name`));
        if (name === 'Public') publicNames = names;
        else secretNames = names;
        break;
      }
      case 'Coefficients': {
        const n = arrayLen('Coefficients');
        coefficients = new Array<bigint>(n);
        for (let i = 0; i < n; i++) {
          if (arrayLen('a coefficient') !== 4) fail('has a coefficient that is not four limbs');
          const l0 = limb();
          const l1 = limb();
          const l2 = limb();
          const l3 = limb();
          const m = l0 | (l1 << 64n) | (l2 << 128n) | (l3 << 192n);
          if (m >= FR) fail(`has coefficient ${i} not below r`);
          coefficients[i] = (m * R_INV) % FR;
        }
        break;
      }
      case 'Constraints': {
        nConstraints = arrayLen('Constraints');
        rowStart.push(0);
        // The bytes hold L, O, R (keys sorted); the rows are L, R, O.
        const rows: Record<string, Growing> = { L: new Growing(), R: new Growing(), O: new Growing() };
        for (let c = 0; c < nConstraints; c++) {
          for (const side of ['L', 'R', 'O']) rows[side]!.length = 0;
          struct('a constraint', (side) => {
            const row = rows[side];
            if (row) linear(row, `constraint ${c}'s ${side}`);
            else skip();
          });
          for (const side of ['L', 'R', 'O']) {
            const row = rows[side]!;
            for (let i = 0; i < row.length; i++) terms.push(row.data[i]!);
            rowStart.push(terms.length / 2);
          }
        }
        break;
      }
      case 'MHints': {
        // One entry per output wire, each with its own copy of the hint: kept once.
        const n = mapLen('MHints');
        for (let i = 0; i < n; i++) {
          uint('a hinted wire');
          let id = -1;
          const inputs: Growing[] = [];
          let outputs: number[] = [];
          struct('a hint', (field) => {
            if (field === 'ID') id = uint('a hint id');
            else if (field === 'Wires')
              outputs = Array.from({ length: arrayLen('Wires') }, () => uint('a hint output'));
            else if (field === 'Inputs') {
              const k = arrayLen('Inputs');
              for (let j = 0; j < k; j++) {
                const g = new Growing();
                linear(g, 'a hint input');
                inputs.push(g);
              }
            } else skip();
          });
          if (id < 0 || outputs.length === 0) fail('has a hint without its id or outputs');
          if (inputs.length !== 1) fail(`has a hint with ${inputs.length} inputs (Light's take one)`);
          if (!hintByFirstOutput.has(outputs[0]!))
            hintByFirstOutput.set(outputs[0]!, { id, input: inputs[0]!.done(), outputs: Uint32Array.from(outputs) });
        }
        break;
      }
      case 'MHintsDependencies': {
        const n = mapLen('MHintsDependencies');
        for (let i = 0; i < n; i++) dependencies.set(uint('a hint id'), text('a hint name'));
        break;
      }
      case 'CommitmentInfo':
        struct('CommitmentInfo', (field) => {
          if (field === 'Committed' || field === 'CommittedAndCommitment') commitment ||= arrayLen(field) > 0;
          // the arrays' items, if any, are refused below; their lengths alone tell
          else if (field === 'NbPrivateCommitted') commitment ||= uint(field) > 0;
          else skip();
          if (commitment) fail('uses a commitment (gnark’s BSB22), which Light’s circuits do not');
        });
        break;
      default:
        skip();
    }
  });
  if (pos !== bytes.length) fail(`is followed by ${bytes.length - pos} more bytes`);
  if (gnarkVersion !== '0.8.0') fail(`is from gnark ${gnarkVersion || '(unknown)'}, not 0.8.0`);
  if (scalarField !== FR.toString(16)) fail('is not over BN254’s scalar field');
  if (publicNames[0] !== '1') fail('has no constant wire first');
  if (nInternal < 0 || coefficients.length < 5) fail('lacks its counts or coefficients');
  for (const [id, hintName] of dependencies) {
    const known = HINTS[id as keyof typeof HINTS];
    if (known !== hintName) fail(`needs hint ${hintName} (${id}), which zkgate does not run`);
  }
  const hints = [...hintByFirstOutput.values()];
  for (const h of hints) if (!dependencies.has(h.id)) fail(`uses hint ${h.id}, not among its dependencies`);
  return {
    nConstraints,
    nWires: publicNames.length + secretNames.length + nInternal,
    nPublic: publicNames.length,
    nSecret: secretNames.length,
    publicNames,
    secretNames,
    coefficients,
    rowStart: rowStart.done(),
    terms: terms.done(),
    hints,
  };
}
