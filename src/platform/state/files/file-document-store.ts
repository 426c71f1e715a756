import { appendFileSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, utimesSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import lockfile from "proper-lockfile";
import { isAtomicWriteLeftover, writeFileAtomic, writeTempFile } from "./atomic-write";

/** A file's version tag: its inode, size and modification time (a rename over it changes the inode). */
function etagOf(path: string): string {
  const s = statSync(path, { bigint: true });
  return `${s.ino}-${s.size}-${s.mtimeNs}`;
}

/**
 * Named documents as files under `root` (`<root>/<name>`): written atomically (a temporary file,
 * fsync, rename), so a reader or a `kill -9` sees the old document or the new one. Conditional
 * writes compare the file's version tag under a short lock of the file (create-only: a hard link,
 * which fails when the name exists).
 */
export class FileDocumentStore {
  constructor(
    readonly root: string,
    private readonly mode = 0o600,
  ) {}

  where(name: string): string {
    return join(this.root, name);
  }

  async get(name: string): Promise<{ text: string; etag: string } | undefined> {
    const path = this.where(name);
    try {
      const etag = etagOf(path);
      return { text: readFileSync(path, "utf8"), etag };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }

  async put(name: string, text: string, condition?: { ifMatch?: string; ifNoneMatch?: "*" }): Promise<string | undefined> {
    const path = this.where(name);
    if (condition?.ifNoneMatch === "*") return createOnly(path, text, this.mode);
    if (condition?.ifMatch === undefined) {
      writeFileAtomic(path, text, this.mode);
      return etagOf(path);
    }
    mkdirSync(dirname(path), { recursive: true });
    const unlock = await lockfile.lock(path, {
      lockfilePath: `${path}.write.lock`,
      realpath: false,
      stale: 10_000,
      retries: { retries: 200, minTimeout: 5, maxTimeout: 50 },
    });
    try {
      let current: string | undefined;
      try {
        current = etagOf(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
      if (current !== condition.ifMatch) return undefined;
      writeFileAtomic(path, text, this.mode);
      return etagOf(path);
    } finally {
      await unlock();
    }
  }

  async delete(name: string): Promise<void> {
    try {
      unlinkSync(this.where(name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }

  async list(prefix: string): Promise<{ name: string; size: number; modifiedMs: number }[]> {
    const dir = prefix.endsWith("/") || prefix === "" ? join(this.root, prefix) : dirname(join(this.root, prefix));
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw e;
    }
    const out: { name: string; size: number; modifiedMs: number }[] = [];
    for (const entry of entries.sort()) {
      const path = join(dir, entry);
      const name = relative(this.root, path).split(sep).join("/");
      if (!name.startsWith(prefix)) continue;
      if (isAtomicWriteLeftover(entry)) {
        unlinkSync(path); // a write a kill cut short: the document it was replacing is intact
        continue;
      }
      if (entry.endsWith(".tmp") || entry.endsWith(".lock")) continue;
      try {
        const s = statSync(path);
        if (s.isFile()) out.push({ name, size: s.size, modifiedMs: s.mtimeMs });
      } catch {
        /* removed while listing */
      }
    }
    return out;
  }

  async appendLine(name: string, line: string): Promise<void> {
    const path = this.where(name);
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, `${line}\n`, { mode: this.mode });
  }

  async touch(name: string): Promise<void> {
    const now = new Date();
    try {
      utimesSync(this.where(name), now, now);
    } catch {
      /* gone: nothing to mark */
    }
  }
}

/** Creates `path` with `text` unless it exists (a hard link of a complete temporary file: all or nothing). */
function createOnly(path: string, text: string, mode: number): string | undefined {
  const tmp = writeTempFile(path, text, mode);
  try {
    linkSync(tmp, path);
    return etagOf(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw e;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
  }
}
