import { databaseLabel, databaseRefOf } from "../../platform/arm/resource-id";
import { StackwardenError } from "../../platform/errors/stackwarden-error";
import type { AuditChange } from "../audit/audit-entry";

/**
 * An apply whose stack lock was lost (broken, lapsed, taken over) after it had begun: it sent no
 * request after it knew, wrote its audit entry, and ends with SW_LOCK_LOST naming each change it
 * had already sent and where that stands (converged, sent with its scan not awaited, unknown), as
 * the entry records them.
 */
export class LockLostError extends StackwardenError {
  constructor(
    readonly reason: Error,
    /** The changes of the audit entry (all of them, sent or not). */
    readonly changes: readonly AuditChange[],
    /** The entry that records them; undefined when it could not be written (`auditError` says why). */
    readonly auditSeq: number | undefined,
    auditError?: Error,
  ) {
    const sent = sentChanges(changes);
    super(
      "SW_LOCK_LOST",
      `${reason.message.replace(/[;:]\s*stopping before the next write$/, "")}; the apply stopped: ${
        sent.length ? `${sent.length} change(s) had been sent (${sent.map(describeSentChange).join(", ")})` : "no change had been sent"
      }; ${
        auditSeq !== undefined
          ? `audit entry ${auditSeq} records them`
          : `its audit entry could not be written (${auditError?.message ?? "unknown"}): the record it kept of them goes into the trail with the lock's next holder`
      }; run it again to finish`,
      { cause: reason },
    );
    this.name = "LockLostError";
  }
}

/** The changes whose PUT went out, or may have: converged, sent, unknown. */
export function sentChanges(changes: readonly AuditChange[]): AuditChange[] {
  return changes.filter((c) => c.outcome === "converged" || c.put === "sent" || c.put === "unknown");
}

/** `rg/s1/orders converged`, `rg/s1/audit sent (its scan not awaited; TDE now Enabled)`, `… unknown (sent, no answer)`. */
export function describeSentChange(c: AuditChange): string {
  const ref = databaseRefOf(c.resource);
  const label = ref ? databaseLabel(ref) : c.resource;
  if (c.outcome === "converged") return `${label} converged`;
  const now = `TDE now ${c.after ?? "unknown"}`;
  return c.put === "sent" ? `${label} sent (its scan not awaited; ${now})` : `${label} unknown (sent, no answer; ${now})`;
}
