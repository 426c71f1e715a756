import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
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
 * Claims `dir` for this process: writes its pid to `<dir>/owner.pid`, created exclusively. A claim
 * left by a process that is gone (a `kill -9`), or by this process, is taken over; one of a live
 * process is refused (DirectoryInUse). Returns what gives the directory up.
 */
export function claimDirectory(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, OWNER_FILE);
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw e;
    }
    const holder = Number(readFileSync(path, "utf8").trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isProcessAlive(holder)) throw new DirectoryInUse(dir, holder);
    unlinkSync(path);
  }
  return () => {
    try {
      if (Number(readFileSync(path, "utf8").trim()) === process.pid) unlinkSync(path);
    } catch {
      // Already gone: nothing to give up.
    }
  };
}
