// simulateBundle (Jito): params `[ {encodedTransactions}, config? ]`; the config's unknown fields are
// ignored as Jito's serde types do. Request-level rules beyond shape (§2 of simulate-bundle.md)
// belong to the simulator. Spec: simulate-bundle.md §1.
import { BackendNotConfiguredError, InvalidParamsError } from '../errors.js';
import { array, boolean, fail, nullable, object, oneOf, optional, required, string, type Check } from '../validate.js';
import type { SimulateBundleParams, SimulationBank } from '../../sim/index.js';
import type { Backends } from './backends.js';
import { defineMethod, type MethodDef } from './types.js';

const bundleRequest = object(
  { encodedTransactions: required(array(string, 'an array of base64 transactions')) },
  'ignore',
);

const accountsConfig = nullable(
  object({ encoding: optional(string), addresses: required(array(string, 'an array of base58 addresses')) }, 'ignore'),
);

const commitmentObject = object(
  { commitment: required(oneOf(['processed', 'confirmed', 'finalized'] as const)) },
  'ignore',
);

const COMMITMENT_NAMES: readonly string[] = ['processed', 'confirmed', 'finalized'];

/**
 * The seed's object forms, and what jito-ts's types let a caller send besides: `"tip"`, a bare
 * commitment (`"confirmed"`) and a bare slot number.
 */
const simulationBank: Check<SimulationBank> = (v, path) => {
  if (v === 'tip') return 'tip';
  if (typeof v === 'string' && COMMITMENT_NAMES.includes(v))
    return { commitment: { commitment: v as 'processed' | 'confirmed' | 'finalized' } };
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return { slot: v };
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === 'commitment') {
      return { commitment: commitmentObject((v as { commitment: unknown }).commitment, `${path}.commitment`) };
    }
    if (keys.length === 1 && keys[0] === 'slot') {
      const slot = (v as { slot: unknown }).slot;
      if (typeof slot === 'number' && Number.isSafeInteger(slot) && slot >= 0) return { slot };
      return fail(`${path}.slot`, 'a slot number (u64)', slot);
    }
  }
  return fail(
    path,
    '"tip", a commitment ("processed"|"confirmed"|"finalized"), a slot number, {"commitment": {"commitment": …}} or {"slot": <u64>}',
    v,
  );
};

const simulateConfig = object(
  {
    // jito-ts sends neither by default: absent means null for every transaction.
    preExecutionAccountsConfigs: optional(array(accountsConfig, 'an array of null or {addresses, encoding?} entries')),
    postExecutionAccountsConfigs: optional(array(accountsConfig, 'an array of null or {addresses, encoding?} entries')),
    transactionEncoding: optional(string),
    simulationBank: optional(simulationBank),
    skipSigVerify: optional(boolean),
    replaceRecentBlockhash: optional(boolean),
  },
  'ignore',
);

export const simulateBundleParams: Check<SimulateBundleParams> = (v, path) => {
  if (!Array.isArray(v)) return fail(path, 'an array [ {encodedTransactions}, config? ]', v);
  if (v.length < 1 || v.length > 2) {
    throw new InvalidParamsError(
      `Invalid params: \`${path}\`: expected 1 or 2 elements ([ {encodedTransactions}, config? ]), got ${v.length}`,
    );
  }
  const request = bundleRequest(v[0], `${path}[0]`);
  const config = v[1] === undefined || v[1] === null ? null : simulateConfig(v[1], `${path}[1]`);
  return { request, config };
};

export function simulateBundleMethods(backends: Backends): MethodDef[] {
  return [
    defineMethod({
      name: 'simulateBundle',
      params: (v, path) => (backends.bundleSimulator?.forwardsRaw ? v : simulateBundleParams(v, path)),
      call: (p) => {
        const b = backends.bundleSimulator;
        if (!b) throw new BackendNotConfiguredError('simulateBundle', 'bundle simulator');
        return b.forwardsRaw ? b.simulateBundle(p) : b.simulateBundle(p as SimulateBundleParams);
      },
    }),
  ];
}
