// The constraint system at the end of a Light proving-system file: gnark v0.8's R1CS in CBOR
// (fxamacker/cbor's deterministic encoding of the Go structs: maps keyed by field name, definite
// lengths, nil as null). Read into flat arrays: the constraints as rows of (coefficient, wire)
// terms, the coefficient table (stored in Montgomery form), and the hints with their inputs and
// outputs. Debug information, levels and the symbol table are skipped. The format, with its
// sources, is docs/light-keys/r1cs-cbor-and-solver.md.
import { FR, mod, modPow } from '../field.js';
import { CborReader } from './cbor.js';

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

/** A coefficient's value from its Montgomery limbs read as one integer below r. */
export const montgomeryToCanonical = (m: bigint): bigint => (m * R_INV) % FR;

export class Growing {
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
  const r = new CborReader(bytes, `${file}: the constraint system`);
  const fail = (what: string): never => r.fail(what);
  /** A linear expression ([]Term{CID, VID}) into `out` as (coefficient, wire) pairs. */
  const linear = (out: Growing, what: string) => {
    const n = r.arrayLen(what);
    for (let i = 0; i < n; i++) {
      // The usual bytes first: {"CID": c, "VID": v}, both below 2^32 (most of a file's bytes).
      const pos = r.pos;
      if (
        bytes[pos] === 0xa2 &&
        bytes[pos + 1] === 0x63 &&
        bytes[pos + 2] === 0x43 &&
        bytes[pos + 3] === 0x49 &&
        bytes[pos + 4] === 0x44
      ) {
        r.pos += 5;
        const cid = r.uint('a coefficient id');
        const at = r.pos;
        if (bytes[at] === 0x63 && bytes[at + 1] === 0x56 && bytes[at + 2] === 0x49 && bytes[at + 3] === 0x44) {
          r.pos += 4;
          out.push(cid);
          out.push(r.uint('a wire id'));
          continue;
        }
        fail('has a term whose second field is not its wire');
      }
      let cid = -1;
      let vid = -1;
      r.struct('a term', (name) => {
        if (name === 'CID') cid = r.uint('a coefficient id');
        else if (name === 'VID') vid = r.uint('a wire id');
        else r.skip();
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

  r.struct('the system', (name) => {
    switch (name) {
      case 'GnarkVersion':
        gnarkVersion = r.text('GnarkVersion');
        break;
      case 'ScalarField':
        scalarField = r.text('ScalarField');
        break;
      case 'NbInternalVariables':
        nInternal = r.uint('NbInternalVariables');
        break;
      case 'Public':
      case 'Secret': {
        const names = Array.from({ length: r.arrayLen(name) }, () => r.text(`a ${name} name`));
        if (name === 'Public') publicNames = names;
        else secretNames = names;
        break;
      }
      case 'Coefficients': {
        const n = r.arrayLen('Coefficients');
        coefficients = new Array<bigint>(n);
        for (let i = 0; i < n; i++) {
          if (r.arrayLen('a coefficient') !== 4) fail('has a coefficient that is not four limbs');
          const l0 = r.limb();
          const l1 = r.limb();
          const l2 = r.limb();
          const l3 = r.limb();
          const m = l0 | (l1 << 64n) | (l2 << 128n) | (l3 << 192n);
          if (m >= FR) fail(`has coefficient ${i} not below r`);
          coefficients[i] = montgomeryToCanonical(m);
        }
        break;
      }
      case 'Constraints': {
        nConstraints = r.arrayLen('Constraints');
        rowStart.push(0);
        // The bytes hold L, O, R (keys sorted); the rows are L, R, O.
        const rows: Record<string, Growing> = { L: new Growing(), R: new Growing(), O: new Growing() };
        for (let c = 0; c < nConstraints; c++) {
          for (const side of ['L', 'R', 'O']) rows[side]!.length = 0;
          r.struct('a constraint', (side) => {
            const row = rows[side];
            if (row) linear(row, `constraint ${c}'s ${side}`);
            else r.skip();
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
        const n = r.mapLen('MHints');
        for (let i = 0; i < n; i++) {
          r.uint('a hinted wire');
          let id = -1;
          const inputs: Growing[] = [];
          let outputs: number[] = [];
          r.struct('a hint', (field) => {
            if (field === 'ID') id = r.uint('a hint id');
            else if (field === 'Wires')
              outputs = Array.from({ length: r.arrayLen('Wires') }, () => r.uint('a hint output'));
            else if (field === 'Inputs') {
              const k = r.arrayLen('Inputs');
              for (let j = 0; j < k; j++) {
                const g = new Growing();
                linear(g, 'a hint input');
                inputs.push(g);
              }
            } else r.skip();
          });
          if (id < 0 || outputs.length === 0) fail('has a hint without its id or outputs');
          if (inputs.length !== 1) fail(`has a hint with ${inputs.length} inputs (Light's take one)`);
          if (!hintByFirstOutput.has(outputs[0]!))
            hintByFirstOutput.set(outputs[0]!, { id, input: inputs[0]!.done(), outputs: Uint32Array.from(outputs) });
        }
        break;
      }
      case 'MHintsDependencies': {
        const n = r.mapLen('MHintsDependencies');
        for (let i = 0; i < n; i++) dependencies.set(r.uint('a hint id'), r.text('a hint name'));
        break;
      }
      case 'CommitmentInfo':
        r.struct('CommitmentInfo', (field) => {
          if (field === 'Committed' || field === 'CommittedAndCommitment') commitment ||= r.arrayLen(field) > 0;
          // the arrays' items, if any, are refused below; their lengths alone tell
          else if (field === 'NbPrivateCommitted') commitment ||= r.uint(field) > 0;
          else r.skip();
          if (commitment) fail('uses a commitment (gnark’s BSB22), which Light’s circuits do not');
        });
        break;
      default:
        r.skip();
    }
  });
  if (r.pos !== bytes.length) fail(`is followed by ${bytes.length - r.pos} more bytes`);
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
