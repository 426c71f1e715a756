/**
 * Bounds how many scans (YARA, UPX, string extraction) run at once: the rest wait in order, so a
 * burst of uploads cannot start more engine work than the machine has cores.
 */
export class ScanSlots {
  private running = 0;
  private readonly waiting: { grant: () => void; signal?: AbortSignal; onAbort: () => void }[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`scan slots must be a positive integer, got ${limit}`);
  }

  /** Scans running now. */
  get active(): number {
    return this.running;
  }

  /** Runs `fn` in a slot; rejects with the abort reason when `signal` fires while waiting. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        signal,
        grant: () => {
          signal?.removeEventListener("abort", entry.onAbort);
          this.running++;
          resolve();
        },
        onAbort: () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener("abort", entry.onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.grant();
  }
}
