// Config-program accounts: a short_vec of (pubkey, signer) keys, then the config value. Agave shows
// two kinds: the stake config (by its address) and validator info (by its first key).
import { parseJsonExact } from '../../../wire/index.js';
import { STAKE_CONFIG, VALIDATOR_INFO } from './ids.js';
import { Reader } from './reader.js';

function configKeys(r: Reader): { pubkey: string; signer: boolean }[] {
  const n = r.shortVecLen();
  return Array.from({ length: n }, () => ({ pubkey: r.pubkey(), signer: r.bool() }));
}

/** Compare by Unicode code point, i.e. by UTF-8 bytes as Rust's String ordering does. */
function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done === y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/**
 * serde_json::Value keeps objects in a BTreeMap (Agave does not enable preserve_order), so the
 * validator's JSON comes back with its keys sorted at every level.
 */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort(compareCodePoints)) {
    // defineProperty: a "__proto__" key must stay an ordinary key.
    Object.defineProperty(out, k, {
      value: sortKeys((v as Record<string, unknown>)[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

export function parseConfig(pubkey: string, data: Uint8Array): unknown {
  const r = new Reader(data);
  const keys = configKeys(r);
  if (pubkey === STAKE_CONFIG) {
    return { type: 'stakeConfig', info: { warmupCooldownRate: r.f64(), slashPenalty: r.u8() } };
  }
  if (keys[0]?.pubkey !== VALIDATOR_INFO) return undefined;
  const text = r.bincodeString();
  let configData: unknown;
  try {
    // Exact parse: integers past 2^53 stay exact, as serde_json keeps u64/i64.
    configData = parseJsonExact(text);
  } catch {
    return undefined;
  }
  return { type: 'validatorInfo', info: { keys, configData: sortKeys(configData) } };
}
