// One Photon method: its params checked as Photon's serde types are (params.ts), answered from
// the embedded compression index, or relayed verbatim when a Photon/Helius upstream is configured.
import { BackendNotConfiguredError } from '../../errors.js';
import { u64 } from '../../../wire/index.js';
import type { Backends, CompressionIndex } from '../backends.js';
import { defineMethod, type MethodDef } from '../types.js';
import type { Parse } from './params.js';

export function photonMethod<P>(
  backends: Backends,
  name: string,
  parse: Parse<P>,
  call: (index: CompressionIndex, params: P) => unknown,
): MethodDef {
  return defineMethod<unknown, unknown>({
    name,
    params: (v, path) => (backends.photon?.forwardsRaw ? v : parse(v, path)),
    call: (p) => {
      const b = backends.photon;
      if (!b) throw new BackendNotConfiguredError(name, 'compression indexer (Photon)');
      return b.forwardsRaw ? b.call(name, p) : call(b.index, p as P);
    },
  });
}

/** Photon's `{context: {slot}, value}` wrapper; the slot a plain number (the fast JSON path). */
export const withContext = (index: CompressionIndex, value: unknown) => ({
  context: { slot: u64(index.slot()) },
  value,
});
