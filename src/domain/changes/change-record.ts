/** Where a change record came from: Azure Monitor's Activity Log (pulled) or Event Grid (pushed). */
export type ChangeSource = "activity-log" | "event-grid";

/**
 * Who changed a resource, and how, as Azure recorded it: what a drift found through a change
 * record carries (drift found by the full sweep carries none: "by the sweep").
 */
export interface ChangeAttribution {
  /** The UPN of a user, or the application id of a service principal; null when the record names no caller. */
  caller: string | null;
  /** When the change happened (the record's event time, ISO 8601). */
  at: string;
  /** Azure's operation name, e.g. `Microsoft.Sql/servers/databases/transparentDataEncryption/write`. */
  operation: string;
  source: ChangeSource;
  /** Shared by every record of one operation; null when the record has none. */
  correlationId: string | null;
}

/** One write Azure served, as a change source reports it. */
export interface ChangeRecord {
  /**
   * The record's own id (the Activity Log's `eventDataId`, Event Grid's event `id`), prefixed with
   * its source: what deduplicates a record delivered twice.
   */
  id: string;
  /** The ARM id of the resource written (as the record spells it). */
  resourceId: string;
  attribution: ChangeAttribution;
}

/**
 * What one write is known by in every source: its correlation id and resource (Azure gives a write
 * the same correlation id in its Activity Log entries and its Event Grid event, which have ids of
 * their own). Undefined for a record without a correlation id: only its own id dedupes it then.
 */
export function writeKeyOf(r: ChangeRecord): string | undefined {
  const c = r.attribution.correlationId;
  return c ? `write:${c.toLowerCase()}|${r.resourceId.toLowerCase()}` : undefined;
}

/**
 * Which of two attributions to keep for one resource: of one write (the same correlation id) seen
 * through both sources, the Activity Log's, which Azure writes itself, over a pushed event, which
 * anyone who can reach the webhook could have sent; of two writes, the later (ties keep the first).
 */
export function laterAttribution(a: ChangeAttribution, b: ChangeAttribution): ChangeAttribution {
  if (sameWrite(a, b) && a.source !== b.source) return a.source === "activity-log" ? a : b;
  return Date.parse(b.at) > Date.parse(a.at) ? b : a;
}

/**
 * Whether two attributions of one write (the same correlation id) disagree on who made it or how:
 * then the Activity Log's is taken over a pushed one (laterAttribution).
 */
export function attributionsDisagree(a: ChangeAttribution, b: ChangeAttribution): boolean {
  return (a.caller ?? "").toLowerCase() !== (b.caller ?? "").toLowerCase() || a.operation.toLowerCase() !== b.operation.toLowerCase();
}

function sameWrite(a: ChangeAttribution, b: ChangeAttribution): boolean {
  return !!a.correlationId && !!b.correlationId && a.correlationId.toLowerCase() === b.correlationId.toLowerCase();
}

/** One line for people: `by alice@contoso.com through Microsoft.Sql/…/write at 2026-…Z (activity-log, correlation 1234)`. */
export function describeAttribution(a: ChangeAttribution | null | undefined): string {
  if (!a) return "by the sweep";
  return `by ${a.caller ?? "an unnamed caller"} through ${a.operation} at ${a.at} (${a.source}${a.correlationId ? `, correlation ${a.correlationId}` : ""})`;
}
