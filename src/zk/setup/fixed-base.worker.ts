// Worker: multiplies one fixed base (the G1 or G2 generator) by many scalars, the bulk of a dev
// setup. A comb of 32 byte-wide windows (256 precomputed multiples each) turns every product into
// at most 32 mixed additions in snarkjs' own WebAssembly curve code, instead of a 254-step
// double-and-add; results come back as affine points in the zkey's encoding (little-endian,
// Montgomery form), with the point at infinity as zeros.
import { availableParallelism } from 'node:os';
import { importInWorker } from '../../util/load-iden3.js';
import { NICE_BUILD, niceThisThread } from '../../util/thread-priority.js';
import { loadNativeAddon } from '../native-addon.js';

export interface FixedBaseTask {
  group: 'G1' | 'G2';
  /** count × 32 bytes: scalars, little-endian, reduced mod r. */
  scalars: Uint8Array;
  /** With the native addon (on every core) instead of the WebAssembly comb. */
  native?: boolean;
}

interface Engine {
  ex: Record<string, (...args: number[]) => void>;
  tm: { alloc(n: number): number; setBuff(p: number, b: Uint8Array): void; getBuff(p: number, n: number): Uint8Array };
  groups: Partial<Record<'G1' | 'G2', { table: number; jac: number; aff: number }>>;
  curve: { G1: { g: Uint8Array }; G2: { g: Uint8Array } };
}

// Key builds yield the CPU to the gateway's event loop and its proofs (thread-priority.ts).
niceThisThread(NICE_BUILD);

let engine: Promise<Engine> | undefined;

const sizes = (group: 'G1' | 'G2') =>
  group === 'G1' ? { aff: 64, jac: 96, pre: 'g1m' } : { aff: 128, jac: 192, pre: 'g2m' };

function getEngine(): Promise<Engine> {
  engine ??= importInWorker(() => import('ffjavascript'))
    .then(({ buildBn128 }) => buildBn128(true))
    .then((curve: any) => {
      // The engine's memory does not grow on allocation: make room for both groups' tables
      // (G1 512 KiB, G2 1 MiB) and chunk buffers up front, then refresh its views.
      const tm = curve.tm;
      tm.memory.grow(48);
      tm.u8 = new Uint8Array(tm.memory.buffer);
      tm.u32 = new Uint32Array(tm.memory.buffer);
      return { ex: tm.instance.exports, tm, groups: {}, curve };
    });
  return engine;
}

/** tables[j][d] = d · 256^j · G (affine), j < 32, d < 256. */
function buildTable(e: Engine, group: 'G1' | 'G2'): number {
  const { aff, jac, pre } = sizes(group);
  const table = e.tm.alloc(32 * 256 * aff);
  const jacRow = e.tm.alloc(256 * jac);
  const step = e.tm.alloc(jac);
  e.tm.setBuff(step, e.curve[group].g);
  for (let j = 0; j < 32; j++) {
    e.ex[`${pre}_zero`]!(jacRow);
    for (let d = 1; d < 256; d++) e.ex[`${pre}_add`]!(jacRow + (d - 1) * jac, step, jacRow + d * jac);
    e.ex[`${pre}_batchToAffine`]!(jacRow, 256, table + j * 256 * aff);
    // step := 256 · step = 255 · step + step
    e.ex[`${pre}_add`]!(jacRow + 255 * jac, step, step);
  }
  return table;
}

const CHUNK = 1024;

export default async function multiplyFixedBase(task: FixedBaseTask): Promise<Uint8Array> {
  if (task.native) {
    const status = loadNativeAddon();
    if (!status.ok) throw new Error(status.reason);
    return status.addon.fixedBaseMul(task.group === 'G1' ? 1 : 2, task.scalars, availableParallelism());
  }
  const e = await getEngine();
  const { aff, jac, pre } = sizes(task.group);
  const g = (e.groups[task.group] ??= {
    table: buildTable(e, task.group),
    jac: e.tm.alloc(CHUNK * jac),
    aff: e.tm.alloc(CHUNK * aff),
  });
  const { table, jac: pJac, aff: pAff } = g;
  const n = task.scalars.length / 32;
  const addMixed = e.ex[`${pre}_addMixed`]!;
  const zero = e.ex[`${pre}_zero`]!;
  const out = new Uint8Array(n * aff);
  for (let start = 0; start < n; start += CHUNK) {
    const m = Math.min(CHUNK, n - start);
    for (let i = 0; i < m; i++) {
      const acc = pJac + i * jac;
      zero(acc);
      const s = (start + i) * 32;
      for (let j = 0; j < 32; j++) {
        const d = task.scalars[s + j]!;
        if (d !== 0) addMixed(acc, table + (j * 256 + d) * aff, acc);
      }
    }
    e.ex[`${pre}_batchToAffine`]!(pJac, m, pAff);
    out.set(e.tm.getBuff(pAff, m * aff), start * aff);
    for (let i = 0; i < m; i++) {
      let isZero = true;
      for (let j = 0; j < 32 && isZero; j++) if (task.scalars[(start + i) * 32 + j] !== 0) isZero = false;
      if (isZero) out.fill(0, (start + i) * aff, (start + i + 1) * aff);
    }
  }
  return out;
}
