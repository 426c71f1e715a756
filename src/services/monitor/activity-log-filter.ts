import type { ActivityLogQuery } from "./types";

/**
 * The `$filter` of ActivityLogs_List. The spec allows only a few fixed patterns (its `$filter`
 * parameter lists them: "No other syntax is allowed"); the two used here are "events in a time
 * range" and "events for a resource provider", times as ISO 8601 in single quotes.
 */
export function activityLogFilter(q: ActivityLogQuery): string {
  if (!(q.from.getTime() <= q.to.getTime()))
    throw new Error(`the Activity Log window starts after it ends (${q.from.toISOString()} > ${q.to.toISOString()})`);
  const window = `eventTimestamp ge '${q.from.toISOString()}' and eventTimestamp le '${q.to.toISOString()}'`;
  if (q.resourceProvider === undefined) return window;
  if (!/^[A-Za-z0-9.]+$/.test(q.resourceProvider)) throw new Error(`"${q.resourceProvider}" is not a resource provider namespace`);
  return `${window} and resourceProvider eq '${q.resourceProvider}'`;
}
