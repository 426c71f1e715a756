import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { AuditEntry } from "../../../domain/audit/audit-entry";
import { auditPathOf } from "../../../domain/audit/audit-trail";
import { AUDIT_ENTRIES_KEPT } from "./status-parts";

/** How much of a trail's end is read for its last entries, in bytes (an entry is about 1 KiB). */
const TAIL_BYTES = 256 * 1024;

/**
 * The last `n` entries of a stack's audit trail (`<dir>/<stack>.jsonl`), oldest first, as auditOf
 * takes them: only the file's end is read, whatever its size. No trail yet: []. A line that is
 * not an entry (a write cut short) is skipped; `audit verify` is what judges the trail.
 */
export function readAuditTail(dir: string, stack: string, n = AUDIT_ENTRIES_KEPT): AuditEntry[] {
  let fd: number;
  try {
    fd = openSync(auditPathOf(dir, stack), "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    const lines = buf.toString("utf8").split("\n");
    if (start > 0) lines.shift(); // the first line read may be cut
    const entries: AuditEntry[] = [];
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        const e = JSON.parse(line) as AuditEntry;
        if (typeof e.seq === "number" && typeof e.hash === "string") entries.push(e);
      } catch {
        /* a cut line: skipped */
      }
    }
    return entries.slice(-n);
  } finally {
    closeSync(fd);
  }
}
