import type { EventData } from "../../services/monitor/types";
import type { ChangeRecord } from "./change-record";
import { callerOfClaims } from "./caller-of-claims";

/**
 * The change an Activity Log entry records, or undefined when it records none the watcher acts on.
 * Only a write that succeeded changes anything: an operation's `Started` (and `Accepted`) entry
 * comes before the change is made and its `Failed` one changed nothing, so only `Succeeded`
 * entries of `…/write`, `…/delete` and `…/action` operations are changes. Read tolerantly: an entry
 * without an id or a resource (a policy or service-health entry) is none; a missing caller, time
 * or correlation id is carried as absent.
 */
export function changeOfActivityLogEntry(e: EventData): ChangeRecord | undefined {
  const id = str(e.eventDataId);
  const resourceId = str(e.resourceId) ?? resourceOfEntryId(str(e.id));
  const operation = str(e.operationName?.value);
  if (!id || !resourceId || !operation) return undefined;
  if (str(e.status?.value)?.toLowerCase() !== "succeeded") return undefined;
  if (!/\/(write|delete|action)$/i.test(operation)) return undefined;
  const at = str(e.eventTimestamp) ?? str(e.submissionTimestamp);
  return {
    id: `activity-log:${id}`,
    resourceId,
    attribution: {
      caller: str(e.caller) ?? callerOfClaims(e.claims),
      at: at && !Number.isNaN(Date.parse(at)) ? new Date(at).toISOString() : new Date(0).toISOString(),
      operation,
      source: "activity-log",
      correlationId: str(e.correlationId) ?? null,
    },
  };
}

/**
 * The resource an entry's own `id` names when `resourceId` is missing (the spec's example has none):
 * the spec describes `id` as the resource's path with the event data id and a timestamp after it,
 * `…/events/{eventDataId}/ticks/{ticks}`.
 */
function resourceOfEntryId(id: string | undefined): string | undefined {
  return id ? /^(\/subscriptions\/.+)\/events\/[^/]+\/ticks\/\d+$/i.exec(id)?.[1] : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}
