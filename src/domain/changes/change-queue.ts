import { laterAttribution, type ChangeAttribution, type ChangeRecord } from "./change-record";

/** What a watcher takes from its queue at once: the changed resources, or a full sweep when the queue overflowed. */
export interface ChangeBatch {
  /** Each changed resource once (lower-cased ARM id), with its latest attribution. */
  changes: Map<string, ChangeAttribution>;
  /** More distinct resources changed than the queue holds: sweep the whole stack instead. */
  overflowed: boolean;
}

/**
 * The changes waiting for a watcher's next targeted re-read, coalesced per resource: a storm of
 * writes to one resource is one re-read, and a storm over many is bounded by `capacity` distinct
 * resources; past it the queue keeps nothing more and asks for a full sweep of the stack (which
 * reads everything once, within the read budget) instead of queueing reads without end.
 */
export class ChangeQueue {
  private pending = new Map<string, ChangeAttribution>();
  private overflowed = false;

  constructor(private readonly capacity = 1_000) {
    if (!(capacity >= 1)) throw new Error(`ChangeQueue needs a capacity of at least 1, got ${capacity}`);
  }

  push(record: ChangeRecord): void {
    if (this.overflowed) return;
    const key = record.resourceId.toLowerCase();
    const kept = this.pending.get(key);
    if (kept) {
      this.pending.set(key, laterAttribution(kept, record.attribution));
      return;
    }
    if (this.pending.size >= this.capacity) {
      this.overflowed = true;
      this.pending.clear();
      return;
    }
    this.pending.set(key, record.attribution);
  }

  /** Whether anything waits. */
  get waiting(): boolean {
    return this.overflowed || this.pending.size > 0;
  }

  /** Takes everything waiting, leaving the queue empty. */
  take(): ChangeBatch {
    const batch = { changes: this.pending, overflowed: this.overflowed };
    this.pending = new Map();
    this.overflowed = false;
    return batch;
  }
}
