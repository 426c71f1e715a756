import type { AuditEntry } from "./audit-entry";

/** When a stack last changed, by its audit trail: the entry's sequence number and time. */
export interface LastChange {
  seq: number;
  at: string;
}

/**
 * The last entry of an audit trail's text that changed something (an apply, a remediation, an
 * applied commit: `what` not empty); undefined when the trail is missing, empty or records no
 * change. Read tolerantly, from the end: a damaged line is skipped, not an error (`audit verify`
 * is the judge of the trail's integrity).
 */
export function lastChangeOf(text: string | undefined): LastChange | undefined {
  if (!text) return undefined;
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
