// Agave builds its parsed forms (accounts' `parsed`, instructions' `parsed`) as serde_json Values,
// whose objects are BTreeMaps: on the wire their keys come out sorted at every depth, whatever
// order the Rust structs declare. zkgate's JSON writer keeps insertion order, so a parsed value is
// re-keyed once here.
export function sortedJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedJson);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) if (o[k] !== undefined) out[k] = sortedJson(o[k]);
  return out;
}
