// Jito's per-transaction log cap (agave LogCollector with a 1,000-byte limit): a message is kept
// while the running total stays under the limit; the first one that does not fit adds a single
// "Log truncated"; later shorter messages that fit are still kept.
export const BUNDLE_LOG_LIMIT = 1000;

export function truncateLogs(logs: readonly string[], limit = BUNDLE_LOG_LIMIT): string[] {
  const out: string[] = [];
  let bytes = 0;
  let truncated = false;
  for (const m of logs) {
    const n = Buffer.byteLength(m);
    if (bytes + n < limit) {
      out.push(m);
      bytes += n;
    } else if (!truncated) {
      out.push('Log truncated');
      truncated = true;
    }
  }
  return out;
}
