// Standard Solana node methods the gateway answers itself.
import { defineMethod, noParams, type MethodDef } from './types.js';

export function nodeInfoMethods(version: string): MethodDef[] {
  // `solana-core` carries zkgate's own version: clients read it as "what serves this endpoint";
  // `feature-set` is 0 because zkgate does not run a validator's feature set.
  const versionResult = { 'solana-core': version, 'feature-set': 0 };
  return [
    defineMethod({ name: 'getHealth', params: noParams, call: () => 'ok' }),
    defineMethod({ name: 'getVersion', params: noParams, call: () => versionResult }),
  ];
}
