/** What the emulator has served since it started (or since the stats were reset through the admin API). */
export interface RequestStats {
  total: number;
  /** Requests by `METHOD /route/pattern`. */
  byRoute: Record<string, number>;
  /**
   * Of those, the ones answered with an error status (4xx/5xx, injected faults included), by the
   * same key: a write refused (a 409 while a scan runs) changed nothing, which counts of writes made
   * must tell apart from one accepted.
   */
  refusedByRoute: Record<string, number>;
}

/** Counts one request under its route's pattern (`(unrouted)` when no route serves it). */
export function countRequest(stats: RequestStats, method: string, pattern: string | undefined): string {
  stats.total += 1;
  const routeKey = `${method} ${pattern ?? "(unrouted)"}`;
  stats.byRoute[routeKey] = (stats.byRoute[routeKey] ?? 0) + 1;
  return routeKey;
}

/** Counts a request counted by countRequest as refused when its answer is an error status. */
export function countAnswer(stats: RequestStats, routeKey: string, status: number): void {
  if (status >= 400) stats.refusedByRoute[routeKey] = (stats.refusedByRoute[routeKey] ?? 0) + 1;
}
