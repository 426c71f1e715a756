/**
 * Bounds the engine work running at once (YARA, UPX, string extraction, reports): at most `limit`
 * scans, and at most `byteBudget` bytes of files being scanned (a scan holds its whole file in
 * memory: YARA-X reads or maps all of it). The rest wait in arrival order; a scan larger than the
 * budget runs alone. So a burst of uploads cannot start more work than the machine has cores, nor
 * hold more files in memory than the budget.
 */
export class ScanSlots {
  private running = 0;
  private bytes = 0;
  private readonly waiting: { weight: number; grant: () => void; onAbort: () => void }[] = [];

  constructor(
    readonly limit: number,
    readonly byteBudget = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`scan slots must be a positive integer, got ${limit}`);
    if (!(byteBudget > 0)) throw new RangeError(`the scan byte budget must be positive, got ${byteBudget}`);
  }

  /** Scans running now. */
  get active(): number {
    return this.running;
  }

  /** Bytes of the scans running now. */
  get activeBytes(): number {
    return this.bytes;
  }

  /** Runs `fn` in a slot, counting `bytes` against the budget; rejects with the abort reason when `signal` fires while waiting. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal, bytes = 0): Promise<T> {
    const weight = Math.min(Math.max(0, bytes), this.byteBudget);
    await this.acquire(weight, signal);
    try {
      return await fn();
    } finally {
      this.release(weight);
    }
  }

  private fits(weight: number): boolean {
    return this.running < this.limit && (this.running === 0 || this.bytes + weight <= this.byteBudget);
  }

  private acquire(weight: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.waiting.length === 0 && this.fits(weight)) {
      this.take(weight);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        weight,
        grant: () => {
          signal?.removeEventListener("abort", entry.onAbort);
          this.take(weight);
          resolve();
        },
        onAbort: () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal!.reason);
          this.admit();
        },
      };
      signal?.addEventListener("abort", entry.onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private take(weight: number): void {
    this.running++;
    this.bytes += weight;
  }

  private release(weight: number): void {
    this.running--;
    this.bytes -= weight;
    this.admit();
  }

  /** Starts waiting scans in order while the head of the queue fits. */
  private admit(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0].weight)) this.waiting.shift()!.grant();
  }
}
