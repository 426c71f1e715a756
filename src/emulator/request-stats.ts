/** What the emulator has served since it started (or since the stats were reset through the admin API). */
export interface RequestStats {
  total: number;
  /** Requests by `METHOD /route/pattern`. */
  byRoute: Record<string, number>;
}

/** Counts one request under its route's pattern (`(unrouted)` when no route serves it). */
export function countRequest(stats: RequestStats, method: string, pattern: string | undefined): void {
  stats.total += 1;
  const routeKey = `${method} ${pattern ?? "(unrouted)"}`;
  stats.byRoute[routeKey] = (stats.byRoute[routeKey] ?? 0) + 1;
}
