import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { stackFileKey } from "../../../platform/settings/state-dirs";
import { isAtomicWriteLeftover, writeFileAtomic } from "../files/atomic-write";
import type { StackStatus } from "./stack-status";

/** Where the watcher keeps the statuses, under the working directory (the README documents it). */
export const DEFAULT_STATUS_DIR = ".stackwarden/status";

/** What a StatusStore holds: the board's incarnation and each stack's last status. */
export interface StoredBoard {
  incarnation: string;
  statuses: StackStatus[];
}

/**
 * Keeps each stack's last status on disk (`<dir>/stacks/<stack>.json`, written atomically), so a
 * watcher that restarts, even after `kill -9`, resumes from what it last knew: a drift that was
 * already reported is not reported again, and event ids stay those of the same episodes.
 * `<dir>/board.json` holds the incarnation: a random id made once, part of every event id, so the
 * ids of a new store never collide with those of a lost one.
 */
export class StatusStore {
  constructor(
    readonly dir: string,
    private readonly warn: (line: string) => void = () => {},
  ) {}

  /** Reads the store (creating its incarnation on first use). A file that cannot be read is skipped with a warning. */
  load(): StoredBoard {
    const boardPath = join(this.dir, "board.json");
    let incarnation: string | undefined;
    try {
      const doc = JSON.parse(readFileSync(boardPath, "utf8")) as { incarnation?: unknown };
      if (typeof doc.incarnation === "string" && doc.incarnation) incarnation = doc.incarnation;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT")
        this.warn(`status store: ${boardPath} is unreadable (${(e as Error).message}); starting a new one`);
    }
    if (!incarnation) {
      incarnation = randomUUID();
      writeFileAtomic(boardPath, `${JSON.stringify({ incarnation })}\n`);
    }
    const statuses: StackStatus[] = [];
    const stacksDir = join(this.dir, "stacks");
    let names: string[] = [];
    try {
      names = readdirSync(stacksDir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    for (const name of names.sort()) {
      const path = join(stacksDir, name);
      if (isAtomicWriteLeftover(name)) {
        unlinkSync(path); // a write a kill cut short: the file it was replacing is intact
        continue;
      }
      if (!name.endsWith(".json")) continue;
      try {
        const status = JSON.parse(readFileSync(path, "utf8")) as StackStatus;
        if (typeof status?.name !== "string" || typeof status.generation !== "number") throw new Error("not a stack status");
        statuses.push(status);
      } catch (e) {
        this.warn(`status store: skipping ${path}: ${(e as Error).message}`);
      }
    }
    return { incarnation, statuses };
  }

  /** Replaces the stack's stored status (atomically). */
  save(status: StackStatus): void {
    writeFileAtomic(this.pathOf(status.name), `${JSON.stringify(status)}\n`);
  }

  /** Forgets a stack. */
  remove(name: string): void {
    try {
      unlinkSync(this.pathOf(name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }

  private pathOf(name: string): string {
    return join(this.dir, "stacks", `${stackFileKey(name)}.json`);
  }
}
