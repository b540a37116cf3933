// circom's WebAssembly witness calculator, shared by every backend: inputs in, the .wtns bytes out
// (the backends prove from its values). Unsatisfied inputs fail here, before any proving.
import { importInWorker } from '../util/load-iden3.js';
import { FR, writeLE } from '../zk/field.js';
import type { CircuitInputs } from '../zk/inputs.js';
import {
  CircuitUnsatisfied,
  structuredWitness,
  type StructuredCircuit,
  type StructuredWitness,
} from '../zk/structured/cs.js';
import { UnsatisfiedWitnessError } from './backend.js';

export interface WitnessCalculator {
  calculateWTNSBin(input: unknown, sanityCheck?: boolean): Promise<Uint8Array>;
}

interface Libs {
  builder: (code: Uint8Array, options?: unknown) => Promise<WitnessCalculator>;
  unstringify: (v: unknown) => unknown;
}

let libs: Promise<Libs> | undefined;
const loadLibs = (): Promise<Libs> =>
  (libs ??= importInWorker(async () => {
    const [runtime, ff] = await Promise.all([import('circom_runtime'), import('ffjavascript')]);
    return { builder: runtime.WitnessCalculatorBuilder, unstringify: ff.utils.unstringifyBigInts };
  }));

export async function buildWitnessCalculator(wasm: Uint8Array): Promise<WitnessCalculator> {
  return (await loadLibs()).builder(wasm);
}

/** The witness as a .wtns file; inputs the circuit rejects throw UnsatisfiedWitnessError. */
export async function calculateWitness(
  wc: WitnessCalculator,
  shape: string,
  inputs: CircuitInputs,
): Promise<Uint8Array> {
  const { unstringify } = await loadLibs();
  try {
    return await wc.calculateWTNSBin(unstringify(inputs), true);
  } catch (e) {
    const first = String((e as Error)?.message ?? e).split('\n')[0];
    throw new UnsatisfiedWitnessError(`${shape}: the inputs do not satisfy the circuit (${first})`);
  }
}

/** A structured circuit's witness (src/zk/structured/); inputs it rejects throw UnsatisfiedWitnessError. */
export function calculateStructuredWitness(
  circuit: StructuredCircuit<CircuitInputs>,
  shape: string,
  inputs: CircuitInputs,
): StructuredWitness {
  try {
    return structuredWitness(circuit, inputs);
  } catch (e) {
    if (e instanceof CircuitUnsatisfied || e instanceof RangeError)
      throw new UnsatisfiedWitnessError(`${shape}: the inputs do not satisfy the circuit (${e.message})`);
    throw e;
  }
}

/** Witness values (32-byte little-endian, one per wire) as a .wtns file for snarkjs. */
export function wtnsFile(values: Uint8Array): Uint8Array {
  const head = Buffer.alloc(12 + 12 + 40 + 12);
  head.write('wtns', 0, 'latin1');
  head.writeUInt32LE(2, 4); // version
  head.writeUInt32LE(2, 8); // sections
  head.writeUInt32LE(1, 12);
  head.writeBigUInt64LE(40n, 16);
  head.writeUInt32LE(32, 24);
  writeLE(head, 28, FR);
  head.writeUInt32LE(values.length / 32, 60);
  head.writeUInt32LE(2, 64);
  head.writeBigUInt64LE(BigInt(values.length), 68);
  return Buffer.concat([head, values]);
}

/** The values section of a .wtns file: 32-byte little-endian field elements, one per wire. */
export function witnessValues(wtns: Uint8Array): Uint8Array {
  const view = new DataView(wtns.buffer, wtns.byteOffset, wtns.byteLength);
  if (wtns.length < 12 || String.fromCharCode(...wtns.subarray(0, 4)) !== 'wtns') throw new Error('not a wtns file');
  const sections = view.getUint32(8, true);
  let at = 12;
  for (let i = 0; i < sections; i++) {
    const type = view.getUint32(at, true);
    const size = Number(view.getBigUint64(at + 4, true));
    at += 12;
    if (type === 2) return wtns.subarray(at, at + size);
    at += size;
  }
  throw new Error('wtns file without a values section');
}

/**
 * The warm-up's witness (warm-inputs.ts): calculated once and dropped, so that the worker's first
 * run of the witness path is not a caller's. Its time, or why it failed (the warm-up goes on: the
 * shape still proves), or nothing where the job carries no inputs.
 */
export async function warmWitness(
  wc: WitnessCalculator,
  job: { shape: string; inputs: CircuitInputs },
): Promise<{ witnessMs: number } | { witnessError: string } | Record<string, never>> {
  if (Object.keys(job.inputs).length === 0) return {};
  const t = performance.now();
  try {
    await calculateWitness(wc, job.shape, job.inputs);
  } catch (e) {
    return { witnessError: String((e as Error)?.message ?? e) };
  }
  return { witnessMs: performance.now() - t };
}

/**
 * A warm-up proof (the preload's last step): run once where the job has inputs, so that a worker's
 * first proof of the shape is not a caller's; its time, or why it failed (the shape still proves).
 */
export async function warmProof(
  prove: () => Promise<unknown>,
): Promise<{ proofMs: number } | { witnessError: string }> {
  const t = performance.now();
  try {
    await prove();
  } catch (e) {
    return { witnessError: String((e as Error)?.message ?? e) };
  }
  return { proofMs: performance.now() - t };
}
