import type { DocumentStore } from "../../../domain/state/state-ports";
import { OrderedWrites } from "../../../usecases/ordered-writes";

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
 * The webhook notifier's outbox in the state store: `outbox/<seq>-<target>.json`, one document per
 * delivery, each written atomically, so a `kill -9` at any moment leaves every enqueued delivery
 * readable for the next process; `dead-letter.jsonl` gets the deliveries that exhausted their
 * retries (or were pushed out of a full queue). Writes go through `writes`, in the order asked.
 */
export class EventOutbox {
  readonly outboxDir: string;
  readonly deadLetterPath: string;

  constructor(
    private readonly docs: DocumentStore,
    private readonly warn: (line: string) => void = () => {},
    readonly writes = new OrderedWrites(warn),
  ) {
    this.outboxDir = docs.where("outbox");
    this.deadLetterPath = docs.where(DEAD_LETTER);
  }

  /** Every pending delivery, by seq. An unreadable document is set aside (`.unreadable`) with a warning. */
  async load(): Promise<PendingDelivery[]> {
    const out: PendingDelivery[] = [];
    for (const { name } of await this.docs.list("outbox/")) {
      if (!name.endsWith(".json")) continue;
      const doc = await this.docs.get(name);
      if (!doc) continue;
      try {
        const d = JSON.parse(doc.text) as PendingDelivery;
        if (d.version !== 1 || typeof d.seq !== "number" || typeof d.body !== "string" || typeof d.target !== "string")
          throw new Error("not a pending delivery");
        out.push(d);
      } catch (e) {
        this.warn(`event outbox: setting aside ${this.docs.where(name)}: ${(e as Error).message}`);
        await this.docs.put(`${name}.unreadable`, doc.text);
        await this.docs.delete(name);
      }
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** Writes (or rewrites, after an attempt) a delivery's document. */
  save(d: PendingDelivery): void {
    const text = `${JSON.stringify(d)}\n`;
    this.writes.run("event outbox", () => this.docs.put(nameOf(d), text));
  }

  /** Removes a delivered delivery. */
  remove(d: PendingDelivery): void {
    this.writes.run("event outbox", () => this.docs.delete(nameOf(d)));
  }

  /**
   * Appends the delivery to the dead-letter log (one line), then removes it from the outbox: a
   * kill between the two leaves it in both, and the next process dead-letters it again (a
   * duplicate line rather than a lost event).
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
    this.writes.run("event outbox", () => this.docs.appendLine(DEAD_LETTER, JSON.stringify(line)));
    this.remove(d);
  }

  /** Resolves once every write asked for so far has ended. */
  flushed(): Promise<void> {
    return this.writes.flushed();
  }
}

const DEAD_LETTER = "dead-letter.jsonl";

function nameOf(d: PendingDelivery): string {
  return `outbox/${String(d.seq).padStart(12, "0")}-${d.target}.json`;
}
