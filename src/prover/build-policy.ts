// Which shapes a request may have a proving key built for (--build-on-demand). A build takes tens
// of seconds to minutes, gigabytes of disk and memory for the large shapes: on a gateway bound off
// loopback no request may start one, on a developer's loopback chain the V1 shapes and the V2 ones
// up to 8 accounts and 8 addresses may. The operator builds the rest ahead (`zkgate keys build`,
// --preload-circuits), which this never limits.
import { ALL_SHAPES, SHAPES, shapeByName, type Shape } from '../zk/shapes.js';

export const DEV_BUILD_LIMIT = 8;

/**
 * The shapes `--build-on-demand` names: `auto` (by where the gateway is reachable from: `loopback`
 * when every surface is bound to loopback), `none`, `all`, `v1`, `v2` or shape names.
 */
export function buildOnDemandShapes(list: readonly string[], loopback: boolean): Set<string> {
  const out = new Set<string>();
  for (const item of list.length > 0 ? list : ['auto']) {
    if (item === 'none') continue;
    if (item === 'all') for (const s of ALL_SHAPES) out.add(s.name);
    else if (item === 'auto') {
      if (loopback)
        for (const s of SHAPES)
          if (s.version === 1 || (s.nInclusion <= DEV_BUILD_LIMIT && s.nNonInclusion <= DEV_BUILD_LIMIT))
            out.add(s.name);
    } else if (item === 'v1' || item === 'v2') {
      for (const s of SHAPES) if (`v${s.version}` === item) out.add(s.name);
    } else out.add(shapeByName(item).name);
  }
  return out;
}

/**
 * The shapes a newcomer's first script proves with, in the order it meets them: stateless.js and
 * compressed-token's transfer, compress/decompress and token transfer of one account, creating an
 * account at a new address, transfers that merge two accounts, an address beside an account; V1
 * and V2 each.
 */
export const FIRST_SCRIPT_SHAPES = [
  'v1_inclusion_26_1',
  'v2_inclusion_32_1',
  'v2_non-inclusion_40_1',
  'v1_non-inclusion_26_1',
  'v1_inclusion_26_2',
  'v2_inclusion_32_2',
  'v1_combined_26_26_1_1',
  'v2_combined_32_40_1_1',
] as const;

/**
 * The shapes `--build-at-start` names, in order: `auto` = the first script's shapes that requests
 * may build (`buildable`; none where they may build none), `none`, `v1`, `v2` or shape names.
 */
export function buildAtStartShapes(list: readonly string[], buildable: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const item of list.length > 0 ? list : ['auto']) {
    if (item === 'none') continue;
    if (item === 'auto') {
      for (const s of FIRST_SCRIPT_SHAPES) if (buildable.has(s)) out.add(s);
    } else if (item === 'v1' || item === 'v2')
      for (const s of SHAPES)
        if (`v${s.version}` === item) out.add(s.name);
        else out.add(shapeByName(item).name);
  }
  return [...out];
}

/** Why a request may not build `shape`'s key: the one message every surface gives. */
export const buildRefusal = (shape: Shape): string =>
  `no proving key for ${shape.name} yet, and a request may not start its build (--build-on-demand): build it with \`zkgate keys build ${shape.name}\`, preload it (--preload-circuits), or allow it with --build-on-demand`;

/**
 * What a request may build, as it travels from where it came in to the prover (gRPC metadata, a
 * queued job's flag): the front's --build-on-demand list and whether the front is on loopback. A
 * prover behind a public front, or a queue host, so builds for a request no more than its front
 * would: it never decides from its own bind address alone.
 */
export const encodeBuildRight = (list: readonly string[], loopback: boolean): string =>
  `${loopback ? 'loopback' : 'exposed'};${list.join(',')}`;

/** The rights a front carries to its provers: its callers', and its admin keys' (as on loopback). */
export interface FrontBuildRights {
  anyone: string;
  admin: string;
}

/**
 * A front's rights: an admin key (--admin-keys, the operator's) may have built what a request on
 * a loopback front may (with `auto`: V1, V2 up to 8), so an operator can warm a public gateway's
 * keys through it; other callers get what the front's exposure allows.
 */
export const frontBuildRights = (list: readonly string[], loopback: boolean): FrontBuildRights => ({
  anyone: encodeBuildRight(list, loopback),
  admin: encodeBuildRight(list, true),
});

const decoded = new Map<string, ReadonlySet<string>>();

/** The shapes a carried build right names; none when no right was carried or it does not parse. */
export function decodeBuildRight(text: string | undefined): ReadonlySet<string> {
  if (!text) return new Set();
  let set = decoded.get(text);
  if (!set) {
    const [where, list = ''] = text.split(';');
    try {
      set = buildOnDemandShapes(
        list.split(',').filter((x) => x.length > 0),
        where === 'loopback',
      );
    } catch {
      set = new Set();
    }
    if (decoded.size < 64) decoded.set(text, set);
  }
  return set;
}
