import { createHash } from "node:crypto";
import type { ScanCacheSettings } from "../../platform/settings/scan-cache-settings";
import type { DocumentStore } from "../state/state-ports";
import type { ArtifactFiles } from "./artifact-files";
import { probeEngine } from "./engine-identity";
import { decodeEntry, encodeEntry, scanCacheKey, type ScanCacheEntry, type ScanCacheInput, type ScanOutcome } from "./scan-cache-entry";
import type { ArtifactScanService } from "./scan-service";

/** How long an engine probe's answer is believed within one process (a `watch` asks again after this). */
export const ENGINE_PROBE_TTL_MS = 60_000;
/** Entries and path hashes kept in memory too, most recently used first. */
const MEMORY_ENTRIES = 512;

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
  /** A local directory: the engine probe's empty file lives there. */
  readonly dir: string;
  readonly maxBytes: number;
  /** Where entries (`<key>.json`) and path hashes (`paths/<hash>.json`) are kept: the files of `dir` (localScanCacheStorage of src/platform/files/artifact-files.ts), or memory. */
  private readonly docs: DocumentStore;
  /** Where the engine probe's empty file is made. */
  private readonly files: Pick<ArtifactFiles, "ensureEmptyFile">;
  private readonly recent = new Map<string, ScanCacheEntry>();
  private readonly hashes = new Map<string, { stamp: string; sha256: string; size: number }>();
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly engines = new Map<string, { at: number; engine: Promise<string | undefined> }>();
  private writeFailure = false;

  constructor(settings: Pick<ScanCacheSettings, "dir" | "maxBytes">, docs: DocumentStore, files: Pick<ArtifactFiles, "ensureEmptyFile">) {
    this.dir = settings.dir;
    this.maxBytes = settings.maxBytes;
    this.docs = docs;
    this.files = files;
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
  engine(client: ArtifactScanService, signal?: AbortSignal): Promise<string | undefined> {
    const known = this.engines.get(client.endpoint);
    if (known && Date.now() - known.at < ENGINE_PROBE_TTL_MS) return known.engine;
    const entry = { at: Date.now(), engine: probeEngine(client, this.files, this.dir, signal) };
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
    const name = hintName(file);
    try {
      const stored = await this.docs.get(name);
      if (!stored) return undefined;
      const doc = JSON.parse(stored.text) as { file?: unknown; stamp?: unknown; sha256?: unknown; size?: unknown };
      if (doc.file !== file || doc.stamp !== stamp || typeof doc.sha256 !== "string" || typeof doc.size !== "number") return undefined;
      const hint = { stamp, sha256: doc.sha256, size: doc.size };
      remember(this.hashes, file, hint);
      await this.docs.touch(name);
      return hint;
    } catch {
      return undefined;
    }
  }

  /** Records the sha-256 `file` had at `stamp` (the hint above). */
  async rememberHash(file: string, stamp: string, sha256: string, size: number, warn: (line: string) => void): Promise<void> {
    remember(this.hashes, file, { stamp, sha256, size });
    await this.write(hintName(file), JSON.stringify({ file, stamp, sha256, size }), warn);
  }

  /** Whether an entry for `key` is at hand (not yet checked: `lookup` does that). */
  async has(key: string): Promise<boolean> {
    return this.recent.has(key) || (await this.docs.get(entryName(key)).catch(() => undefined)) !== undefined;
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
    const name = entryName(key);
    const stored = await this.docs.get(name).catch(() => undefined);
    if (!stored) return undefined;
    const decoded = decodeEntry(stored.text, key);
    if (!decoded.ok) {
      warn(`scan cache: ignoring the entry ${this.docs.where(name)}: ${decoded.problem}; scanning the artifact again`);
      await this.docs.delete(name).catch(() => undefined);
      return undefined;
    }
    remember(this.recent, key, decoded.entry);
    await this.docs.touch(name);
    return decoded.entry;
  }

  /** Keeps what a scan of `input` found. Failing to write is one warning (per cache) and no error: the result stands. */
  async store(input: ScanCacheInput, outcome: ScanOutcome, scannedAt: string, warn: (line: string) => void): Promise<void> {
    const key = scanCacheKey(input);
    remember(this.recent, key, { key, input, scannedAt, outcome });
    const text = encodeEntry({ input, scannedAt, outcome });
    // One entry may not crowd out the rest (a rule matching thousands of strings).
    if (Buffer.byteLength(text) > this.maxBytes / 4) return;
    await this.write(entryName(key), text, warn);
  }

  /**
   * Evicts the least recently used files (entries and path hashes; a hit or a hint's use counts as
   * a use) until the directory holds at most `maxBytes`, and removes temporary files that a process
   * which died while writing left behind. Safe beside other processes doing the same.
   */
  async sweep(): Promise<{ files: number; bytes: number; evicted: number }> {
    const files = [...(await this.docs.list("")), ...(await this.docs.list("paths/"))].filter((f) => f.name.endsWith(".json"));
    let bytes = files.reduce((n, f) => n + f.size, 0);
    let evicted = 0;
    if (bytes > this.maxBytes) {
      files.sort((a, b) => a.modifiedMs - b.modifiedMs);
      for (const f of files) {
        if (bytes <= this.maxBytes) break;
        await this.docs.delete(f.name).catch(() => undefined);
        bytes -= f.size;
        evicted += 1;
      }
    }
    return { files: files.length - evicted, bytes, evicted };
  }

  /** Where an entry is kept (a path, for messages and tests). */
  entryPath(key: string): string {
    return this.docs.where(entryName(key));
  }

  private async write(name: string, text: string, warn: (line: string) => void): Promise<void> {
    try {
      await this.docs.put(name, text);
    } catch (e) {
      if (!this.writeFailure) {
        this.writeFailure = true;
        warn(
          `scan cache: cannot write to ${this.dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); results of this run are not kept (set STACKWARDEN_CACHE_DIR, or STACKWARDEN_SCAN_CACHE=off)`,
        );
      }
    }
  }
}

/** `<key>.json` */
function entryName(key: string): string {
  return `${key}.json`;
}

/** `paths/<sha-256 of the path>.json` */
function hintName(file: string): string {
  return `paths/${createHash("sha256").update(file).digest("hex")}.json`;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MEMORY_ENTRIES) map.delete(map.keys().next().value as string);
}

const byDir = new Map<string, ScanCache>();

/** Where a scan cache keeps its entries, and makes the engine probe's file: this machine's disk in src/platform/files/artifact-files.ts. */
export interface ScanCacheStorage {
  /** The entries of the cache in `dir`. */
  documentsAt(dir: string): DocumentStore;
  files: Pick<ArtifactFiles, "ensureEmptyFile">;
}

/**
 * The process's scan cache for these settings (one instance per directory, so every scan of the
 * process shares its memory), kept in `storage`; undefined when disabled (`STACKWARDEN_SCAN_CACHE=off`).
 */
export function scanCacheFor(settings: ScanCacheSettings, storage: ScanCacheStorage): ScanCache | undefined {
  if (!settings.enabled) return undefined;
  const id = `${settings.dir}\0${settings.maxBytes}`;
  let cache = byDir.get(id);
  if (!cache) byDir.set(id, (cache = new ScanCache(settings, storage.documentsAt(settings.dir), storage.files)));
  return cache;
}
