// getAsset (Metaplex DAS): named `{id, options?}` (`displayOptions` is an alias) or positional
// `[id, options?]`. Unknown top-level keys are rejected; unknown option keys are accepted and
// ignored (get-asset.md §8 decision 2). Spec: get-asset.md §1.
import { BackendNotConfiguredError, InvalidParamsError } from '../errors.js';
import { boolean, fail, object, optional, required, string, type Check, type Infer } from '../validate.js';
import type { Backends } from './backends.js';
import { defineMethod, type MethodDef } from './types.js';

/** The DAS reference's display options (the query methods add Helius' to them). */
export const DISPLAY_OPTIONS = {
  showFungible: optional(boolean),
  showUnverifiedCollections: optional(boolean),
  showCollectionMetadata: optional(boolean),
  showInscription: optional(boolean),
  showZeroBalance: optional(boolean),
};
const displayOptions = object(DISPLAY_OPTIONS, 'ignore');
export type DisplayOptions = Infer<typeof displayOptions>;

export interface GetAssetParams {
  id: string;
  options: DisplayOptions;
}

const named = object(
  { id: required(string), options: optional(displayOptions), displayOptions: optional(displayOptions) },
  'deny',
);

export const getAssetParams: Check<GetAssetParams> = (v, path) => {
  if (Array.isArray(v)) {
    if (v.length < 1 || v.length > 2) {
      throw new InvalidParamsError(`Invalid params: \`${path}\`: expected [id, options?], got ${v.length} elements`);
    }
    const id = string(v[0], `${path}[0]`);
    const options = v[1] === undefined || v[1] === null ? {} : displayOptions(v[1], `${path}[1]`);
    return { id, options };
  }
  if (v === null || typeof v !== 'object') return fail(path, 'an object {id, options?}', v);
  const p = named(v, path);
  if (p.options && p.displayOptions) {
    throw new InvalidParamsError(
      `Invalid params: duplicate field \`${path}.options\` (\`displayOptions\` is its alias)`,
    );
  }
  return { id: p.id, options: p.options ?? p.displayOptions ?? {} };
};

export function assetMethods(backends: Backends): MethodDef[] {
  return [
    defineMethod({
      name: 'getAsset',
      params: (v, path) => (backends.assets?.forwardsRaw ? v : getAssetParams(v, path)),
      call: (p) => {
        const b = backends.assets;
        if (!b) throw new BackendNotConfiguredError('getAsset', 'asset index (DAS)');
        return b.forwardsRaw ? b.getAsset(p) : b.getAsset(p as GetAssetParams);
      },
    }),
  ];
}
