import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { isProcessAlive } from "./process-alive";

/**
 * Writes `text` to `path` so that a reader, or a `kill -9` at any moment, sees the old file or the
 * new one, never half of one: the text goes to a temporary file beside it, is fsynced (so a power
 * loss does not leave an empty file under the new name either), then renamed over `path`.
 * Creates the directory when missing. Synchronous: a few small writes, cheaper than a promise chain.
 */
export function writeFileAtomic(path: string, text: string, mode = 0o600): void {
  const tmp = writeTempFile(path, text, mode);
  try {
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* the rename's error is the one worth reporting */
    }
    throw e;
  }
}

/**
 * Writes `text` to a new temporary file beside `path` (`<path>.<pid>.<random>.tmp`, fsynced) and
 * returns its name: what writeFileAtomic renames, or a create-only write hard-links, into place.
 */
export function writeTempFile(path: string, text: string, mode = 0o600): string {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  const fd = openSync(tmp, "w", mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return tmp;
}

/**
 * Whether a file name is a temporary file writeFileAtomic left behind when killed before its rename:
 * one whose writer (the pid in its name) is gone, or this process's own (its writes are synchronous,
 * so none is under way). The temporary file of another live process is not: two watchers started in
 * one directory share it, and removing the other's file mid-write made its rename fail.
 */
export function isAtomicWriteLeftover(name: string): boolean {
  const m = /\.(\d+)\.[a-z0-9]+\.tmp$/.exec(name);
  if (!m) return false;
  const pid = Number(m[1]);
  return pid === process.pid || !isProcessAlive(pid);
}
