// Which shapes are structured circuits (built in TypeScript, cs.ts) rather than compiled by circom:
// the production-size batch circuits, whose 8–10 M constraints circom in WebAssembly cannot compile,
// and the address append at every size: × 10's key builds in a quarter of the time circom took
// (no compile: 31 s against about 115 s for the dev chain’s forester), its proofs about 1.15× slower.
import type { CircuitInputs } from '../inputs.js';
import type { Shape } from '../shapes.js';
import { batchAddressAppendCircuit, batchUpdateCircuit } from './batch-circuits.js';
import type { StructuredCircuit } from './cs.js';

/**
 * Changes whenever a structured circuit's constraints change (it keys the built proving keys, as
 * the sources hash does for circom shapes).
 */
export const STRUCTURED_CIRCUITS_VERSION = 1;

const BUILDERS: Record<string, () => StructuredCircuit<CircuitInputs>> = {
  batch_update_32_500: () => batchUpdateCircuit(500, 32),
  batch_address_append_40_10: () => batchAddressAppendCircuit(10, 40),
  batch_address_append_40_250: () => batchAddressAppendCircuit(250, 40),
};

export const isStructuredShape = (shape: Shape | string): boolean =>
  (typeof shape === 'string' ? shape : shape.name) in BUILDERS;

/** The structured circuit of a shape, or undefined for circom shapes. */
export function structuredCircuit(shape: Shape | string): StructuredCircuit<CircuitInputs> | undefined {
  return BUILDERS[typeof shape === 'string' ? shape : shape.name]?.();
}
