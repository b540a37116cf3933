// Light's prover JSON (validity-proof.md §11): the /prove request body read into the service's
// explicit request (camelCase, and the older kebab-case keys without circuitType), and written
// back from one, compact and in Light's field order, for the job queue's entries.
import { AppError } from '../errors.js';
import { publicInputHash } from '../zk/hash-chain.js';
import type { InclusionWitness, NonInclusionWitness } from '../zk/inputs.js';
import type { CircuitFamily, Shape } from '../zk/shapes.js';
import type { ExplicitProveRequest } from './service.js';

/** A body that is not Light's request: HTTP 400 `malformed_body` on /prove, a failed job in the queue. */
export class MalformedBody extends AppError {
  readonly kind = 'malformed_body';
}

const malformed = (msg: string) => new MalformedBody(msg);

/** Reads `key` in camelCase or the older kebab-case spelling. */
function pick(o: Record<string, unknown>, camel: string): unknown {
  if (o[camel] !== undefined) return o[camel];
  return o[camel.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())];
}

function hexValue(v: unknown, field: string): bigint {
  if (typeof v !== 'string' || !/^(0x)?[0-9a-fA-F]{1,64}$/.test(v))
    throw malformed(`${field}: expected a hex string of at most 32 bytes, got ${JSON.stringify(v)}`);
  return BigInt(v.startsWith('0x') ? v : '0x' + v);
}

function index(v: unknown, field: string): number {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw malformed(`${field}: expected a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
}

function list(v: unknown, field: string): Record<string, unknown>[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => x === null || typeof x !== 'object'))
    throw malformed(`${field}: expected an array of objects`);
  return v as Record<string, unknown>[];
}

function path(v: unknown, field: string): bigint[] {
  if (!Array.isArray(v)) throw malformed(`${field}: expected an array of hex strings`);
  return v.map((x, i) => hexValue(x, `${field}[${i}]`));
}

/** Light's request body → the service's explicit request (heights inferred from paths when absent). */
export function parseProveBody(body: unknown): ExplicitProveRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw malformed('body must be a JSON object');
  const o = body as Record<string, unknown>;
  const accounts: InclusionWitness[] = list(pick(o, 'inputCompressedAccounts'), 'inputCompressedAccounts').map(
    (a, i) => ({
      root: hexValue(a.root, `inputCompressedAccounts[${i}].root`),
      leaf: hexValue(a.leaf, `inputCompressedAccounts[${i}].leaf`),
      pathIndex: index(pick(a, 'pathIndex'), `inputCompressedAccounts[${i}].pathIndex`),
      pathElements: path(pick(a, 'pathElements'), `inputCompressedAccounts[${i}].pathElements`),
    }),
  );
  const addresses: NonInclusionWitness[] = list(pick(o, 'newAddresses'), 'newAddresses').map((a, i) => ({
    root: hexValue(a.root, `newAddresses[${i}].root`),
    value: hexValue(a.value, `newAddresses[${i}].value`),
    pathIndex: index(pick(a, 'pathIndex'), `newAddresses[${i}].pathIndex`),
    pathElements: path(pick(a, 'pathElements'), `newAddresses[${i}].pathElements`),
    lowValue: hexValue(pick(a, 'leafLowerRangeValue'), `newAddresses[${i}].leafLowerRangeValue`),
    nextValue: hexValue(pick(a, 'leafHigherRangeValue'), `newAddresses[${i}].leafHigherRangeValue`),
    nextIndex: index(pick(a, 'nextIndex') ?? 0, `newAddresses[${i}].nextIndex`),
  }));
  let circuitType = pick(o, 'circuitType');
  if (circuitType === undefined) {
    // Older clients sent no circuitType: the arrays say which circuit they mean.
    circuitType = accounts.length && addresses.length ? 'combined' : addresses.length ? 'non-inclusion' : 'inclusion';
  }
  if (circuitType !== 'inclusion' && circuitType !== 'non-inclusion' && circuitType !== 'combined')
    throw malformed(
      `missing or invalid 'circuitType': expected "inclusion", "non-inclusion" or "combined", got ${JSON.stringify(circuitType)}`,
    );
  const height = (v: unknown, field: string) => (v === undefined || v === null ? 0 : index(v, field));
  const generic = height(pick(o, 'treeHeight') ?? o.height, 'treeHeight');
  const stateTreeHeight =
    height(pick(o, 'stateTreeHeight'), 'stateTreeHeight') || generic || (accounts[0]?.pathElements.length ?? 0);
  const addressTreeHeight =
    height(pick(o, 'addressTreeHeight'), 'addressTreeHeight') || generic || (addresses[0]?.pathElements.length ?? 0);
  const pih = pick(o, 'publicInputHash');
  return {
    circuitType: circuitType as CircuitFamily,
    stateTreeHeight,
    addressTreeHeight,
    ...(pih !== undefined && pih !== null && pih !== '' ? { publicInputHash: hexValue(pih, 'publicInputHash') } : {}),
    accounts,
    addresses,
  };
}

const hex = (v: bigint) => '0x' + v.toString(16);

/** The explicit request of a shape's witnesses (what Light's /prove takes). */
export function explicitRequest(
  shape: Shape,
  accounts: InclusionWitness[],
  addresses: NonInclusionWitness[],
): ExplicitProveRequest {
  return {
    circuitType: shape.family as CircuitFamily,
    stateTreeHeight: shape.nInclusion > 0 ? shape.stateHeight : 0,
    addressTreeHeight: shape.nNonInclusion > 0 ? shape.addressHeight : 0,
    // V2 bodies carry the hash of their public inputs, which Light's prover requires.
    ...(shape.version === 2
      ? {
          publicInputHash: publicInputHash({
            roots: accounts.map((a) => a.root),
            leaves: accounts.map((a) => a.leaf),
            addressRoots: addresses.map((a) => a.root),
            addresses: addresses.map((a) => a.value),
          }),
        }
      : {}),
    accounts,
    addresses,
  };
}

/** Light's /prove body of a request: compact JSON, hex values, the fields Light's client sends. */
export function lightProveBody(r: ExplicitProveRequest): string {
  const body: Record<string, unknown> = { circuitType: r.circuitType };
  if (r.accounts.length > 0) {
    body.stateTreeHeight = r.stateTreeHeight;
    body.inputCompressedAccounts = r.accounts.map((a) => ({
      root: hex(a.root),
      pathIndex: a.pathIndex,
      pathElements: a.pathElements.map(hex),
      leaf: hex(a.leaf),
    }));
  }
  if (r.addresses.length > 0) {
    body.addressTreeHeight = r.addressTreeHeight;
    body.newAddresses = r.addresses.map((a) => ({
      root: hex(a.root),
      value: hex(a.value),
      pathIndex: a.pathIndex,
      pathElements: a.pathElements.map(hex),
      leafLowerRangeValue: hex(a.lowValue),
      leafHigherRangeValue: hex(a.nextValue),
      nextIndex: a.nextIndex,
    }));
  }
  if (r.publicInputHash !== undefined) body.publicInputHash = hex(r.publicInputHash);
  return JSON.stringify(body);
}
