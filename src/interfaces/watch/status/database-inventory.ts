import type { WatchedDatabase } from "../../../usecases/watch-inventory";

export type { WatchedDatabase } from "../../../usecases/watch-inventory";

/**
 * Every database of one stack the watcher knows of, as its last tick (or re-read) left them, with
 * what filtering needs worked out once: a stack of 10,000 databases is indexed when a tick ends,
 * not on every request of its page. Frozen; replaced whole by the next tick.
 */
export interface DatabaseInventory {
  /** In the stack's order (listed, then discovered). */
  rows: readonly WatchedDatabase[];
  /** Each row's label, lower-cased, for the text filter (same index as `rows`). */
  search: readonly string[];
  /** The servers, sorted (for the page's server choice). */
  servers: readonly string[];
  /** When the tick that read them ended. */
  checkedAt: string;
}

/** The inventory of `rows`, read at `checkedAt`. */
export function inventoryOf(rows: readonly WatchedDatabase[], checkedAt: string): DatabaseInventory {
  const kept = Object.freeze(rows.map((r) => Object.freeze({ ...r })));
  return Object.freeze({
    rows: kept,
    search: Object.freeze(kept.map((r) => r.label.toLowerCase())),
    servers: Object.freeze([...new Set(kept.map((r) => r.server))].sort()),
    checkedAt,
  });
}
