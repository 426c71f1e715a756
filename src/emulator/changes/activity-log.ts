import type { ActivityLogEventData } from "./activity-log-entry";
import { matchesFilter, type ActivityLogFilter } from "./activity-log-filter";

/** An entry as the log keeps it: with its ingestion order and when it becomes listable. */
export interface StoredEntry {
  /** Ingestion order, increasing; the list's paging token. */
  seq: number;
  /** Event time (ms), for the filter's window. */
  at: number;
  /** Emulator time (ms) from which it is listed: later than `at` under a delay fault (Azure's ingestion delay). */
  visibleAt: number;
  entry: ActivityLogEventData;
}

/** Default number of entries the log keeps (the newest). */
export const DEFAULT_ACTIVITY_LOG_CAPACITY = 10_000;

/**
 * The emulator's Activity Log: a ring of the newest `capacity` entries, in memory only (it is not
 * persisted with `--state`; a restart begins an empty log, as a fresh subscription has). Listing
 * is newest ingested first, as Azure answers.
 */
export class ActivityLog {
  private ring: (StoredEntry | undefined)[] = [];
  /** Index of the oldest entry in `ring`. */
  private head = 0;
  private size = 0;
  private nextSeq = 1;

  constructor(private capacityOf: () => number = () => DEFAULT_ACTIVITY_LOG_CAPACITY) {}

  get count(): number {
    return this.size;
  }

  append(entry: ActivityLogEventData, at: number, visibleAt: number): void {
    const capacity = Math.max(1, this.capacityOf());
    if (this.ring.length !== capacity) this.resize(capacity);
    const stored: StoredEntry = { seq: this.nextSeq++, at, visibleAt, entry };
    if (this.size < capacity) {
      this.ring[(this.head + this.size) % capacity] = stored;
      this.size += 1;
    } else {
      this.ring[this.head] = stored;
      this.head = (this.head + 1) % capacity;
    }
  }

  /**
   * Entries of a subscription passing the filter and listable at `now`, newest first, starting
   * below the sequence number `before` (a page's continuation), at most `limit`; `more` says
   * whether further entries remain.
   */
  list(q: { subscriptionId: string; filter: ActivityLogFilter; now: number; before?: number; limit: number }): {
    entries: StoredEntry[];
    more: boolean;
  } {
    const sub = q.subscriptionId.toLowerCase();
    const entries: StoredEntry[] = [];
    for (let k = this.size - 1; k >= 0; k--) {
      const s = this.ring[(this.head + k) % this.ring.length]!;
      if (q.before !== undefined && s.seq >= q.before) continue;
      if (s.visibleAt > q.now || s.entry.subscriptionId.toLowerCase() !== sub || !matchesFilter(s.entry, s.at, q.filter)) continue;
      if (entries.length === q.limit) return { entries, more: true };
      entries.push(s);
    }
    return { entries, more: false };
  }

  /** Every entry, newest first (the admin view). */
  all(): StoredEntry[] {
    const out: StoredEntry[] = [];
    for (let k = this.size - 1; k >= 0; k--) out.push(this.ring[(this.head + k) % this.ring.length]!);
    return out;
  }

  clear(): void {
    this.ring = [];
    this.head = 0;
    this.size = 0;
  }

  /** A new capacity keeps the newest entries that fit. */
  private resize(capacity: number): void {
    const kept = this.all().slice(0, capacity).reverse();
    this.ring = new Array<StoredEntry | undefined>(capacity);
    kept.forEach((s, k) => (this.ring[k] = s));
    this.head = 0;
    this.size = kept.length;
  }
}
