// The circuit shapes zkgate proves, named as Light names its keys (validity-proof.md §7).
import { AppError } from '../errors.js';

export type CircuitFamily = 'inclusion' | 'non-inclusion' | 'combined';
/** A forester's circuits, moving one zkp batch of a V2 queue into its tree (compression-e2e.md §2). */
export type BatchFamily = 'batch-append' | 'batch-update' | 'batch-address-append';

export interface Shape {
  name: string;
  version: 1 | 2;
  family: CircuitFamily | BatchFamily;
  stateHeight: number;
  addressHeight: number;
  /** Accounts proved included. */
  nInclusion: number;
  /** New addresses proved absent. */
  nNonInclusion: number;
  /** Batch circuits: the zkp batch size (leaves, nullifiers or addresses per proof); 0 otherwise. */
  batchSize: number;
}

export class UnknownShapeError extends AppError {
  readonly kind = 'unknown_shape';
}

const V1_STATE = 26;
const V1_ADDRESS = 26;
const V2_STATE = 32;
const V2_ADDRESS = 40;

function make(version: 1 | 2, nInclusion: number, nNonInclusion: number): Shape {
  const stateHeight = version === 1 ? V1_STATE : V2_STATE;
  const addressHeight = version === 1 ? V1_ADDRESS : V2_ADDRESS;
  const family: CircuitFamily = nNonInclusion === 0 ? 'inclusion' : nInclusion === 0 ? 'non-inclusion' : 'combined';
  const name =
    family === 'inclusion'
      ? `v${version}_inclusion_${stateHeight}_${nInclusion}`
      : family === 'non-inclusion'
        ? `v${version}_non-inclusion_${addressHeight}_${nNonInclusion}`
        : `v${version}_combined_${stateHeight}_${addressHeight}_${nInclusion}_${nNonInclusion}`;
  return { name, version, family, stateHeight, addressHeight, nInclusion, nNonInclusion, batchSize: 0 };
}

function makeBatch(family: BatchFamily, batchSize: number): Shape {
  const address = family === 'batch-address-append';
  const height = address ? V2_ADDRESS : V2_STATE;
  const name = `${family.replace(/-/g, '_')}_${height}_${batchSize}`;
  return {
    name,
    version: 2,
    family,
    stateHeight: V2_STATE,
    addressHeight: V2_ADDRESS,
    nInclusion: 0,
    nNonInclusion: 0,
    batchSize,
  };
}

/**
 * The batch circuits for the zkp batch sizes Light's program verifies: 10 (localnet trees) and the
 * production sizes, 500 for state queues and 250 for address queues.
 */
export const BATCH_SHAPES: readonly Shape[] = [
  ...[10, 500].map((n) => makeBatch('batch-append', n)),
  ...[10, 500].map((n) => makeBatch('batch-update', n)),
  ...[10, 250].map((n) => makeBatch('batch-address-append', n)),
];

export const isBatchShape = (s: Shape): boolean => s.batchSize > 0;

/** The batch circuit of a family for a zkp batch size, if Light's program has a key for it. */
export function batchShape(family: BatchFamily, batchSize: number): Shape | undefined {
  return BATCH_SHAPES.find((s) => s.family === family && s.batchSize === batchSize);
}

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

/** Every shape, V1 then V2, in Light's order. */
export const SHAPES: readonly Shape[] = [
  ...[1, 2, 3, 4, 8].map((n) => make(1, n, 0)),
  ...[1, 2].map((n) => make(1, 0, n)),
  ...range(1, 4).flatMap((i) => [1, 2].map((j) => make(1, i, j))),
  ...range(1, 20).map((n) => make(2, n, 0)),
  ...range(1, 32).map((n) => make(2, 0, n)),
  ...range(1, 4).flatMap((i) => range(1, 4).map((j) => make(2, i, j))),
];

/** Every shape zkgate has keys for: the validity shapes, then the batch shapes. */
export const ALL_SHAPES: readonly Shape[] = [...SHAPES, ...BATCH_SHAPES];

const BY_NAME = new Map(ALL_SHAPES.map((s) => [s.name, s]));

export function shapeByName(name: string): Shape {
  const s = BY_NAME.get(name);
  if (!s)
    throw new UnknownShapeError(
      `unknown circuit shape ${JSON.stringify(name)}; e.g. v1_inclusion_26_1, v2_non-inclusion_40_4, batch_append_32_10`,
    );
  return s;
}

/** The shape proving `nInclusion` accounts and `nNonInclusion` addresses, if Light has one. */
export function findShape(version: 1 | 2, nInclusion: number, nNonInclusion: number): Shape | undefined {
  const s = BY_NAME.get(make(version, nInclusion, nNonInclusion).name);
  return s && !isBatchShape(s) ? s : undefined;
}

/** Names of the public inputs, in order (circom orders them by declaration in the main template). */
export function publicInputNames(shape: Shape): string[] {
  if (shape.version === 2 || isBatchShape(shape)) return ['publicInputHash'];
  if (shape.family === 'inclusion') return ['roots', 'leaves'];
  if (shape.family === 'non-inclusion') return ['addressRoots', 'values'];
  return ['roots', 'leaves', 'addressRoots', 'values'];
}

/** The circom main component of a shape; the templates live in circuits/v1.circom and v2.circom. */
export function mainSource(shape: Shape): string {
  if (isBatchShape(shape)) {
    // Address appends are structured circuits (src/zk/structured/registry.ts), never compiled.
    if (shape.family === 'batch-address-append') throw new Error(`${shape.name} has no circom source`);
    const template = shape.family === 'batch-append' ? 'BatchAppend' : 'BatchUpdate';
    const height = shape.stateHeight;
    return [
      'pragma circom 2.1.0;',
      'include "batch.circom";',
      `component main {public [publicInputHash]} = ${template}(${shape.batchSize}, ${height});`,
      '',
    ].join('\n');
  }
  const template =
    (shape.version === 1 ? 'V1' : 'V2') +
    (shape.family === 'inclusion' ? 'Inclusion' : shape.family === 'non-inclusion' ? 'NonInclusion' : 'Combined');
  const args =
    shape.family === 'combined'
      ? `${shape.nInclusion}, ${shape.nNonInclusion}`
      : `${shape.nInclusion || shape.nNonInclusion}`;
  return [
    'pragma circom 2.1.0;',
    `include "v${shape.version}.circom";`,
    `component main {public [${publicInputNames(shape).join(', ')}]} = ${template}(${args});`,
    '',
  ].join('\n');
}
