import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { isAtomicWriteLeftover, writeFileAtomic } from "../files/atomic-write";

/**
 * One event on its way to one webhook: what the outbox keeps on disk until the receiver has it.
 * It names the webhook by a key (a hash of its URL), never by the URL, which may hold a secret.
 */
export interface PendingDelivery {
  version: 1;
  /** Orders deliveries: a later event to the same webhook has a higher seq. */
  seq: number;
  /** The event's id (the `webhook-id`). */
  id: string;
  type: string;
  /** The webhook's key (see webhookKey). */
  target: string;
  /** The request body: the event as structured CloudEvents JSON, exactly as signed and sent. */
  body: string;
  enqueuedAt: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (ms since the epoch). */
  nextAttemptAt: number;
  /** What the last attempt got (an HTTP status or a network error), for people. */
  lastError: string | null;
}

/** A line of the dead-letter file: a delivery given up, with why. */
export interface DeadLetter {
  deadAt: string;
  reason: string;
  id: string;
  type: string;
  target: string;
  attempts: number;
  lastError: string | null;
  enqueuedAt: string;
  body: string;
}

/**
 * The on-disk outbox of the webhook notifier: `<dir>/outbox/<seq>-<target>.json`, one file per
 * delivery, each written atomically (temporary file, fsync, rename), so a `kill -9` at any moment
 * leaves every enqueued delivery readable for the next process; `<dir>/dead-letter.jsonl` gets
 * the deliveries that exhausted their retries (or were pushed out of a full queue).
 */
export class EventOutbox {
  readonly outboxDir: string;
  readonly deadLetterPath: string;

  constructor(
    readonly dir: string,
    private readonly warn: (line: string) => void = () => {},
  ) {
    this.outboxDir = join(dir, "outbox");
    this.deadLetterPath = join(dir, "dead-letter.jsonl");
    mkdirSync(this.outboxDir, { recursive: true });
  }

  /** Every pending delivery, by seq. Leftovers of a cut-short write are removed; an unreadable file is set aside (`.unreadable`) with a warning. */
  load(): PendingDelivery[] {
    const out: PendingDelivery[] = [];
    for (const name of readdirSync(this.outboxDir)) {
      const path = join(this.outboxDir, name);
      if (isAtomicWriteLeftover(name)) {
        unlinkSync(path);
        continue;
      }
      if (!name.endsWith(".json")) continue;
      try {
        const d = JSON.parse(readFileSync(path, "utf8")) as PendingDelivery;
        if (d.version !== 1 || typeof d.seq !== "number" || typeof d.body !== "string" || typeof d.target !== "string")
          throw new Error("not a pending delivery");
        out.push(d);
      } catch (e) {
        this.warn(`event outbox: setting aside ${path}: ${(e as Error).message}`);
        renameSync(path, `${path}.unreadable`);
      }
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** Writes (or rewrites, after an attempt) a delivery's file. */
  save(d: PendingDelivery): void {
    writeFileAtomic(this.pathOf(d), `${JSON.stringify(d)}\n`);
  }

  /** Removes a delivered delivery. */
  remove(d: PendingDelivery): void {
    try {
      unlinkSync(this.pathOf(d));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }

  /**
   * Appends the delivery to the dead-letter file (one line, one write, fsynced by the OS at its
   * pace), then removes it from the outbox: a kill between the two leaves it in both, and the next
   * process dead-letters it again (a duplicate line rather than a lost event).
   */
  deadLetter(d: PendingDelivery, reason: string, at = new Date()): void {
    const line: DeadLetter = {
      deadAt: at.toISOString(),
      reason,
      id: d.id,
      type: d.type,
      target: d.target,
      attempts: d.attempts,
      lastError: d.lastError,
      enqueuedAt: d.enqueuedAt,
      body: d.body,
    };
    appendFileSync(this.deadLetterPath, `${JSON.stringify(line)}\n`, { mode: 0o600 });
    this.remove(d);
  }

  private pathOf(d: PendingDelivery): string {
    return join(this.outboxDir, `${String(d.seq).padStart(12, "0")}-${d.target}.json`);
  }
}
