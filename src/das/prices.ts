// Token prices for token_info.price_info from a configured source (--price-source: a JSON file or
// an http(s) URL of {"<mint>": {"price": <USDC per token>, "volume24h": <number>}}), cached for
// 600 seconds and limited to the 10,000 mints with the highest 24-hour volume, as DAS providers do.
import { readFile } from 'node:fs/promises';

export interface PriceOptions {
  ttlMs?: number;
  top?: number;
  timeoutMs?: number;
  /** The clock (injectable for tests). */
  now?: () => number;
}

export class PriceSource {
  private prices = new Map<string, number>();
  private loadedAt = -Infinity;
  private loading?: Promise<void>;
  lastError?: string;

  constructor(
    private readonly source: string,
    private readonly o: PriceOptions = {},
  ) {}

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  private async load(): Promise<void> {
    let text: string;
    if (/^https?:\/\//.test(this.source)) {
      const res = await fetch(this.source, { signal: AbortSignal.timeout(this.o.timeoutMs ?? 10_000) });
      if (res.status !== 200) throw new Error(`price source answered HTTP ${res.status}`);
      text = await res.text();
    } else text = await readFile(this.source, 'utf8');
    const doc = JSON.parse(text) as Record<string, { price?: unknown; volume24h?: unknown }>;
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
      throw new Error('price source is not a JSON object');
    const entries = Object.entries(doc).filter(
      ([, v]) => typeof v?.price === 'number' && Number.isFinite(v.price) && typeof v.volume24h === 'number',
    ) as [string, { price: number; volume24h: number }][];
    entries.sort((a, b) => b[1].volume24h - a[1].volume24h);
    this.prices = new Map(entries.slice(0, this.o.top ?? 10_000).map(([mint, v]) => [mint, v.price]));
  }

  /** The mint's price in USDC, or undefined when the source has none (or the mint is not in its top). */
  async priceOf(mint: string): Promise<number | undefined> {
    if (this.now() - this.loadedAt >= (this.o.ttlMs ?? 600_000)) {
      this.loading ??= this.load()
        .then(
          () => {
            this.lastError = undefined;
          },
          (e: unknown) => {
            // Keep serving the last good prices; try again at the next expiry.
            this.lastError = String((e as Error)?.message ?? e);
          },
        )
        .finally(() => {
          this.loadedAt = this.now();
          this.loading = undefined;
        });
      await this.loading;
    }
    return this.prices.get(mint);
  }
}
