import { ArmClient, type ArmClientOptions, type ArmOperation } from "../../platform/arm/arm-client";
import { subscriptionId } from "../../platform/arm/resource-id";
import { activityLogFilter } from "./activity-log-filter";
import { ACTIVITY_LOG_API_VERSION, ACTIVITY_LOG_SPEC, MONITOR_OPERATIONS, type ActivityLogQuery, type EventData } from "./types";

export type MonitorClientOptions = ArmClientOptions;

/** An Activity Log entry is no ARM resource: its `id` is no resource id to check. */
const LIST: ArmOperation = { id: MONITOR_OPERATIONS.listActivityLog, schema: "/definitions/EventData", resource: false };

/**
 * A read-only client for Azure Monitor's Activity Log (Microsoft.Insights, api-version
 * 2015-04-01), through the same ARM transport as every other read: the credential's token, the
 * pacer shared with the other clients of the endpoint (the Activity Log's reads count against the
 * subscription's read budget like any other), retries and 429 handling.
 */
export class MonitorClient extends ArmClient {
  constructor(opts: MonitorClientOptions) {
    super(opts, { apiVersion: ACTIVITY_LOG_API_VERSION, spec: ACTIVITY_LOG_SPEC });
  }

  /**
   * ActivityLogs_List: a subscription's entries in a time window (and of one provider, if named),
   * one page a step, following `nextLink` (which carries the filter on). Entries are handed over as
   * the service wrote them; an item that is not an object is skipped with a warning.
   */
  activityLog(q: ActivityLogQuery, signal?: AbortSignal): AsyncGenerator<EventData[], void, undefined> {
    const filter = encodeURIComponent(activityLogFilter(q));
    const path = `${subscriptionId({ subscriptionId: q.subscriptionId }, this.paths)}/providers/Microsoft.Insights/eventtypes/management/values?$filter=${filter}`;
    return this.pages<EventData>(LIST, path, {
      target: { label: `the Activity Log of subscription '${q.subscriptionId}'`, names: [q.subscriptionId] },
      signal,
    });
  }
}
