import type { EmulatorReply, EmulatorRequest } from "../kit/emulator-app";
import type { ActivityLog } from "./activity-log";
import type { ActivityLogEventData } from "./activity-log-entry";
import { parseActivityLogFilter } from "./activity-log-filter";

/** ActivityLogs_List's path; ARM matches the namespace case-insensitively, as the emulator's router does. */
export const ACTIVITY_LOG_PATH = "/subscriptions/:subscriptionId/providers/Microsoft.Insights/eventtypes/management/values";

/** Default entries per page of the Activity Log (`activityLogPageSize` in the emulator's settings). */
export const DEFAULT_ACTIVITY_LOG_PAGE_SIZE = 200;

/** The fields `$select` may name: EventData's properties in the spec. */
const SELECTABLE = new Set([
  "authorization",
  "claims",
  "caller",
  "description",
  "id",
  "eventDataId",
  "correlationId",
  "eventName",
  "category",
  "httpRequest",
  "level",
  "resourceGroupName",
  "resourceProviderName",
  "resourceId",
  "resourceType",
  "operationId",
  "operationName",
  "properties",
  "status",
  "subStatus",
  "eventTimestamp",
  "submissionTimestamp",
  "subscriptionId",
  "tenantId",
]);

/**
 * ActivityLogs_List: the entries of the subscription that pass `$filter` (see activity-log-filter.ts),
 * newest first, `pageSize` a page with a `nextLink` while more remain (its `$skiptoken` names the
 * last entry given, so entries appended between pages neither shift nor repeat the next page),
 * each with only the `$select`ed fields when it names some. A bad `$filter`, `$select` or
 * `$skiptoken` answers 400 in the spec's ErrorResponse shape (`{ code, message }`).
 */
export function listActivityLog(req: EmulatorRequest, log: ActivityLog, pageSize: number): EmulatorReply {
  const filter = parseActivityLogFilter(req.query.get("$filter"));
  if ("problem" in filter) return badRequest(filter.problem);
  const select = parseSelect(req.query.get("$select"));
  if (!Array.isArray(select)) return badRequest(select.problem);
  const token = req.query.get("$skiptoken");
  const before = token ? decodeToken(token) : undefined;
  if (token && before === undefined) return badRequest(`The $skiptoken '${token}' is not valid for this list.`);
  const page = log.list({ subscriptionId: req.params.subscriptionId, filter, now: req.now, before, limit: Math.max(1, pageSize) });
  const body: { value: Partial<ActivityLogEventData>[]; nextLink?: string } = {
    value: page.entries.map((s) => (select.length > 0 ? pick(s.entry, select) : s.entry)),
  };
  if (page.more) {
    const q = new URLSearchParams(req.query);
    q.set("$skiptoken", encodeToken(page.entries[page.entries.length - 1].seq));
    body.nextLink = `${req.baseUrl}${req.path}?${q.toString()}`;
  }
  return { status: 200, body };
}

function parseSelect(text: string | null): string[] | { problem: string } {
  if (!text) return [];
  const names = text.split(",").map((s) => s.trim());
  const unknown = names.find((n) => !SELECTABLE.has(n));
  return unknown === undefined ? names : { problem: `The $select field '${unknown}' is not a property of EventData.` };
}

function pick(e: ActivityLogEventData, names: string[]): Partial<ActivityLogEventData> {
  const rec = e as unknown as Record<string, unknown>;
  return Object.fromEntries(names.map((n) => [n, rec[n]])) as Partial<ActivityLogEventData>;
}

function badRequest(message: string): EmulatorReply {
  return { status: 400, body: { code: "BadRequest", message } };
}

function encodeToken(seq: number): string {
  return Buffer.from(`s:${seq}`).toString("base64url");
}

function decodeToken(token: string): number | undefined {
  const m = /^s:(\d+)$/.exec(Buffer.from(token, "base64url").toString("utf8"));
  return m ? Number(m[1]) : undefined;
}
