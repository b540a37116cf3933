// What a V8 heap holds, by kind and constructor: read from a .heapsnapshot (Node's
// --heapsnapshot-signal), so that two snapshots of a long run say which objects grew.
import { readFileSync } from 'node:fs';

export interface HeapGroup {
  count: number;
  bytes: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Self sizes and counts per `type:name` (strings and code pooled under their type). */
export function summarizeHeap(file: string): Map<string, HeapGroup> {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const groups = new Map<string, HeapGroup>();
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt]!]!;
    const pooled = type === 'string' || type === 'concatenated string' || type === 'sliced string' || type === 'code';
    const key = pooled ? type : `${type}:${s.strings[s.nodes[i + nameAt]!]!.slice(0, 60)}`;
    const g = groups.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += s.nodes[i + sizeAt]!;
    groups.set(key, g);
  }
  return groups;
}

/** The groups that grew most in bytes from `before` to `after`. */
export function heapGrowth(
  before: Map<string, HeapGroup>,
  after: Map<string, HeapGroup>,
  top = 15,
): { key: string; count: number; bytes: number; countBefore: number; bytesBefore: number }[] {
  return [...after]
    .map(([key, g]) => {
      const b = before.get(key) ?? { count: 0, bytes: 0 };
      return { key, count: g.count, bytes: g.bytes, countBefore: b.count, bytesBefore: b.bytes };
    })
    .sort((x, y) => y.bytes - y.bytesBefore - (x.bytes - x.bytesBefore))
    .slice(0, top);
}
