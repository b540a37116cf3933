// The constraint system at the end of Light's current key files (gnark v0.14), read into the same
// flat form as the 0.27 files' (r1cs-cbor.ts), so the solver and prover are the same. Layout
// (docs/light-keys/gnark-v014-cs.md §1–3): a 32-byte little-endian frame (length, gnark's
// version), then four sections — solver levels (skipped: instruction order is a valid order),
// the instructions (four intcomp columns), their call data (LEB128 words), a CBOR body (names,
// blueprints, counts, hint names) — then the coefficient table (Montgomery limbs, little-endian).
// Each instruction is an R1C or a hint call, told apart by its blueprint's CBOR tag.
import { CborReader } from './cbor.js';
import { IntcompError, uncompressUint32, uncompressUint64 } from './intcomp.js';
import { LightKeyFileError } from './keyfile.js';
import { HINTS, type GnarkR1cs, type R1csHint, Growing, montgomeryToCanonical } from './r1cs-cbor.js';
import { FR } from '../field.js';

/** gnark v0.14's ids for the hints Light's circuits use, and the v0.8 id of the same function (the solver's). */
const V014_HINTS: Record<number, { name: string; solverId: keyof typeof HINTS }> = {
  0xf54cdbeb: { name: 'github.com/consensys/gnark/std/math/bits.nBits', solverId: 0x84902ccb },
  0x970c3c2f: { name: 'github.com/consensys/gnark/constraint/solver.InvZeroHint', solverId: 0x80defd9d },
};

// Blueprint types are registered with fxamacker/cbor under tags from 5309735 on (§1.5).
const TAG_HINT = 0x510527;
const TAG_R1C = 0x510528;
const TAG_GROTH16_COMMITMENTS = 0x510529;

const SYSTEM_R1CS = 1;

