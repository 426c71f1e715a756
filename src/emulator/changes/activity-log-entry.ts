import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import { callerOf, recordedClaims } from "./caller";
import type { WriteContext } from "./write-context";

/**
 * A localizable string, `LocalizableString` of the Activity Log spec
 * (specs/monitor/Microsoft.Insights/stable/2015-04-01/activityLogs_API.json).
 */
export interface LocalizableString {
  value: string;
  localizedValue?: string;
}

/** One Activity Log entry, `EventData` of the same spec (every field the emulator writes). */
export interface ActivityLogEventData {
  authorization: { action: string; scope: string };
  caller: string;
  claims: Record<string, string>;
  correlationId: string;
  description: string;
  eventDataId: string;
  eventName: LocalizableString;
  category: LocalizableString;
  httpRequest: { clientRequestId: string; clientIpAddress: string; method: string };
  id: string;
  level: "Informational" | "Error";
  resourceGroupName: string;
  resourceProviderName: LocalizableString;
  resourceId: string;
  resourceType: LocalizableString;
  operationId: string;
  operationName: LocalizableString;
  properties: Record<string, string>;
  status: LocalizableString;
  subStatus: LocalizableString;
  eventTimestamp: string;
  submissionTimestamp: string;
  subscriptionId: string;
  tenantId: string;
}

/** How a write ended, for its second entry. */
export interface WriteOutcome {
  status: number;
  /** The ARM error body of a refused write. */
  body?: unknown;
}

/** Ticks of .NET's DateTime at the Unix epoch: Azure's entry ids end in `/ticks/<DateTime ticks>`. */
const EPOCH_TICKS = 621_355_968_000_000_000n;

/**
 * An Activity Log entry of a write as Azure writes it: category Administrative, `Started` when the
 * write is received (eventName BeginRequest), `Succeeded` or `Failed` when it is answered
 * (EndRequest; a failure at level Error, with the error as `properties.statusMessage`), both with
 * the write's correlation and operation ids. `submittedAt` is when the entry is ingested (later
 * than the event under a delay fault).
 */
export function activityLogEntry(
  w: WriteContext,
  outcome: WriteOutcome | undefined,
  at: number,
  submittedAt: number,
): ActivityLogEventData {
  const eventDataId = randomUUID();
  const failed = outcome !== undefined && outcome.status >= 400;
  const status = outcome === undefined ? "Started" : failed ? "Failed" : "Succeeded";
  const code = outcome ? statusName(outcome.status) : "";
  const properties: Record<string, string> = outcome ? { statusCode: code } : {};
  if (failed && outcome.body !== undefined) properties.statusMessage = JSON.stringify(outcome.body);
  const begin = outcome === undefined;
  return {
    authorization: { action: w.write.operationName, scope: w.write.resourceId },
    caller: callerOf(w.claims),
    claims: recordedClaims(w.claims),
    correlationId: w.correlationId,
    description: "",
    eventDataId,
    eventName: begin ? { value: "BeginRequest", localizedValue: "Begin request" } : { value: "EndRequest", localizedValue: "End request" },
    category: same("Administrative"),
    httpRequest: { clientRequestId: w.clientRequestId, clientIpAddress: w.clientIpAddress, method: w.write.method },
    id: `${w.write.resourceId}/events/${eventDataId}/ticks/${BigInt(at) * 10_000n + EPOCH_TICKS}`,
    level: failed ? "Error" : "Informational",
    resourceGroupName: w.write.resourceGroupName,
    resourceProviderName: same(w.write.resourceProvider),
    resourceId: w.write.resourceId,
    resourceType: same(w.write.resourceType),
    operationId: w.operationId,
    operationName: same(w.write.operationName),
    properties,
    status: same(status),
    subStatus: outcome ? { value: code, localizedValue: `${code} (HTTP Status Code: ${outcome.status})` } : same(""),
    eventTimestamp: new Date(at).toISOString(),
    submissionTimestamp: new Date(submittedAt).toISOString(),
    subscriptionId: w.write.subscriptionId,
    tenantId: w.claims.tid,
  };
}

function same(value: string): LocalizableString {
  return { value, localizedValue: value };
}

/** An HTTP status as .NET's HttpStatusCode names it (`OK`, `BadRequest`, `Conflict`), as the entries' statusCode shows it. */
function statusName(status: number): string {
  const text = STATUS_CODES[status];
  if (status === 200) return "OK";
  return text ? text.replace(/[^A-Za-z]/g, "") : String(status);
}
