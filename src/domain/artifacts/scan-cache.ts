import { createHash, randomBytes } from "node:crypto";
import { existsSync, type BigIntStats } from "node:fs";
import { mkdir, readdir, readFile, rename, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { BinaryAnalysisClient } from "../../services/binary-analysis/client";
import { probeEngine } from "./engine-identity";
import { decodeEntry, encodeEntry, scanCacheKey, type ScanCacheEntry, type ScanCacheInput, type ScanOutcome } from "./scan-cache-entry";
import { scanCacheSettingsFromEnv, type ScanCacheSettings } from "./scan-cache-settings";

/** How long an engine probe's answer is believed within one process (a `watch` asks again after this). */
export const ENGINE_PROBE_TTL_MS = 60_000;
/** Entries and path hashes kept in memory too, most recently used first. */
const MEMORY_ENTRIES = 512;
/** Temporary files older than this are left-overs of a process that died while writing: the sweep removes them. */
const STALE_TEMP_MS = 60 * 60_000;

/** What a file looked like when it was hashed: a changed file has another stamp (size, times, inode). */
export function fileStamp(s: BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/**
 * A content-addressed cache of scan results: an entry per (artifact sha-256, rule-set digest,
 * engine, stackwarden version) in a directory shared by every process of the user, written to a
 * temporary file and renamed (so a reader sees a whole entry or none), checked when read (a
 * damaged one is reported, removed and rescanned), and bounded in size (the least recently used
 * entries go first). In memory it also shares one scan among concurrent requests for one file.
 *
 * Besides the entries it keeps, per artifact path, the sha-256 the file had when last hashed and
 * the file's stamp then (`paths/`). That is only a hint of which order to work in: when it says an
 * entry exists, the file is hashed before anything is sent (an unchanged artifact is never
 * uploaded); otherwise the upload starts at once, with the hashing beside it. Which entry is used
 * always follows from the hash of the bytes read now.
 */
export class ScanCache {
  readonly dir: string;
  readonly maxBytes: number;
  private readonly pathsDir: string;
  private readonly recent = new Map<string, ScanCacheEntry>();
  private readonly hashes = new Map<string, { stamp: string; sha256: string; size: number }>();
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly engines = new Map<string, { at: number; engine: Promise<string | undefined> }>();
  private writeFailure = false;

  constructor(settings: Pick<ScanCacheSettings, "dir" | "maxBytes">) {
    this.dir = settings.dir;
    this.maxBytes = settings.maxBytes;
    this.pathsDir = join(this.dir, "paths");
  }

  /** Runs `work` once for concurrent callers of one `id`; later callers get the running call's promise. */
  shared<T>(id: string, work: () => Promise<T>): Promise<T> {
    const running = this.inflight.get(id) as Promise<T> | undefined;
    if (running) return running;
    const p = work().finally(() => this.inflight.delete(id));
    this.inflight.set(id, p);
    return p;
  }

  /**
   * The engine the client's service runs (engine-identity.ts), asked at most once a minute per
   * endpoint; concurrent callers share one probe. A failed probe is thrown to its callers and not kept.
   */
  engine(client: BinaryAnalysisClient, signal?: AbortSignal): Promise<string | undefined> {
    const known = this.engines.get(client.endpoint);
    if (known && Date.now() - known.at < ENGINE_PROBE_TTL_MS) return known.engine;
    const entry = { at: Date.now(), engine: probeEngine(client, this.dir, signal) };
    entry.engine.catch(() => {
      if (this.engines.get(client.endpoint) === entry) this.engines.delete(client.endpoint);
    });
    this.engines.set(client.endpoint, entry);
    return entry.engine;
  }

  /** The sha-256 and size `file` had when last hashed, if its stamp is still the same. */
  async hashHint(file: string, stamp: string): Promise<{ sha256: string; size: number } | undefined> {
    const mem = this.hashes.get(file);
    if (mem) return mem.stamp === stamp ? mem : undefined;
    const path = this.hintPath(file);
    try {
      const doc = JSON.parse(await readFile(path, "utf8")) as { file?: unknown; stamp?: unknown; sha256?: unknown; size?: unknown };
      if (doc.file !== file || doc.stamp !== stamp || typeof doc.sha256 !== "string" || typeof doc.size !== "number") return undefined;
      const hint = { stamp, sha256: doc.sha256, size: doc.size };
      remember(this.hashes, file, hint);
      await touch(path);
      return hint;
    } catch {
      return undefined;
    }
  }

  /** Records the sha-256 `file` had at `stamp` (the hint above). */
  async rememberHash(file: string, stamp: string, sha256: string, size: number, warn: (line: string) => void): Promise<void> {
    remember(this.hashes, file, { stamp, sha256, size });
    await this.writeAtomically(this.hintPath(file), JSON.stringify({ file, stamp, sha256, size }), warn);
  }

  /** Whether an entry for `key` is at hand (not yet checked: `lookup` does that). */
  has(key: string): boolean {
    return this.recent.has(key) || existsSync(this.entryPath(key));
  }

  /**
   * The entry for `input`, checked: undefined when there is none, and when the stored one is
   * damaged, truncated or another key's (then it is removed, with one warning line naming it).
   */
  async lookup(input: ScanCacheInput, warn: (line: string) => void): Promise<ScanCacheEntry | undefined> {
    const key = scanCacheKey(input);
    const mem = this.recent.get(key);
    if (mem) {
      remember(this.recent, key, mem);
      return mem;
    }
    const path = this.entryPath(key);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch {
      return undefined;
    }
    const decoded = decodeEntry(text, key);
    if (!decoded.ok) {
      warn(`scan cache: ignoring the entry ${path}: ${decoded.problem}; scanning the artifact again`);
      await unlink(path).catch(() => undefined);
      return undefined;
    }
    remember(this.recent, key, decoded.entry);
    await touch(path);
    return decoded.entry;
  }

  /** Keeps what a scan of `input` found. Failing to write is one warning (per cache) and no error: the result stands. */
  async store(input: ScanCacheInput, outcome: ScanOutcome, scannedAt: string, warn: (line: string) => void): Promise<void> {
    const key = scanCacheKey(input);
    remember(this.recent, key, { key, input, scannedAt, outcome });
    const text = encodeEntry({ input, scannedAt, outcome });
    // One entry may not crowd out the rest (a rule matching thousands of strings).
    if (Buffer.byteLength(text) > this.maxBytes / 4) return;
    await this.writeAtomically(this.entryPath(key), text, warn);
  }

  /**
   * Evicts the least recently used files (entries and path hashes; a hit or a hint's use counts as
   * a use) until the directory holds at most `maxBytes`, and removes temporary files that a process
   * which died while writing left behind. Safe beside other processes doing the same.
   */
  async sweep(): Promise<{ files: number; bytes: number; evicted: number }> {
    const files: { path: string; size: number; mtimeMs: number }[] = [];
    const now = Date.now();
    for (const dir of [this.dir, this.pathsDir]) {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        const path = join(dir, name);
        const isTemp = name.endsWith(".tmp");
        if (!isTemp && !name.endsWith(".json")) continue;
        try {
          const s = await stat(path);
          if (!s.isFile()) continue;
          if (isTemp) {
            if (now - s.mtimeMs > STALE_TEMP_MS) await unlink(path).catch(() => undefined);
            continue;
          }
          files.push({ path, size: s.size, mtimeMs: s.mtimeMs });
        } catch {
          // Removed by another process meanwhile.
        }
      }
    }
    let bytes = files.reduce((n, f) => n + f.size, 0);
    let evicted = 0;
    if (bytes > this.maxBytes) {
      files.sort((a, b) => a.mtimeMs - b.mtimeMs);
      for (const f of files) {
        if (bytes <= this.maxBytes) break;
        await unlink(f.path).catch(() => undefined);
        bytes -= f.size;
        evicted += 1;
      }
    }
    return { files: files.length - evicted, bytes, evicted };
  }

  /** The file of an entry. */
  entryPath(key: string): string {
    return join(this.dir, `${key}.json`);
  }

  private hintPath(file: string): string {
    return join(this.pathsDir, `${createHash("sha256").update(file).digest("hex")}.json`);
  }

  private async writeAtomically(path: string, text: string, warn: (line: string) => void): Promise<void> {
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      await mkdir(join(path, ".."), { recursive: true });
      await writeFile(tmp, text);
      await rename(tmp, path);
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      if (!this.writeFailure) {
        this.writeFailure = true;
        warn(
          `scan cache: cannot write to ${this.dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); results of this run are not kept (set STACKWARDEN_CACHE_DIR, or STACKWARDEN_SCAN_CACHE=off)`,
        );
      }
    }
  }
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MEMORY_ENTRIES) map.delete(map.keys().next().value as string);
}

/** Marks a file as just used (its modification time orders the eviction). */
async function touch(path: string): Promise<void> {
  const now = new Date();
  await utimes(path, now, now).catch(() => undefined);
}

const byDir = new Map<string, ScanCache>();

/**
 * The process's scan cache for the environment's settings (one instance per directory, so every
 * scan of the process shares its memory), or undefined when `STACKWARDEN_SCAN_CACHE=off`.
 */
export function scanCacheFromEnv(env: NodeJS.ProcessEnv = process.env): ScanCache | undefined {
  return scanCacheFor(scanCacheSettingsFromEnv(env));
}

/** The process's scan cache for these settings (undefined when disabled). */
export function scanCacheFor(settings: ScanCacheSettings): ScanCache | undefined {
  if (!settings.enabled) return undefined;
  const id = `${settings.dir}\0${settings.maxBytes}`;
  let cache = byDir.get(id);
  if (!cache) byDir.set(id, (cache = new ScanCache(settings)));
  return cache;
}
