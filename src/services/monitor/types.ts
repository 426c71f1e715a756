/**
 * Types of the Activity Log (Microsoft.Insights, api-version 2015-04-01), from
 * specs/monitor/Microsoft.Insights/stable/2015-04-01/activityLogs_API.json (`EventData`,
 * `EventDataCollection`, `LocalizableString`). Only the list operation is modelled.
 *
 * Every field is read-only and optional in the spec, and real entries leave many out (a `Started`
 * entry has no `properties.statusCode`, a policy entry no `caller`): interfaces keep an index
 * signature and enums are open, and readers take each field as it comes.
 */

/** The Activity Log document (ActivityLogs_List). */
export const ACTIVITY_LOG_SPEC = "monitor/Microsoft.Insights/stable/2015-04-01/activityLogs_API.json";
/** The one api-version the Activity Log list has (its only stable version). */
export const ACTIVITY_LOG_API_VERSION = "2015-04-01";
/** The spec's operationIds. */
export const MONITOR_OPERATIONS = { listActivityLog: "ActivityLogs_List" } as const;

/** `LocalizableString`: the invariant `value` (what code compares) and the `localizedValue` (what people read). */
export interface LocalizableString {
  value?: string;
  localizedValue?: string;
  [extra: string]: unknown;
}

/** `EventData`: one entry of the Activity Log. */
export interface EventData {
  /** ARM's id of the entry (the subscription's path, the event data id and a timestamp). */
  id?: string;
  /** The entry's unique id: what deduplicates it. */
  eventDataId?: string;
  /** Shared by every entry of one operation (its `Started` and its `Succeeded`). */
  correlationId?: string;
  operationId?: string;
  /** The UPN, or the application id of a service principal, of who made the call. */
  caller?: string;
  /** The token's claims (`appid`, `upn`, `name` …): a map of strings. */
  claims?: Record<string, string>;
  /** `Administrative` for writes. */
  category?: LocalizableString;
  /** E.g. `Microsoft.Sql/servers/databases/transparentDataEncryption/write`. */
  operationName?: LocalizableString;
  /** `Started`, `Accepted`, `Succeeded`, `Failed`. */
  status?: LocalizableString;
  subStatus?: LocalizableString;
  resourceId?: string;
  resourceGroupName?: string;
  resourceProviderName?: LocalizableString;
  resourceType?: LocalizableString;
  /** When the operation happened (ISO 8601). */
  eventTimestamp?: string;
  /** When Azure made the entry available for query: minutes after `eventTimestamp` at worst. */
  submissionTimestamp?: string;
  subscriptionId?: string;
  tenantId?: string;
  level?: "Critical" | "Error" | "Warning" | "Informational" | "Verbose" | (string & {});
  httpRequest?: { clientRequestId?: string; clientIpAddress?: string; method?: string; uri?: string };
  properties?: Record<string, string>;
  [extra: string]: unknown;
}

/** Which entries a list asks for: a time window, and optionally one resource provider. */
export interface ActivityLogQuery {
  subscriptionId: string;
  /** The window's start (inclusive), by `eventTimestamp`. */
  from: Date;
  /** The window's end (inclusive). */
  to: Date;
  /** `Microsoft.Sql`: only that provider's entries (the spec's one provider pattern). */
  resourceProvider?: string;
}
