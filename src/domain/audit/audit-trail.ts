import type { AuditEntry, AuditRecord } from "./audit-entry";
import { chainEntry } from "./audit-chain";
import { StackwardenError } from "../../platform/errors/stackwarden-error";
import type { AuditLog } from "../state/state-ports";

/** The trail cannot be appended to safely (its end is damaged). */
export class AuditTrailError extends StackwardenError {
  constructor(message: string) {
    super("SW_AUDIT_TRAIL_DAMAGED", message);
    this.name = "AuditTrailError";
  }
}

/** How many times an append re-reads the end after losing a race to another writer before it gives up. */
const MAX_APPEND_RACES = 50;

/**
 * A stack's append-only audit trail: one JSON line per apply, each carrying the sha-256 of the
 * line before it. Appends are conditional in the store (the entry goes after the line it was
 * chained to, or not at all), so two writers never fork the chain and none is lost: the one that
 * loses the race re-reads the end and chains after the winner.
 */
export class AuditTrail {
  constructor(
    private readonly log: AuditLog,
    readonly stack: string,
  ) {}

  /** Where the trail lives (a path or URL), for messages. */
  get where(): string {
    return this.log.where(this.stack);
  }

  /** The whole trail as text (what `audit verify` judges); undefined when the stack has none. */
  text(): Promise<string | undefined> {
    return this.log.read(this.stack);
  }

  /**
   * The last line (its seq and text). Throws AuditTrailError when the trail ends in a partial line
   * or a line that is not an entry, so that an apply can refuse to start before it changes anything.
   */
  async tail(): Promise<{ line: string; seq: number } | undefined> {
    const end = await this.log.end(this.stack);
    if (!end) return undefined;
    if (!("line" in end)) {
      throw new AuditTrailError(
        `the audit trail ${end.where} ends in a partial line (a write was cut off): run \`stackwarden audit verify\`, then move it aside to start a new trail`,
      );
    }
    let seq: unknown;
    try {
      seq = (JSON.parse(end.line) as Partial<AuditEntry>).seq;
    } catch {
      /* reported below */
    }
    if (typeof seq !== "number") {
      throw new AuditTrailError(
        `the last line of the audit trail ${this.where} is not an audit entry: run \`stackwarden audit verify\`, then move it aside to start a new trail`,
      );
    }
    return { line: end.line, seq };
  }

  /** Appends one entry chained to the current last line; durable when it resolves. */
  async append(record: AuditRecord): Promise<AuditEntry> {
    for (let race = 0; race < MAX_APPEND_RACES; race++) {
      const previous = await this.tail();
      const { entry, line } = chainEntry(record, previous);
      if ((await this.log.append(this.stack, entry.seq, line, previous?.line)) === "appended") return entry;
    }
    throw new StackwardenError(
      "SW_STATE_UNAVAILABLE",
      `could not append to the audit trail ${this.where}: other writers appended first ${MAX_APPEND_RACES} times in a row`,
    );
  }
}
