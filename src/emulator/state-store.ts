import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

/** What is kept on disk: each service's data plus the emulator's own (token key, clock offset). */
export interface PersistedState {
  version: 1;
  emulator: { tokenKey: string; clockOffsetMs: number };
  services: Record<string, unknown>;
  /** The last journal entry this snapshot already holds (entries up to it are skipped on load). */
  journalSeq?: number;
}

/** A place in the state: keys and array indexes from its root (`["services", "sql", "servers", 0]`). */
export type StatePath = readonly (string | number)[];

const SNAPSHOT = "state.json";
const JOURNAL = "state.journal";

/** One journal line: the value found at `path` after a change. */
interface JournalEntry {
  seq: number;
  path: StatePath;
  value: unknown;
}

export interface StateStoreOptions {
  /**
   * The journal is compacted into a new snapshot once it is larger than this share of the last
   * snapshot (default 1: the journal never outgrows the state it describes, so the bytes written
   * per change stay proportional to the change, amortized) …
   */
  compactRatio?: number;
  /** … and larger than this many bytes (default 1 MiB), so a small state is not rewritten for a few entries. */
  minCompactBytes?: number;
  /** How often written journal entries are fsynced, in ms (default 1000); a snapshot is fsynced at once. */
  syncIntervalMs?: number;
}

/**
 * The emulator's state: in memory, and persisted under a directory when one is given, as a
 * snapshot (`state.json`) plus an append-only journal (`state.journal`) of the parts that changed.
 *
 * - A change names its place (`changed(path)`); at the end of the event-loop turn each changed
 *   place is appended once, as one JSON line with its current value. 10 000 TDE writes append
 *   10 000 small lines instead of rewriting a 10 000-database state 10 000 times.
 * - When the journal outgrows the snapshot, it is compacted: a new snapshot is written to a
 *   temporary file, fsynced and renamed over the old one (so a kill at any moment leaves the old or
 *   the new snapshot, never a torn one), then the journal is emptied. The snapshot records the last
 *   entry it holds, so entries a kill left in the journal after the rename are not applied twice.
 * - A kill -9 loses nothing that was written: the kernel has it. A kill in the middle of an append
 *   can leave a torn last line; loading drops it (and cuts it off the file, so later appends start
 *   on a clean line). Journal appends are fsynced at most once a second, so a power loss (not a
 *   kill) may lose the last second of changes; snapshots are fsynced before they replace the old one.
 */
export class StateStore {
  /** Flushes that reached the disk (journal appends or snapshots). */
  writes = 0;
  /** Snapshots written (at start, on compaction, on close). */
  snapshots = 0;
  private readonly pending = new Map<string, StatePath>();
  private everything = false;
  private scheduled = false;
  private seq: number;
  private journalFd: number | undefined;
  private journalBytes = 0;
  private snapshotBytes = 0;
  private unsynced = false;
  /** After close, nothing more is written: the directory may already belong to the next emulator. */
  private closed = false;
  private syncTimer: NodeJS.Timeout | undefined;
  private readonly compactRatio: number;
  private readonly minCompactBytes: number;
  private readonly syncIntervalMs: number;

  constructor(
    readonly state: PersistedState,
    private readonly dir?: string,
    opts: StateStoreOptions = {},
  ) {
    this.seq = state.journalSeq ?? 0;
    this.compactRatio = opts.compactRatio ?? 1;
    this.minCompactBytes = opts.minCompactBytes ?? 1024 * 1024;
    this.syncIntervalMs = opts.syncIntervalMs ?? 1000;
  }

  /**
   * Loads the state from `dir` when it holds one: the snapshot with the journal replayed over it.
   * A torn last journal line (a kill in the middle of an append) is dropped; anything else that
   * does not parse is an error naming the file. Undefined when the directory holds no state.
   */
  static load(dir: string): PersistedState | undefined {
    const path = join(dir, SNAPSHOT);
    const journalPath = join(dir, JOURNAL);
    if (!existsSync(path)) return undefined;
    let parsed: PersistedState;
    try {
      parsed = JSON.parse(readFileSync(path, "utf8")) as PersistedState;
    } catch (e) {
      throw new Error(`${path}: the state file is not valid JSON (${(e as Error).message}); move it away to start from the seed`, {
        cause: e,
      });
    }
    if (parsed?.version !== 1 || typeof parsed.services !== "object") {
      throw new Error(`${path}: not a stackwarden emulator state (version ${String(parsed?.version)})`);
    }
    if (!existsSync(journalPath)) return parsed;
    const { entries, validBytes, totalBytes } = readJournal(journalPath);
    if (validBytes < totalBytes) cutJournal(journalPath, validBytes);
    let seq = parsed.journalSeq ?? 0;
    for (const e of entries) {
      if (e.seq <= seq) continue; // already in the snapshot (a kill between a compaction's rename and its truncate)
      setAt(parsed, e.path, e.value);
      seq = e.seq;
    }
    parsed.journalSeq = seq;
    return parsed;
  }

