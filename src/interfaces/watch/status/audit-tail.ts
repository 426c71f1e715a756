import type { AuditEntry } from "../../../domain/audit/audit-entry";
import type { AuditLog } from "../../../domain/state/state-ports";
import { AUDIT_ENTRIES_KEPT } from "./status-parts";

/**
 * The last `n` entries of a stack's audit trail, oldest first, as auditOf takes them: only the
 * trail's end is read, whatever its size. No trail yet: []. A line that is not an entry (a write
 * cut short) is skipped; `audit verify` is what judges the trail.
 */
export async function readAuditTail(audit: AuditLog, stack: string, n = AUDIT_ENTRIES_KEPT): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  for (const line of await audit.recent(stack, n)) {
    try {
      const e = JSON.parse(line) as AuditEntry;
      if (typeof e.seq === "number" && typeof e.hash === "string") entries.push(e);
    } catch {
      /* a cut line: skipped */
    }
  }
  return entries.slice(-n);
}
