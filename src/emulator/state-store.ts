import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
  existsSync,
  unlinkSync,
  readdirSync,
} from "node:fs";
import { join } from "node:path";

/** What is kept on disk: each service's data plus the emulator's own (token key, clock offset). */
export interface PersistedState {
  version: 1;
  emulator: { tokenKey: string; clockOffsetMs: number };
  services: Record<string, unknown>;
}

const FILE = "state.json";

/**
 * The emulator's state: in memory, and persisted under a directory when one is given.
 * A write goes to a temporary file that is fsynced and then renamed over the old one, so a
 * process killed at any moment leaves either the old or the new state, never a torn one.
 */
export class StateStore {
  private dirty = false;
  private scheduled = false;
  writes = 0;

  constructor(
    readonly state: PersistedState,
    private readonly dir?: string,
  ) {}

  /** Loads the state from `dir` when it holds one; otherwise returns undefined. */
  static load(dir: string): PersistedState | undefined {
    const path = join(dir, FILE);
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
    return parsed;
  }

  /** Marks the state changed; the write happens once per turn of the event loop, however many changes. */
  changed(): void {
    if (!this.dir) return;
    this.dirty = true;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Writes the state now if it changed. */
  flush(): void {
    if (!this.dir || !this.dirty) return;
    this.dirty = false;
    mkdirSync(this.dir, { recursive: true });
    const target = join(this.dir, FILE);
    const tmp = join(this.dir, `.${FILE}.${process.pid}.tmp`);
    const fd = openSync(tmp, "w");
    try {
      writeSync(fd, JSON.stringify(this.state));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
    this.writes += 1;
  }

  /** Removes temporary files that a killed process left behind. */
  static sweep(dir: string): void {
    if (!existsSync(dir)) return;
    for (const f of readdirSync(dir)) if (f.startsWith(`.${FILE}.`) && f.endsWith(".tmp")) unlinkSync(join(dir, f));
  }
}
