// Per-key token buckets: `rate` tokens per second refill a bucket of `burst` tokens; a request takes one.
import { RateLimitedError } from './errors.js';

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  /** rate 0 disables limiting. `now` is in milliseconds. */
  constructor(
    readonly rate: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes `n` tokens from the key's bucket or throws RateLimitedError with a retry delay in whole seconds. */
  take(key: string, n = 1): void {
    if (this.rate <= 0 || n <= 0) return;
    const t = this.now();
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: this.burst, at: t };
      this.buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.rate);
      b.at = t;
    }
    if (n > this.burst) {
      throw new RateLimitedError(
        `Rate limit exceeded for ${key}: ${n} requests at once exceed the burst of ${this.burst}; send smaller batches`,
        Math.max(1, Math.ceil(this.burst / this.rate)),
      );
    }
    if (b.tokens < n) {
      const retry = Math.max(1, Math.ceil((n - b.tokens) / this.rate));
      throw new RateLimitedError(
        `Rate limit exceeded for ${key}: ${this.rate} requests/s (burst ${this.burst}); retry after ${retry} s`,
        retry,
      );
    }
    b.tokens -= n;
  }
}
