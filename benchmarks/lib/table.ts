// Small helpers the scenarios share: comma-separated selections from the environment, and a plain
// text table (first column left-aligned, the rest right-aligned).
export const envList = (env: string | undefined, dflt: string[]): string[] =>
  env ? env.split(',').map((s) => s.trim()) : dflt;

export function table(head: string[], rows: string[][]): void {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((x, i) => (i === 0 ? x.padEnd(w[i]!) : x.padStart(w[i]!))).join('  ');
  console.log(fmt(head));
  for (const r of rows) console.log(fmt(r));
}
