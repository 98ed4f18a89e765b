/**
 * Requests counted per key (an address, a number's public key) in fixed windows, in this process.
 * Several instances each count their own share: behind a balancer spreading one client over N
 * instances the limit is up to N times higher, which is acceptable for abuse control (the limit
 * keeps one noisy page from taking the server; it is no quota).
 */
export class WindowCounter {
  private counts = new Map<string, number>();
  private windowStart: number;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.windowStart = now();
  }

  /** Counts one request for `key`; answers the seconds until it may come again when over the limit, else 0. */
  hit(key: string): number {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      // A new window forgets every key at once: the map never holds more than one window's clients.
      this.counts = new Map();
      this.windowStart = now;
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count > this.limit ? Math.max(1, Math.ceil((this.windowStart + this.windowMs - now) / 1000)) : 0;
  }
}