  /**
   * Marks a part of the state changed (`path` from the state's root), or all of it (no path). The
   * write happens once per turn of the event loop, however many changes: one journal line per
   * changed place, or one snapshot when everything changed.
   */
  changed(path?: StatePath): void {
    if (!this.dir || this.closed) return;
    if (path === undefined || path.length === 0) this.everything = true;
    else this.pending.set(JSON.stringify(path), path);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Writes what changed now: journal lines, or a snapshot when everything changed or the journal has grown too big. */
  flush(): void {
    if (!this.dir || this.closed || (!this.everything && this.pending.size === 0)) return;
    if (this.everything) {
      this.pending.clear();
      this.everything = false;
      this.snapshot();
      return;
    }
    let text = "";
    for (const path of this.pending.values()) {
      this.seq += 1;
      const entry: JournalEntry = { seq: this.seq, path, value: valueAt(this.state, path) };
      text += `${JSON.stringify(entry)}\n`;
    }
    this.pending.clear();
    const fd = this.openJournal();
    const bytes = Buffer.from(text);
    writeSync(fd, bytes);
    this.journalBytes += bytes.length;
    this.writes += 1;
    this.scheduleSync();
    if (this.journalBytes > Math.max(this.minCompactBytes, this.snapshotBytes * this.compactRatio)) this.snapshot();
  }

  /**
   * Writes pending changes, compacts the journal into the snapshot, and releases the files (on a
   * clean stop). Changes after it are not persisted: a request still in flight when its emulator
   * stopped (a delayed one, say) must not append to a journal that a restarted emulator on the same
   * directory now writes, with journal numbers of its own.
   */
  close(): void {
    if (!this.dir || this.closed) return;
    this.flush();
    this.closed = true;
    if (this.journalBytes > 0 || this.journalFd !== undefined) this.snapshot();
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    if (this.journalFd !== undefined) closeSync(this.journalFd);
    this.journalFd = undefined;
  }

  /** Removes temporary files that a killed process left behind. */
  static sweep(dir: string): void {
    if (!existsSync(dir)) return;
    for (const f of readdirSync(dir)) if (f.startsWith(`.${SNAPSHOT}.`) && f.endsWith(".tmp")) unlinkSync(join(dir, f));
  }

  /** A new snapshot (temporary file, fsync, rename), then an empty journal. */
  private snapshot(): void {
    const dir = this.dir!;
    mkdirSync(dir, { recursive: true });
    this.state.journalSeq = this.seq;
    const tmp = join(dir, `.${SNAPSHOT}.${process.pid}.tmp`);
    const body = Buffer.from(JSON.stringify(this.state));
    const fd = openSync(tmp, "w");
    try {
      writeSync(fd, body);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(dir, SNAPSHOT));
    // Only now may the journal go: until the rename, its entries were the only record of the changes.
    const journal = this.openJournal();
    ftruncateSync(journal, 0);
    fsyncSync(journal);
    this.unsynced = false;
    this.journalBytes = 0;
    this.snapshotBytes = body.length;
    this.writes += 1;
    this.snapshots += 1;
  }

  private openJournal(): number {
    if (this.journalFd === undefined) {
      mkdirSync(this.dir!, { recursive: true });
      this.journalFd = openSync(join(this.dir!, JOURNAL), "a");
      this.journalBytes = fstatSync(this.journalFd).size;
    }
    return this.journalFd;
  }

  private scheduleSync(): void {
    this.unsynced = true;
    if (this.syncTimer) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      if (this.unsynced && this.journalFd !== undefined) fsyncSync(this.journalFd);
      this.unsynced = false;
    }, this.syncIntervalMs);
    this.syncTimer.unref();
  }
}

/** The parsed lines of a journal, and how many of its bytes form whole, valid lines. */
function readJournal(path: string): { entries: JournalEntry[]; validBytes: number; totalBytes: number } {
  const buf = readFileSync(path);
  const entries: JournalEntry[] = [];
  let start = 0;
  let line = 0;
  while (start < buf.length) {
    line += 1;
    const end = buf.indexOf(0x0a, start);
    if (end < 0) break; // a last line without its newline: torn by a kill in the middle of an append
    let entry: JournalEntry | undefined;
    try {
      entry = JSON.parse(buf.toString("utf8", start, end)) as JournalEntry;
    } catch {
      entry = undefined;
    }
    if (!entry || typeof entry.seq !== "number" || !Array.isArray(entry.path)) {
      if (end + 1 >= buf.length) break; // the last line: torn, dropped
      throw new Error(
        `${path}:${line}: the state journal has a line that is not an entry; move the state directory away to start from the seed`,
      );
    }
    entries.push(entry);
    start = end + 1;
  }
  return { entries, validBytes: start, totalBytes: buf.length };
}

/** Cuts a torn tail off the journal, so the next append starts a line of its own. */
function cutJournal(path: string, length: number): void {
  const fd = openSync(path, "r+");
  try {
    ftruncateSync(fd, length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function valueAt(root: unknown, path: StatePath): unknown {
  let node = root as Record<string | number, unknown> | undefined;
  for (const k of path) node = node?.[k] as Record<string | number, unknown> | undefined;
  return node;
}

/** Puts `value` at `path`, creating the containers on the way (an object, or an array before an index). */
function setAt(root: unknown, path: StatePath, value: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i];
    if (node[k] === null || typeof node[k] !== "object") node[k] = typeof path[i + 1] === "number" ? [] : {};
    node = node[k] as Record<string | number, unknown>;
  }
  node[path[path.length - 1]] = value;
}
