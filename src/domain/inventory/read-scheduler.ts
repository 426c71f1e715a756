import { setMaxListeners } from "node:events";
import { inventoryError, type InventoryError } from "./read-problems";

/**
 * Scheduling priorities: reads that unlock more reads go first; among leaves, the longer lists
 * (jobs) first. Within a priority, pages take turns: a list's next page queues behind the pages
 * already waiting, so all lists advance together and no slot idles while a few long lists finish.
 */
export const Priority = { Discovery: 0, Experiments: 1, Jobs: 2, Leaf: 3 } as const;
export type Priority = (typeof Priority)[keyof typeof Priority];

/** One step of a paged list: fetching its next page. */
interface PageStep {
  what: string;
  /** The ARM id of the collection the list reads, for its error. */
  id: string;
  page: number;
  pages: AsyncIterator<unknown[], void>;
  onPage: (items: unknown[]) => void;
}

/**
 * Reads paged lists with at most `limit` page requests in flight, highest priority first; a page
 * may add lists. A list whose page fails ends there and its failure joins `errors`; the others go
 * on. Only the caller's signal (or a bug in a page's handler) aborts the reads in flight (through
 * `signal`) and makes `finished()` reject.
 */
export class ReadScheduler {
  private readonly queues: { step: PageStep; priority: Priority }[][] = [[], [], [], []];
  private readonly controller = new AbortController();
  private running = 0;
  private done = 0;
  /** Pages known to exist: each list's first page at once, a further page once its request answered. */
  private total = 0;
  private failure: { error: unknown } | undefined;
  /** Lists that failed, one entry each. */
  readonly errors: InventoryError[] = [];
  private settle?: { resolve: () => void; reject: (e: unknown) => void };

  constructor(
    private readonly limit: number,
    outer: AbortSignal | undefined,
    private readonly onProgress?: (done: number, total: number, what: string) => void,
  ) {
    // Every read in flight listens on this signal (the request, and a retry's wait): that is expected, not a leak.
    setMaxListeners(Math.max(10, limit * 4), this.controller.signal);
    if (outer?.aborted) this.fail(outer.reason ?? new Error("the inventory was cancelled"));
    else outer?.addEventListener("abort", () => this.fail(outer.reason ?? new Error("the inventory was cancelled")), { once: true });
  }

  /** Cancelled when the caller's signal is. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Reads a paged list, one page per step. The next step is queued (behind the steps already
   * waiting at this priority) only when a page has arrived, as `nextLink` demands.
   */
  addList<T>(priority: Priority, what: string, id: string, pages: AsyncIterator<T[], void>, onPage: (items: T[]) => void): void {
    this.total += 1;
    this.enqueue(priority, { what, id, page: 1, pages, onPage: onPage as (items: unknown[]) => void });
  }

  private enqueue(priority: Priority, step: PageStep): void {
    if (this.failure) return;
    this.queues[priority].push({ step, priority });
    this.pump();
  }

  /** Settles when every list has been read to its end (or rejects when the whole inventory was stopped). */
  finished(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
      this.check();
    });
  }

  private pump(): void {
    while (!this.failure && this.running < this.limit) {
      const queued = this.next();
      if (!queued) break;
      const { step, priority } = queued;
      this.running += 1;
      const label = step.page === 1 ? step.what : `${step.what} (page ${step.page})`;
      step.pages
        .next()
        .then(
          (result) => {
            // The step after a list's last page makes no request; it only ends the list.
            if (this.failure || result.done) return;
            if (step.page > 1) this.total += 1;
            step.onPage(result.value);
            this.done += 1;
            this.onProgress?.(this.done, this.total, label);
            this.enqueue(priority, { ...step, page: step.page + 1 });
          },
          (e: unknown) => {
            if (this.failure) return;
            // The list ends here; what its earlier pages gave is kept. inventoryError rethrows what is not an API failure.
            this.errors.push(inventoryError(step.what, step.id, e));
            if (step.page > 1) this.total += 1;
            this.done += 1;
            this.onProgress?.(this.done, this.total, `${label}: failed`);
          },
        )
        .catch((e: unknown) => this.fail(e))
        .finally(() => {
          this.running -= 1;
          this.pump();
          this.check();
        });
    }
  }

  private next(): { step: PageStep; priority: Priority } | undefined {
    for (const q of this.queues) if (q.length) return q.shift();
    return undefined;
  }

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = { error };
    for (const q of this.queues) q.length = 0;
    this.controller.abort(error);
    this.check();
  }

  private check(): void {
    if (!this.settle || this.running > 0) return;
    if (this.failure) this.settle.reject(this.failure.error);
    else if (this.queues.every((q) => q.length === 0)) this.settle.resolve();
  }
}
