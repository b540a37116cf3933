// Shared proving fixtures: one key cache for the whole suite (node_modules/.cache, kept between
// runs so only the first run compiles and sets up), and witnesses straight from real trees.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LeafProof, NonInclusionProof } from '../../src/state/index.js';
import type { InclusionWitness, NonInclusionWitness } from '../../src/zk/index.js';

export const KEY_CACHE = fileURLToPath(new URL('../../node_modules/.cache/zkgate-test/', import.meta.url));
mkdirSync(KEY_CACHE, { recursive: true });

export const inclusionWitness = (p: LeafProof): InclusionWitness => ({
  root: p.root,
  leaf: p.leaf,
  pathIndex: p.leafIndex,
  pathElements: p.pathElements,
});

export const nonInclusionWitness = (p: NonInclusionProof): NonInclusionWitness => ({
  root: p.root,
  value: p.address,
  lowValue: p.lowElement.value,
  nextValue: p.lowElement.nextValue,
  nextIndex: p.lowElement.nextIndex,
  pathIndex: p.lowElement.index,
  pathElements: p.pathElements,
});
