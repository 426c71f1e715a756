import type { ClientSet } from "../clients/client-set";
import { changeOfActivityLogEntry } from "../domain/changes/activity-log-changes";
import { attributionsDisagree, writeKeyOf, type ChangeAttribution, type ChangeRecord } from "../domain/changes/change-record";
import type { ChangeQueue } from "../domain/changes/change-queue";
import { SeenIds } from "../domain/changes/seen-ids";

/**
 * How far back each pull of the Activity Log reaches before the end of the last window it read.
 * Azure documents that an Activity Log entry can take minutes to become available for query
 * ("Activity log events typically take between 3 and 20 minutes" in the worst case; typically
 * under 5), and entries are listed by `eventTimestamp`, the time of the change, not of their
 * arrival: a window that began where the last one ended would miss an entry ingested late. Every
 * window overlaps the last by this much; the entries read twice are dropped by their id.
 */
export const ACTIVITY_LOG_OVERLAP_MS = 5 * 60_000;

/** The resource providers whose writes can change what the watcher judges: SQL (TDE, protectors) and Key Vault (vaults, keys). */
export const WATCHED_PROVIDERS = ["Microsoft.Sql", "Microsoft.KeyVault"] as const;

/**
 * What became of a record: `new` (handed to the queues), `duplicate` (dropped by its id, or as a
 * write seen before), `correction` (the Activity Log's record of a write whose pushed event named
 * another caller: handed on, so its attribution replaces the pushed one), `out-of-scope` (a
 * subscription or resource provider no watched stack depends on: dropped before any queue).
 */
export type ChangeRecordResult = "new" | "duplicate" | "correction" | "out-of-scope";

/** What one pull of the Activity Log did. */
export interface PullReport {
  /** Entries read (every page, every subscription). */
  read: number;
  /** New changes handed to the watchers (after filtering and deduplication). */
  accepted: number;
  /** Subscriptions whose list failed (the sweep covers them), with why. */
  failed: { subscriptionId: string; error: string }[];
}

/**
 * Where the watchers' change records come from: the Activity Log pulled (`pull`, one paged list per
 * subscription and watched provider, over a window from the last one's end less the overlap) and
 * Event Grid's deliveries pushed (`accept`). Every record goes through one filter: seen before (by
 * its id, in bounded memory) it is dropped, so an overlapping window, a retried delivery or both
 * sources reporting one write never acts twice. Records of subscriptions or providers no watched
 * stack depends on are dropped first (a delivery of a busy subscription's storage writes must not
 * fill the queues and buy a full sweep). New ones go to every subscribed queue, each of which
 * decides whether its stack depends on the resource.
 */
export class ChangeFeed {
  /** Record ids, and the write keys with the first attribution seen of each write. */
  private readonly seen: SeenIds<ChangeAttribution>;
  private readonly queues = new Set<{ queue: ChangeQueue; wake: () => void }>();
  /** The end of the last window read, per subscription (lower-cased id). */
  private readonly readTo = new Map<string, number>();

  constructor(
    private readonly o: {
      clients: Pick<ClientSet, "monitor">;
      /** The subscriptions the watched stacks use (asked at every pull: stack files change). */
      subscriptions: () => readonly string[];
      overlapMs?: number;
      /** Ids kept for deduplication. */
      remember?: number;
      now?: () => number;
      /** Each record and what became of it (metrics). */
      counted?: (record: ChangeRecord, result: ChangeRecordResult) => void;
    },
  ) {
    this.seen = new SeenIds<ChangeAttribution>(o.remember ?? 100_000);
  }

  /** Hands new changes to `queue`, and calls `wake` after each batch; returns what stops it. */
  subscribe(queue: ChangeQueue, wake: () => void): () => void {
    const entry = { queue, wake };
    this.queues.add(entry);
    return () => this.queues.delete(entry);
  }

  /** Takes change records from any source: the new ones go to every queue. Returns how many were new. */
  accept(records: readonly ChangeRecord[]): number {
    let accepted = 0;
    const inScope = scopeOf(this.o.subscriptions());
    for (const r of records) {
      const result = inScope(r.resourceId) ? this.resultOf(r) : "out-of-scope";
      this.o.counted?.(r, result);
      if (result !== "new" && result !== "correction") continue;
      accepted++;
      for (const q of this.queues) q.queue.push(r);
    }
    if (accepted) for (const q of this.queues) q.wake();
    return accepted;
  }

  private resultOf(r: ChangeRecord): ChangeRecordResult {
    const newRecord = this.seen.add(r.id);
    // A write seen through both sources (pulled and pushed) is one change: re-read once.
    const key = writeKeyOf(r);
    if (key === undefined) return newRecord ? "new" : "duplicate";
    if (this.seen.add(key, r.attribution)) return newRecord ? "new" : "duplicate";
    if (!newRecord) return "duplicate";
    // The same write again, from the other source. Azure writes the Activity Log itself; a pushed
    // event is whatever reached the webhook: when they disagree on who made it, the log is right.
    const first = this.seen.valueOf(key);
    if (r.attribution.source === "activity-log" && first?.source === "event-grid" && attributionsDisagree(first, r.attribution)) {
      this.seen.replace(key, r.attribution);
      return "correction";
    }
    return "duplicate";
  }

  /**
   * Reads each subscription's Activity Log since the last pull (less the overlap; on the first pull,
   * the overlap before now: what happened before the watcher started, its first sweep reads), for
   * the watched providers, and accepts the changes. A subscription whose list fails is reported and
   * read again from the same start next time: its window only grows.
   */
  async pull(signal?: AbortSignal): Promise<PullReport> {
    const now = (this.o.now ?? Date.now)();
    const overlap = this.o.overlapMs ?? ACTIVITY_LOG_OVERLAP_MS;
    const report: PullReport = { read: 0, accepted: 0, failed: [] };
    const subscriptions = [...new Set(this.o.subscriptions().map((s) => s.toLowerCase()))];
    for (const subscriptionId of subscriptions) {
      const from = new Date((this.readTo.get(subscriptionId) ?? now) - overlap);
      const records: ChangeRecord[] = [];
      try {
        for (const resourceProvider of WATCHED_PROVIDERS) {
          const q = { subscriptionId, from, to: new Date(now), resourceProvider };
          for await (const page of this.o.clients.monitor.activityLog(q, signal)) {
            report.read += page.length;
            for (const e of page) {
              const r = changeOfActivityLogEntry(e);
              if (r) records.push(r);
            }
          }
        }
      } catch (e) {
        if (signal?.aborted) throw e;
        report.failed.push({ subscriptionId, error: (e as Error).message });
        continue;
      }
      this.readTo.set(subscriptionId, now);
      // Oldest first: a queue keeps the latest attribution per resource.
      records.sort((a, b) => Date.parse(a.attribution.at) - Date.parse(b.attribution.at));
      report.accepted += this.accept(records);
    }
    return report;
  }
}

/**
 * Whether a resource is in a subscription the watched stacks use and of a provider they depend on
 * (what the Activity Log pull asks for): subscription and provider compared case-insensitively.
 */
function scopeOf(subscriptions: readonly string[]): (resourceId: string) => boolean {
  const subs = new Set(subscriptions.map((s) => s.toLowerCase()));
  const providers = new Set<string>(WATCHED_PROVIDERS.map((p) => p.toLowerCase()));
  return (resourceId) => {
    const m = /^\/subscriptions\/([^/]+)\/(?:resourcegroups\/[^/]+\/)?providers\/([^/]+)\//i.exec(resourceId);
    return !!m && subs.has(m[1].toLowerCase()) && providers.has(m[2].toLowerCase());
  };
}
