import { readFileSync } from "node:fs";
import type { AuditEntry } from "./audit-entry";
import { auditPathOf } from "./audit-trail";

/** When a stack last changed, by its audit trail: the entry's sequence number and time. */
export interface LastChange {
  seq: number;
  at: string;
}

/**
 * The last entry of a stack's audit trail that changed something (an apply, a remediation, an
 * applied commit: `what` not empty); undefined when the trail is missing, empty, unreadable or
 * records no change. Read tolerantly, from the end: a damaged line is skipped, not an error
 * (`audit verify` is the judge of the trail's integrity).
 */
export function lastChangeOf(auditDir: string, stack: string): LastChange | undefined {
  let text: string;
  try {
    text = readFileSync(auditPathOf(auditDir, stack), "utf8");
  } catch {
    return undefined;
  }
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i].trim()) continue;
    let entry: Partial<AuditEntry>;
    try {
      entry = JSON.parse(lines[i]) as Partial<AuditEntry>;
    } catch {
      continue;
    }
    if (Array.isArray(entry.what) && entry.what.length > 0 && typeof entry.at === "string" && typeof entry.seq === "number") {
      return { seq: entry.seq, at: entry.at };
    }
  }
  return undefined;
}
