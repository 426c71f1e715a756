import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import lockfile from "proper-lockfile";
import { stackFileKey } from "../../settings/state-dirs";
import { writeFileAtomic } from "./atomic-write";

/** How much of a trail's end `recent` reads, in bytes (an entry is about 1 KiB). */
const RECENT_BYTES = 256 * 1024;

/** `<dir>/<stack>.jsonl` */
export function auditPathOf(dir: string, name: string): string {
  return join(dir, `${stackFileKey(name)}.jsonl`);
}

/**
 * The audit trails as files: `<dir>/<stack>.jsonl`, one JSON line per entry, appended with one
 * write and an fsync. An append is conditional, as on Blob Storage: it happens only if the file
 * still ends with the line the writer chained onto, checked and written under a short lock of the
 * file (`<stack>.jsonl.append.lock`, present only during the append), so two writers on one disk
 * never fork the chain, whatever locks they hold.
 */
export class FileAuditLog {
  constructor(readonly dir: string) {}

  where(name: string): string {
    return auditPathOf(this.dir, name);
  }

  async read(name: string): Promise<string | undefined> {
    try {
      return readFileSync(this.where(name), "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }

  async end(name: string): Promise<{ line: string } | { damaged: "partial-line"; where: string } | undefined> {
    const path = this.where(name);
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
    try {
      const size = fstatSync(fd).size;
      if (size === 0) return undefined;
      const last = readLastLine(fd, size);
      return last === undefined ? { damaged: "partial-line", where: path } : { line: last };
    } finally {
      closeSync(fd);
    }
  }

  async readPending(name: string): Promise<string | undefined> {
    try {
      return readFileSync(this.pendingPath(name), "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }

  async writePending(name: string, text: string | undefined): Promise<void> {
    if (text !== undefined) return writeFileAtomic(this.pendingPath(name), text, 0o644);
    try {
      unlinkSync(this.pendingPath(name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }

  /** `<dir>/<stack>.pending.json`: an apply under way. */
  private pendingPath(name: string): string {
    return join(this.dir, `${stackFileKey(name)}.pending.json`);
  }

  async recent(name: string, count: number): Promise<string[]> {
    let fd: number;
    try {
      fd = openSync(this.where(name), "r");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw e;
    }
    try {
      const size = fstatSync(fd).size;
      const start = Math.max(0, size - RECENT_BYTES);
      const buf = Buffer.alloc(size - start);
      readSync(fd, buf, 0, buf.length, start);
      const lines = buf.toString("utf8").split("\n");
      if (start > 0) lines.shift(); // the first line read may be cut
      lines.pop(); // after the last newline: empty, or a line still being written
      return lines.filter((l) => l.trim()).slice(-count);
    } finally {
      closeSync(fd);
    }
  }

  async append(name: string, _seq: number, line: string, previous: string | undefined): Promise<"appended" | "conflict"> {
    const path = this.where(name);
    mkdirSync(dirname(path), { recursive: true });
    const unlock = await lockfile.lock(path, {
      lockfilePath: `${path}.append.lock`,
      realpath: false,
      stale: 10_000,
      retries: { retries: 200, minTimeout: 5, maxTimeout: 50 },
    });
    try {
      const end = await this.end(name);
      const endLine = end && "line" in end ? end.line : undefined;
      if (end && !("line" in end)) return "conflict";
      if (endLine !== previous) return "conflict";
      const fd = openSync(path, "a", 0o644);
      try {
        // One write of the whole line, then fsync: an entry is either in the file or not.
        writeSync(fd, `${line}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      return "appended";
    } finally {
      await unlock();
    }
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
