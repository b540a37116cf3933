// The per-worker cache of loaded proving keys (and their witness calculators): least recently
// used entries go first when a new one would exceed the byte budget, and one entry always stays.
export class KeyCache<T> {
  /** Map order is recency: the first entry is the least recently used. */
  private readonly entries = new Map<string, Promise<T>>();
  private readonly sizes = new Map<string, number>();

  constructor(private readonly budgetBytes: number) {}

  residentBytes(): number {
    let n = 0;
    for (const b of this.sizes.values()) n += b;
    return n;
  }

  /**
   * The entry for `key`, loading it when absent. `expectedBytes` makes room before the load;
   * the load reports the bytes it really holds.
   */
  get(
    key: string,
    expectedBytes: number,
    load: () => Promise<{ value: T; bytes: number }>,
  ): { value: Promise<T>; warm: boolean } {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return { value: hit, warm: true };
    }
    this.makeRoom(expectedBytes, key);
    const value: Promise<T> = load().then((loaded) => {
      if (this.entries.get(key) === value) this.sizes.set(key, loaded.bytes);
      return loaded.value;
    });
    value.catch(() => {
      if (this.entries.get(key) === value) {
        this.entries.delete(key);
        this.sizes.delete(key);
      }
    });
    this.entries.set(key, value);
    return { value, warm: false };
  }

  /** Forgets an entry (its value is stale: the native key behind it was evicted). */
  delete(key: string): void {
    this.entries.delete(key);
    this.sizes.delete(key);
  }

  private makeRoom(incoming: number, keep: string): void {
    for (const key of this.entries.keys()) {
      if (this.residentBytes() + incoming <= this.budgetBytes) return;
      if (key === keep) continue;
      this.entries.delete(key);
      this.sizes.delete(key);
    }
  }
}
