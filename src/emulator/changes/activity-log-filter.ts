import type { ActivityLogEventData } from "./activity-log-entry";

/**
 * An Activity Log `$filter`, parsed. The spec (activityLogs_API.json, ActivityLogs_List) allows
 * only `eventTimestamp ge '<time>'` (required), optionally `and eventTimestamp le '<time>'`, and at
 * most one of `resourceGroupName eq`, `resourceUri eq`, `resourceProvider eq`, `correlationId eq`,
 * all joined by `and`: "No other syntax is allowed." The emulator also takes `resourceId eq` (a
 * synonym of `resourceUri` that Azure accepts), `status eq` and `caller eq` (which the Azure CLI's
 * `az monitor activity-log list --status/--caller` sends). Values compare case-insensitively.
 */
export interface ActivityLogFilter {
  from: number;
  to?: number;
  /** Field of EventData and the value it must equal (lower case), for the optional clauses. */
  equals: { field: EqualityField; value: string }[];
}

type EqualityField = "resourceGroupName" | "resourceId" | "resourceProvider" | "correlationId" | "status" | "caller";

const EQUALITY_FIELDS: Record<string, EqualityField> = {
  resourcegroupname: "resourceGroupName",
  resourceuri: "resourceId",
  resourceid: "resourceId",
  resourceprovider: "resourceProvider",
  correlationid: "correlationId",
  status: "status",
  caller: "caller",
};

const CLAUSE = /^\s*([A-Za-z]+)\s+(eq|ge|le)\s+'((?:[^']|'')*)'\s*$/i;

/** Parses a `$filter`; a string that breaks the spec's patterns gives the reason, for a 400. */
export function parseActivityLogFilter(text: string | null): ActivityLogFilter | { problem: string } {
  if (!text) return { problem: "The $filter query parameter is required and must contain at least 'eventTimestamp ge'." };
  let from: number | undefined;
  let to: number | undefined;
  const equals: ActivityLogFilter["equals"] = [];
  for (const clause of text.split(/\s+and\s+/i)) {
    const m = CLAUSE.exec(clause);
    if (!m) return { problem: `The $filter clause '${clause.trim()}' is not supported: use <field> eq|ge|le '<value>' joined by 'and'.` };
    const [, name, op, raw] = m;
    const value = raw.replace(/''/g, "'");
    if (name.toLowerCase() === "eventtimestamp") {
      const t = Date.parse(value);
      if (op.toLowerCase() === "eq" || Number.isNaN(t))
        return { problem: `The $filter clause '${clause.trim()}' needs ge or le and a date-time.` };
      if (op.toLowerCase() === "ge") from = t;
      else to = t;
      continue;
    }
    const field = EQUALITY_FIELDS[name.toLowerCase()];
    if (!field || op.toLowerCase() !== "eq") return { problem: `The $filter field '${name}' with '${op}' is not supported.` };
    equals.push({ field, value: value.toLowerCase() });
  }
  if (from === undefined) return { problem: "The $filter must contain 'eventTimestamp ge' with the start of the time window." };
  if (to !== undefined && to < from) return { problem: "The $filter's 'eventTimestamp le' is before its 'eventTimestamp ge'." };
  return { from, to, equals };
}

/** Whether an entry passes the filter (its event time within the window, every equality met). */
export function matchesFilter(e: ActivityLogEventData, at: number, f: ActivityLogFilter): boolean {
  if (at < f.from || (f.to !== undefined && at > f.to)) return false;
  return f.equals.every(({ field, value }) => fieldValue(e, field).toLowerCase() === value);
}

function fieldValue(e: ActivityLogEventData, field: EqualityField): string {
  switch (field) {
    case "resourceProvider":
      return e.resourceProviderName.value;
    case "status":
      return e.status.value;
    default:
      return e[field];
  }
}
