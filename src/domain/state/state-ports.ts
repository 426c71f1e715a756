import type { LockHolder, LockRequest } from "../../platform/state/lock-holder";

export type { LockRequest };

/**
 * What the domain needs of the state that machines share (locks, audit trails, probe results, the
 * watcher's status and event outbox, the scan cache), as small interfaces. The adapters live in
 * `src/platform/state/` (local files, the default; Azure Blob Storage) and satisfy these
 * structurally; one contract test suite runs over every adapter. Nothing in the domain touches a
 * file or a blob itself.
 */

/** A lock held by this process. */
export interface HeldLease {
  /** The holder as written (its `since` is when the lock was taken). */
  holder: LockHolder;
  /** Time spent waiting for it, in ms (0 when it was free). */
  waitedMs: number;
  /** When the lease lapses unless renewed (ms since the epoch); absent where locks do not lapse by time alone. */
  expiresAt?(): number;
  /** The holder of a dead process's lock that was taken over, if any. */
  recovered?: LockHolder;
  /** Aborted when the lock is lost while held (lapsed, broken, taken over): writing must stop. */
  lost: AbortSignal;
  /**
   * Fencing: resolves while the lock is still ours, throws (SW_LOCK_LOST) once it is not. Called
   * right before every write to the cloud, so a process paused past its lease sends nothing more.
   */
  check(): Promise<void>;
  release(): Promise<void>;
}

/** Either the lock, or who has it. */
export type LockAttempt = { held: true; lease: HeldLease } | { held: false; holder: LockHolder | undefined; waitedMs: number };

/** Per-stack locks. */
export interface LockStore {
  acquire(request: LockRequest): Promise<LockAttempt>;
  /** Who holds the lock now; undefined when it is free (or its holder is not written yet). */
  holder(name: string): Promise<LockHolder | undefined>;
  /** Breaks the lock whoever holds it; returns whom it was taken from (undefined: it was free). */
  break(name: string): Promise<LockHolder | undefined>;
  /** Where the lock lives, for messages (a path or a URL without secrets). */
  where(name: string): string;
  /** How long a lease lasts unless renewed, in ms, where locks are leases (Blob Storage). */
  readonly leaseMs?: number;
}

/** The last line of a log, or why it cannot be chained onto. */
export type LogEnd = { line: string } | { damaged: "partial-line"; where: string };

/** Per-stack append-only logs of JSON lines (the audit trails). */
export interface AuditLog {
  /** The whole log as text, one line per entry, each ending in "\n"; undefined when the stack has none. */
  read(name: string): Promise<string | undefined>;
  /** The last complete line; undefined when the log is empty or missing. */
  end(name: string): Promise<LogEnd | undefined>;
  /** The last `count` lines, oldest first, reading only the log's end (a line cut short is left out); [] when there is none. */
  recent(name: string, count: number): Promise<string[]>;
  /**
   * Appends `line` as entry `seq`, if the log still ends with `previous` (undefined: the log must
   * be empty). `conflict` when another writer appended first: re-read the end and chain after it.
   * Durable when it resolves.
   */
  append(name: string, seq: number, line: string, previous: string | undefined): Promise<"appended" | "conflict">;
  /** Where the log lives, for messages. */
  where(name: string): string;
  /** The record of an apply under way, kept beside the log while it runs (undefined: none). */
  readPending(name: string): Promise<string | undefined>;
  /** Keeps (text) or removes (undefined) the record of an apply under way; atomic. */
  writePending(name: string, text: string | undefined): Promise<void>;
}

/** One stored document with its version tag (for conditional writes). */
export interface StoredDocument {
  text: string;
  etag: string;
}

/** A document's name and what listing says of it. */
export interface DocumentInfo {
  name: string;
  size: number;
  /** When it was last written or touched, in ms since the epoch. */
  modifiedMs: number;
}

/** Write conditions: `ifMatch` an etag read before, or `ifNoneMatch: "*"` to create only. */
export interface WriteCondition {
  ifMatch?: string;
  ifNoneMatch?: "*";
}

/**
 * Named text documents in one area (probe results, watcher status, the event outbox, the scan
 * cache). Names are relative paths (`stacks/dev.json`); writes are atomic: a reader sees the old
 * document or the new one, never part of one.
 */
export interface DocumentStore {
  get(name: string): Promise<StoredDocument | undefined>;
  /** Writes a document; with a condition, resolves `undefined` when it does not hold (someone else wrote first). */
  put(name: string, text: string, condition?: WriteCondition): Promise<string | undefined>;
  /** Removes a document (nothing when it is not there). */
  delete(name: string): Promise<void>;
  /** The documents whose names start with `prefix`, by name. Leftovers of a cut-short write are cleaned, never listed. */
  list(prefix: string): Promise<DocumentInfo[]>;
  /** Appends one line to a log document (dead letters). */
  appendLine(name: string, line: string): Promise<void>;
  /** Marks a document as just used (what a least-recently-used eviction orders by). */
  touch(name: string): Promise<void>;
  /** Where a document lives, for messages. */
  where(name: string): string;
}

/** Every state port, as one adapter opens them. */
export interface StateStores {
  locks: LockStore;
  audit: AuditLog;
  probes: DocumentStore;
  /** The watcher's statuses. */
  status: DocumentStore;
  /** The watcher's event outbox and dead letters. */
  events: DocumentStore;
  /**
   * Claims the event outbox for this process where the store needs it (local files: one watcher
   * per directory), returning what gives it up; throws naming the holder when another has it.
   */
  claimOutbox?(): () => void;
  /** What the state is, for people: `files under .stackwarden` or the container's URL. */
  describe(): string;
  /**
   * The variables that open these same stores in a process this one starts (the Pulumi engine's
   * plugins, under `apply --engine pulumi`): the state URL and directories, resolved. Absent: such a
   * process reads the state from its own environment.
   */
  childEnv?: Readonly<Record<string, string>>;
}
