import { randomUUID } from "node:crypto";
import type { DocumentStore } from "../../../domain/state/state-ports";
import { stackFileKey } from "../../../platform/settings/state-dirs";
import { OrderedWrites } from "../../../usecases/ordered-writes";
import type { StackStatus } from "./stack-status";

/** What a StatusStore holds: the board's incarnation and each stack's last status. */
export interface StoredBoard {
  incarnation: string;
  statuses: StackStatus[];
}

/**
 * Keeps each stack's last status in the state store (`stacks/<stack>.json`, written atomically), so
 * a watcher that restarts, even after `kill -9`, resumes from what it last knew: a drift that was
 * already reported is not reported again, and event ids stay those of the same episodes.
 * `board.json` holds the incarnation: a random id made once, part of every event id, so the ids of
 * a new store never collide with those of a lost one. Writes go through `writes`, in order.
 */
export class StatusStore {
  constructor(
    private readonly docs: DocumentStore,
    private readonly warn: (line: string) => void = () => {},
    readonly writes = new OrderedWrites(warn),
  ) {}

  /** Reads the store (creating its incarnation on first use). A document that cannot be read is skipped with a warning. */
  async load(): Promise<StoredBoard> {
    let incarnation: string | undefined;
    try {
      const doc = await this.docs.get("board.json");
      if (doc) {
        const parsed = JSON.parse(doc.text) as { incarnation?: unknown };
        if (typeof parsed.incarnation === "string" && parsed.incarnation) incarnation = parsed.incarnation;
      }
    } catch (e) {
      this.warn(`status store: ${this.docs.where("board.json")} is unreadable (${(e as Error).message}); starting a new one`);
    }
    if (!incarnation) {
      incarnation = randomUUID();
      // Created only if absent: two watchers starting on one store agree on the incarnation the first one made.
      const made = await this.docs.put("board.json", `${JSON.stringify({ incarnation })}\n`, { ifNoneMatch: "*" });
      if (made === undefined) return this.load();
    }
    const statuses: StackStatus[] = [];
    for (const { name } of await this.docs.list("stacks/")) {
      if (!name.endsWith(".json")) continue;
      try {
        const doc = await this.docs.get(name);
        if (!doc) continue;
        const status = JSON.parse(doc.text) as StackStatus;
        if (typeof status?.name !== "string" || typeof status.generation !== "number") throw new Error("not a stack status");
        statuses.push(status);
      } catch (e) {
        this.warn(`status store: skipping ${this.docs.where(name)}: ${(e as Error).message}`);
      }
    }
    return { incarnation, statuses };
  }

  /** Replaces the stack's stored status (atomically, after every write queued before). */
  save(status: StackStatus): void {
    const text = `${JSON.stringify(status)}\n`;
    this.writes.run("status store", () => this.docs.put(nameOf(status.name), text));
  }

  /** Forgets a stack. */
  remove(name: string): void {
    this.writes.run("status store", () => this.docs.delete(nameOf(name)));
  }
}

function nameOf(stack: string): string {
  return `stacks/${stackFileKey(stack)}.json`;
}