/** Reads a gnark v0.14 constraint system that fills `bytes` exactly; `file` names the file in errors. */
export function parseGnarkR1csV014(file: string, bytes: Uint8Array): GnarkR1cs {
  const fail = (what: string): never => {
    throw new LightKeyFileError(`${file}: the constraint system ${what}`);
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const u64 = (what: string): number => {
    if (pos + 8 > bytes.length) fail(`ends early, in ${what}`);
    const v = view.getBigUint64(pos, true);
    pos += 8;
    if (v > BigInt(bytes.length)) fail(`gives ${what} as ${v}, more than the file holds`);
    return Number(v);
  };
  const total = u64('its length');
  const [major, minor, patch] = [u64('gnark’s version'), u64('gnark’s version'), u64('gnark’s version')];
  if (major !== 0 || minor !== 14) fail(`is from gnark ${major}.${minor}.${patch}; zkgate reads gnark 0.14’s`);
  if (32 + total !== bytes.length)
    fail(`says it is ${total} bytes long, and ${bytes.length - 32} follow its header (truncated, or more after it)`);

  const [levels, instructions, callDataSize, bodySize] = ['levels', 'instructions', 'call data', 'body'].map((s) =>
    u64(`the size of its ${s}`),
  ) as [number, number, number, number];
  // The levels come first; they are not read (instruction order is a valid solving order).
  const instructionsAt = pos + levels;
  const callDataAt = instructionsAt + instructions;
  const bodyAt = callDataAt + callDataSize;
  const coefficientsAt = bodyAt + bodySize;
  if (coefficientsAt > bytes.length) fail('has sections longer than the file');

  // The instruction columns: blueprint, constraint offset, wire offset (u32 streams), call data start (u64).
  pos = instructionsAt;
  const end = callDataAt;
  const stream = (what: string, wordBytes: 4 | 8): Uint8Array => {
    const words = u64(`the word count of ${what}`);
    if (pos + words * wordBytes > end) fail(`has ${what} running past its section`);
    // A copy (Uint8Array's slice: a Buffer's shares memory): the typed arrays need an aligned buffer.
    const out = Uint8Array.prototype.slice.call(bytes, pos, pos + words * wordBytes);
    pos += words * wordBytes;
    return out;
  };
  let blueprintOf: Uint32Array;
  let constraintOffset: Uint32Array;
  let startOf: BigUint64Array;
  try {
    blueprintOf = uncompressUint32(new Uint32Array(stream('the blueprint column', 4).buffer));
    constraintOffset = uncompressUint32(new Uint32Array(stream('the constraint column', 4).buffer));
    stream('the wire column', 4);
    startOf = uncompressUint64(new BigUint64Array(stream('the call data column', 8).buffer));
  } catch (e) {
    if (e instanceof IntcompError) return fail(`has a corrupt instruction column: ${e.message}`);
    throw e;
  }
  if (pos !== end) fail('has bytes after its instruction columns');
  const nInstructions = blueprintOf.length;
  if (constraintOffset.length !== nInstructions || startOf.length !== nInstructions)
    fail('has instruction columns of different lengths');

  // Call data: a count, then LEB128 words.
  pos = callDataAt;
  const nWords = u64('its call data’s length');
  if (nWords > bodyAt - pos) fail(`claims ${nWords} call data words in ${bodyAt - pos} bytes`);
  const callData = new Uint32Array(nWords);
  for (let i = 0; i < nWords; i++) {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      if (pos >= bodyAt || shift > 28) fail('has corrupt call data');
      const b = bytes[pos++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
    }
    if (v > 0xffffffff) fail('has a call data word beyond 32 bits');
    callData[i] = v;
  }
  if (pos !== bodyAt) fail('has bytes after its call data');

  const body = readBody(file, bytes.subarray(bodyAt, coefficientsAt));

  // Coefficients: a count, then each as four little-endian Montgomery limbs.
  pos = coefficientsAt;
  const nCoefficients = u64('its coefficient count');
  if (pos + 32 * nCoefficients !== bytes.length)
    fail(`has ${nCoefficients} coefficients in ${bytes.length - pos} bytes (32 each)`);
  const coefficients = new Array<bigint>(nCoefficients);
  for (let i = 0; i < nCoefficients; i++, pos += 32) {
    const m =
      view.getBigUint64(pos, true) |
      (view.getBigUint64(pos + 8, true) << 64n) |
      (view.getBigUint64(pos + 16, true) << 128n) |
      (view.getBigUint64(pos + 24, true) << 192n);
    if (m >= FR) fail(`has coefficient ${i} not below r`);
    coefficients[i] = montgomeryToCanonical(m);
  }
  if (nCoefficients < 5) fail('lacks the five fixed coefficients');

  // The instructions, in order: R1Cs become rows (L, R, O), hint calls the solver's hints.
  const rowStart = new Growing();
  const terms = new Growing();
  rowStart.push(0);
  const hints: R1csHint[] = [];
  let nConstraints = 0;
  let expectedStart = 0;
  for (let i = 0; i < nInstructions; i++) {
    const kind = body.blueprints[blueprintOf[i]!];
    if (kind === undefined) fail(`has instruction ${i} of blueprint ${blueprintOf[i]}, which it does not define`);
    const start = Number(startOf[i]!);
    if (start !== expectedStart || start >= nWords) fail(`has instruction ${i}'s call data out of place`);
    const n = callData[start]!;
    if (n < 4 || start + n > nWords) fail(`has instruction ${i}'s call data running past the end`);
    expectedStart = start + n;
    const words = callData.subarray(start, start + n);
    if (kind === TAG_R1C) {
      if (constraintOffset[i] !== nConstraints)
        fail(`numbers instruction ${i} as constraint ${constraintOffset[i]}, not ${nConstraints}`);
      const sides = [words[1]!, words[2]!, words[3]!];
      if (n !== 4 + 2 * (sides[0]! + sides[1]! + sides[2]!)) fail(`has constraint ${nConstraints} of the wrong length`);
      let at = 4;
      for (const count of sides) {
        for (let t = 0; t < 2 * count; t++) terms.push(words[at++]!);
        rowStart.push(terms.length / 2);
      }
      nConstraints++;
    } else {
      // [n, hint id, input count, (length, (coefficient, wire)…)…, first output, end of outputs]
      const id = words[1]!;
      const known = V014_HINTS[id] ?? fail(`calls hint ${id}, which zkgate does not run`);
      if (words[2] !== 1) fail(`calls a hint with ${words[2]} inputs (Light's take one)`);
      const len = words[3]!;
      if (n !== 3 + 1 + 2 * len + 2) fail(`has a hint call of the wrong length (instruction ${i})`);
      const input = words.slice(4, 4 + 2 * len);
      const [first, last] = [words[4 + 2 * len]!, words[5 + 2 * len]!];
      if (last <= first) fail(`has a hint call without outputs (instruction ${i})`);
      hints.push({
        id: known.solverId,
        input,
        outputs: Uint32Array.from({ length: last - first }, (_, j) => first + j),
      });
    }
  }
  if (expectedStart !== nWords) fail('has call data that no instruction uses');
  if (nConstraints !== body.nConstraints) fail(`holds ${nConstraints} constraints and says ${body.nConstraints}`);
  return {
    nConstraints,
    nWires: body.publicNames.length + body.secretNames.length + body.nInternal,
    nPublic: body.publicNames.length,
    nSecret: body.secretNames.length,
    publicNames: body.publicNames,
    secretNames: body.secretNames,
    coefficients,
    rowStart: rowStart.done(),
    terms: terms.done(),
    hints,
  };
}

interface Body {
  publicNames: string[];
  secretNames: string[];
  nInternal: number;
  nConstraints: number;
  /** Per blueprint id, its tag (TAG_R1C or TAG_HINT). */
  blueprints: number[];
}

/** The CBOR body: names, counts, blueprints, hint names; a commitment or GKR part is refused. */
function readBody(file: string, bytes: Uint8Array): Body {
  const r = new CborReader(bytes, `${file}: the constraint system's body`);
  const body: Body = { publicNames: [], secretNames: [], nInternal: -1, nConstraints: -1, blueprints: [] };
  let version = '';
  let field = '';
  let type = -1;
  const dependencies = new Map<number, string>();
  r.struct('the system', (name) => {
    switch (name) {
      case 'GnarkVersion':
        version = r.text(name);
        break;
      case 'ScalarField':
        field = r.text(name);
        break;
      case 'Type':
        type = r.uint(name);
        break;
      case 'NbInternalVariables':
        body.nInternal = r.uint(name);
        break;
      case 'NbConstraints':
        body.nConstraints = r.uint(name);
        break;
      case 'Public':
      case 'Secret': {
        const names = Array.from({ length: r.arrayLen(name) }, () => r.text(`a ${name} name`));
        if (name === 'Public') body.publicNames = names;
        else body.secretNames = names;
        break;
      }
      case 'Blueprints': {
        const n = r.arrayLen(name);
        for (let i = 0; i < n; i++) {
          const tag = r.tag() ?? -1;
          if (tag !== TAG_R1C && tag !== TAG_HINT)
            r.fail(`uses blueprint ${tag < 0 ? '(untagged)' : tag}; Light's circuits use R1Cs and hint calls only`);
          body.blueprints.push(tag);
          r.skip();
        }
        break;
      }
      case 'CommitmentInfo': {
        if (r.isNull()) break;
        const tag = r.tag();
        if (tag !== TAG_GROTH16_COMMITMENTS) r.fail('has commitments of another proof system');
        if (r.arrayLen(name) > 0) r.fail('uses a commitment (gnark’s BSB22), which Light’s circuits do not');
        break;
      }
      case 'GkrInfo':
        r.struct(name, (gkr) => {
          if (gkr === 'Circuit' && r.arrayLen('a GKR circuit') > 0) r.fail('has a GKR sub-circuit');
          else if (gkr !== 'Circuit') r.skip();
        });
        break;
      case 'MHintsDependencies': {
        const n = r.mapLen(name);
        for (let i = 0; i < n; i++) dependencies.set(r.uint('a hint id'), r.text('a hint name'));
        break;
      }
      default:
        r.skip();
    }
  });
  if (r.pos !== bytes.length) r.fail(`is followed by ${bytes.length - r.pos} more bytes`);
  if (!/^0\.14\.\d+$/.test(version)) r.fail(`is from gnark ${version || '(unknown)'}, not 0.14`);
  if (field !== FR.toString(16)) r.fail('is not over BN254’s scalar field');
  if (type !== SYSTEM_R1CS) r.fail(`is of system type ${type}, not an R1CS`);
  if (body.publicNames[0] !== '1') r.fail('has no constant wire first');
  if (body.nInternal < 0 || body.nConstraints < 0) r.fail('lacks its counts');
  for (const [id, name] of dependencies)
    if (V014_HINTS[id]?.name !== name) r.fail(`needs hint ${name} (${id}), which zkgate does not run`);
  return body;
}
