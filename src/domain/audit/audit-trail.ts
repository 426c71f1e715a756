import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { stackFileKey } from "../../platform/settings/state-dirs";
import type { AuditEntry, AuditRecord } from "./audit-entry";
import { chainEntry } from "./audit-chain";
import { StackwardenError } from "../../platform/errors/stackwarden-error";

/** The trail cannot be appended to safely (its end is damaged). */
export class AuditTrailError extends StackwardenError {
  constructor(message: string) {
    super("SW_AUDIT_TRAIL_DAMAGED", message);
    this.name = "AuditTrailError";
  }
}

/** `<dir>/<stack>.jsonl` */
export function auditPathOf(dir: string, stack: string): string {
  return join(dir, `${stackFileKey(stack)}.jsonl`);
}

/**
 * A stack's append-only audit trail: one JSON line per apply, each carrying the sha-256 of the
 * line before it. Appends happen under the stack's lock, so one writer appends at a time.
 */
export class AuditTrail {
  constructor(readonly path: string) {}

  static forStack(dir: string, stack: string): AuditTrail {
    return new AuditTrail(auditPathOf(dir, stack));
  }

  /**
   * Reads the last line (its seq and text). Throws AuditTrailError when the file ends in a partial
   * line or a line that is not an entry, so that an apply can refuse to start before it changes anything.
   */
  tail(): { line: string; seq: number } | undefined {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new AuditTrailError(`cannot read the audit trail ${this.path}: ${(e as Error).message}`);
    }
    try {
      const size = fstatSync(fd).size;
      if (size === 0) return undefined;
      const last = readLastLine(fd, size);
      if (last === undefined) {
        throw new AuditTrailError(
          `the audit trail ${this.path} ends in a partial line (a write was cut off): run \`stackwarden audit verify\`, then move the file aside to start a new trail`,
        );
      }
      let seq: unknown;
      try {
        seq = (JSON.parse(last) as Partial<AuditEntry>).seq;
      } catch {
        /* reported below */
      }
      if (typeof seq !== "number") {
        throw new AuditTrailError(
          `the last line of the audit trail ${this.path} is not an audit entry: run \`stackwarden audit verify\`, then move the file aside to start a new trail`,
        );
      }
      return { line: last, seq };
    } finally {
      closeSync(fd);
    }
  }

  /** Appends one entry chained to the current last line, and flushes it to disk. */
  append(record: AuditRecord): AuditEntry {
    const { entry, line } = chainEntry(record, this.tail());
    mkdirSync(join(this.path, ".."), { recursive: true });
    const fd = openSync(this.path, "a", 0o644);
    try {
      // One write of the whole line, then fsync: an entry is either in the file or not.
      writeSync(fd, `${line}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return entry;
  }
}

/** The last complete line of a file that ends with "\n"; undefined when the file does not end with one. */
function readLastLine(fd: number, size: number): string | undefined {
  const chunk = 64 * 1024;
  let end = size;
  let tail = Buffer.alloc(0);
  for (;;) {
    const start = Math.max(0, end - chunk);
    const buf = Buffer.alloc(end - start);
    readSync(fd, buf, 0, buf.length, start);
    tail = Buffer.concat([buf, tail]);
    if (end === size && tail[tail.length - 1] !== 0x0a) return undefined;
    const nl = tail.lastIndexOf(0x0a, tail.length - 2);
    if (nl >= 0) return tail.subarray(nl + 1, tail.length - 1).toString("utf8");
    if (start === 0) return tail.subarray(0, tail.length - 1).toString("utf8");
    end = start;
  }
}
