import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isProcessAlive } from "./process-alive";

/** The file that names the process a directory belongs to. */
export const OWNER_FILE = "owner.pid";

/** A directory another live process holds. */
export class DirectoryInUse extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`${dir} is in use by another process (pid ${pid}); if none runs there, remove ${join(dir, OWNER_FILE)}`);
    this.name = "DirectoryInUse";
  }
}

/**
 * Claims `dir` for this process: `<dir>/owner.pid` holds its pid, written to a temporary file and
 * hard-linked into place, so the claim appears whole or not at all and two processes starting at once
 * cannot both win. A claim left by a process that is gone (a `kill -9`), or by this process, is taken
 * over; one of a live process is refused (DirectoryInUse). Returns what gives the directory up.
 */
export function claimDirectory(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, OWNER_FILE);
  const tmp = `${path}.${process.pid}.claim`;
  writeFileSync(tmp, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, path);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 3) throw e;
      }
      const holder = readHolder(path);
      if (holder !== undefined && holder !== process.pid && isProcessAlive(holder)) throw new DirectoryInUse(dir, holder);
      removeIfPresent(path);
    }
  } finally {
    removeIfPresent(tmp);
  }
  return () => {
    if (readHolder(path) === process.pid) removeIfPresent(path);
  };
}

/** The pid a claim names; undefined when there is none (or it is not a pid). */
function readHolder(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}
