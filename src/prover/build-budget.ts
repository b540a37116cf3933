// Whether a proving key's build fits the machine, decided before it starts: a build that runs out
// of memory takes the gateway down with it, and one that fills the disk leaves the ledger unable
// to write. The need is estimated from the shape's size; the figures are per R1CS variable,
// measured on dev builds (benchmarks/RESULTS.md, "key builds"): peak memory of the process, its
// setup thread and the circom child, and the key's and compiled circuit's bytes on disk; and the
// build's time, which the build queue plans with (how long a request waits, what a start builds).
import { statfsSync } from 'node:fs';
import { freemem } from 'node:os';
import type { Shape } from '../zk/shapes.js';
import { isStructuredShape } from '../zk/structured/registry.js';

/** Variables per proved account / new address (V1, V2) and per batch leaf, from the dev keys' headers. */
const VARS = {
  inclusion: { 1: 6_320, 2: 8_028 },
  nonInclusion: { 1: 7_078, 2: 10_698 },
  'batch-append': 3_747,
  'batch-update': 16_016,
  'batch-address-append': 40_722,
  /** A V2 combined circuit's own: it chains the two parts' public inputs. */
  combined: { 1: 0, 2: 250 },
} as const;

/** Memory: a fixed part (setup thread, curve, compiler) and a part per variable; disk: per variable. */
const MEMORY_FIXED = 600 * 2 ** 20;
const MEMORY_PER_VAR = 2_048;
const DISK_PER_VAR = 2_600;

/**
 * Time of a build alone, on the project's 2-core machine (a process of its own, start included):
 * circom's compile and the setup's fixed cost, then a part per variable. Measured 2026-12-01 from
 * 7.9 s (v1_inclusion_26_1) to 38.9 s (batch_update_32_10) for circom shapes, 29.8 s for the
 * structured batch_address_append_40_10 (RESULTS.md, "first start"). The build queue scales it by
 * how fast this machine's builds have been.
 */
const TIME = {
  circom: { fixedMs: 6_500, perVarUs: 225 },
  structured: { fixedMs: 3_000, perVarUs: 66 },
} as const;

export interface BuildNeed {
  vars: number;
  memoryBytes: number;
  diskBytes: number;
  /** Expected time alone on the reference machine. */
  ms: number;
}

export function estimateBuild(shape: Shape): BuildNeed {
  const vars =
    shape.batchSize > 0
      ? shape.batchSize * VARS[shape.family as keyof typeof VARS & `batch-${string}`]
      : shape.nInclusion * VARS.inclusion[shape.version] +
        shape.nNonInclusion * VARS.nonInclusion[shape.version] +
        (shape.family === 'combined' ? VARS.combined[shape.version] : 0);
  const time = TIME[isStructuredShape(shape) ? 'structured' : 'circom'];
  return {
    vars,
    memoryBytes: MEMORY_FIXED + vars * MEMORY_PER_VAR,
    diskBytes: vars * DISK_PER_VAR,
    ms: Math.round(time.fixedMs + (vars * time.perVarUs) / 1000),
  };
}

export interface BuildRoom {
  memoryBytes: number;
  /** Where the memory figure comes from, for the refusal. */
  memorySource: string;
  diskBytes: number;
}

/** Memory for builds (--build-memory-mb, else what the system has available now) and free disk under `dir`. */
export function buildRoom(dir: string, memoryMb: number): BuildRoom {
  const fs = statfsSync(dir);
  return {
    memoryBytes: memoryMb > 0 ? memoryMb * 2 ** 20 : freemem(),
    memorySource: memoryMb > 0 ? 'allowed by --build-memory-mb' : 'available now',
    diskBytes: fs.bavail * fs.bsize,
  };
}

const mb = (bytes: number) => `${Math.ceil(bytes / 2 ** 20).toLocaleString('en-US')} MB`;

/**
 * Why `shape`'s build may not start now, or undefined when it fits: its need plus what the builds
 * already under way will still take, against the room.
 */
export function budgetRefusal(shape: Shape, pending: BuildNeed, room: BuildRoom, dir: string): string | undefined {
  const need = estimateBuild(shape);
  const memory = need.memoryBytes + pending.memoryBytes;
  const disk = need.diskBytes + pending.diskBytes;
  const short: string[] = [];
  if (memory > room.memoryBytes) short.push(`${mb(memory)} of memory, ${mb(room.memoryBytes)} ${room.memorySource}`);
  if (disk > room.diskBytes) short.push(`${mb(disk)} of disk, ${mb(room.diskBytes)} free under ${dir}`);
  if (short.length === 0) return undefined;
  const under = pending.vars > 0 ? ' (with the builds already under way)' : '';
  return `building the proving key for ${shape.name} needs about ${short.join(' and ')}${under}: build it where there is room (zkgate keys build ${shape.name}) and import its .zkey here (zkgate keys import), or make room`;
}
