import * as fs from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import lockfile from "proper-lockfile";
import { StackwardenError } from "../../errors/stackwarden-error";
import { lockHolderOf, type LockHolder, type LockRequest } from "../lock-holder";
import { stackFileKey } from "../../settings/state-dirs";
import { isProcessAlive } from "./process-alive";

/** How the file locks behave; every field has a default. */
export interface FileLockSettings {
  /**
   * A lock whose holder stopped refreshing it for this long is taken over, in ms (holders refresh
   * it every staleMs / 3). This is what recovers a lock held from another host. Default 30 000.
   */
  staleMs?: number;
}

/**
 * proper-lockfile removes a lock with `rmdir`; ours holds `holder.json`, so removal is recursive.
 * Everything else is the plain fs (graceful-fs is not needed for one directory), only the calls it
 * makes: spreading all of `fs` reads its deprecated `F_OK`… getters, a warning on stderr on Node 24.
 */
const lockFs = {
  mkdir: fs.mkdir,
  realpath: fs.realpath,
  stat: fs.stat,
  utimes: fs.utimes,
  rmdir: (p: fs.PathLike, cb: (err: NodeJS.ErrnoException | null) => void) => fs.rm(p, { recursive: true, force: false }, cb),
  rmdirSync: (p: fs.PathLike) => fs.rmSync(p, { recursive: true, force: false }),
};

/** Where the lock of `name` lives: `<dir>/<name>.lock` (a directory). */
export function lockPathOf(dir: string, name: string): string {
  return join(dir, `${stackFileKey(name)}.lock`);
}

/**
 * Per-stack locks as directories under `dir` (proper-lockfile: an atomic mkdir, refreshed while
 * held, stale after `staleMs` without a refresh), the holder in `holder.json` inside. A lock whose
 * holder ran on this host and no longer runs (kill -9, a crash) is recovered at once instead of
 * after `staleMs`. Point every machine's lock directory at one shared directory (a network file
 * system) to lock across machines; Blob Storage (STACKWARDEN_STATE_URL) does it without one.
 */
export class FileLockStore {
  constructor(
    readonly dir: string,
    private readonly settings: FileLockSettings = {},
  ) {}

  where(name: string): string {
    return lockPathOf(this.dir, name);
  }

  async holder(name: string): Promise<LockHolder | undefined> {
    try {
      return readHolderFile(lockPathOf(this.dir, name));
    } catch {
      return undefined;
    }
  }

  async break(name: string): Promise<LockHolder | undefined> {
    const path = lockPathOf(this.dir, name);
    const holder = await this.holder(name);
    if (!fs.existsSync(path)) return undefined;
    fs.rmSync(path, { recursive: true, force: true });
    return holder;
  }

  async acquire(request: LockRequest): Promise<
    | {
        held: true;
        lease: {
          holder: LockHolder;
          waitedMs: number;
          recovered?: LockHolder;
          lost: AbortSignal;
          check(): Promise<void>;
          release(): Promise<void>;
        };
      }
    | { held: false; holder: LockHolder | undefined; waitedMs: number }
  > {
    const staleMs = Math.max(this.settings.staleMs ?? 30_000, 2000);
    const pollMs = request.pollMs ?? 250;
    const { name, timeoutMs } = request;
    const target = join(this.dir, stackFileKey(name));
    const lockPath = lockPathOf(this.dir, name);
    fs.mkdirSync(this.dir, { recursive: true });
    const started = Date.now();
    const lost = new AbortController();
    let recovered: LockHolder | undefined;
    let waiting = false;
    for (;;) {
      let release: () => Promise<void>;
      const holder: LockHolder = { ...request.holder, since: new Date().toISOString() };
      // Announced before the lock's directory is made, so that a process killed between making it
      // and writing holder.json inside leaves a dead pid behind, not an anonymous lock.
      const intent = writeIntent(this.dir, name, holder);
      try {
        release = await lockfile.lock(target, {
          lockfilePath: lockPath,
          realpath: false,
          stale: staleMs,
          update: Math.max(1000, Math.floor(staleMs / 3)),
          retries: 0,
          fs: lockFs,
          onCompromised: (err) =>
            lost.abort(
              new StackwardenError("SW_LOCK_LOST", `the lock of stack ${name} was lost while held: ${whyCompromised(err, lockPath)}`),
            ),
        });
      } catch (e) {
        fs.rmSync(intent, { force: true });
        if ((e as NodeJS.ErrnoException).code !== "ELOCKED") throw e;
        const current = await this.holder(name);
        if (
          current &&
          current.host === hostname() &&
          current.pid !== process.pid &&
          !isProcessAlive(current.pid) &&
          markStale(lockPath, current)
        ) {
          recovered = current;
          continue;
        }
        const diedTaking = current ? undefined : deadIntentOf(this.dir, name);
        if (diedTaking && markStale(lockPath, undefined)) {
          recovered = diedTaking;
          continue;
        }
        const waited = Date.now() - started;
        if (waited >= timeoutMs) return { held: false, holder: current, waitedMs: timeoutMs > 0 ? waited : 0 };
        if (!waiting) {
          waiting = true;
          request.onWait?.(current);
        }
        await delay(Math.min(pollMs, timeoutMs - waited), undefined, { signal: request.signal });
        continue;
      }
      // Written into the lock directory, atomically, so a reader sees all of it or nothing. Adding a
      // file changes the directory's mtime, which proper-lockfile owns (it refreshes it, and takes a
      // changed one for a lost lock): it is put back, in the same synchronous step, so no refresh
      // can come in between.
      const { atime, mtime } = fs.statSync(lockPath);
      const tmp = join(lockPath, `.holder-${process.pid}.tmp`);
      fs.writeFileSync(tmp, JSON.stringify(holder));
      fs.renameSync(tmp, join(lockPath, "holder.json"));
      fs.utimesSync(lockPath, atime, mtime);
      fs.rmSync(intent, { force: true });
      return { held: true, lease: heldFileLease(name, holder, lockPath, release, lost, recovered, waiting ? Date.now() - started : 0) };
    }
  }
}

/** A file lock this process holds: its fence reads the holder back, its release gives the directory up. */
function heldFileLease(
  name: string,
  holder: LockHolder,
  lockPath: string,
  release: () => Promise<void>,
  lost: AbortController,
  recovered: LockHolder | undefined,
  waitedMs: number,
) {
  let released = false;
  return {
    holder,
    waitedMs,
    recovered,
    lost: lost.signal,
    check: async () => {
      if (lost.signal.aborted) throw lost.signal.reason;
      const now = readHolderFile(lockPath);
      if (!now || now.pid !== holder.pid || now.host !== holder.host || now.since !== holder.since) {
        const why = new StackwardenError(
          "SW_LOCK_LOST",
          `the lock of stack ${name} is no longer ours (${now ? `pid ${now.pid} on host ${now.host} holds it` : "it was removed"}): stopping before the next write`,
        );
        lost.abort(why);
        throw why;
      }
    },
    async release() {
      if (released) return;
      released = true;
      try {
        await release();
      } catch (e) {
        // Already released, broken or taken over after it went stale: nothing of ours is left to remove.
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== "ERELEASED" && code !== "ENOTACQUIRED" && code !== "ENOENT") throw e;
      }
    },
  };
}

/**
 * Why proper-lockfile gave a held lock up, for people: its refresh found the directory gone (`lock
 * break`, or someone removed it) or changed by another process (broken and taken over), with who
 * holds it now when that can be read. proper-lockfile sets every such error's code to ECOMPROMISED;
 * the system's own error keeps its errno in the message.
 */
function whyCompromised(err: Error, lockPath: string): string {
  let now: LockHolder | undefined;
  try {
    now = readHolderFile(lockPath);
  } catch {
    now = undefined;
  }
  const holder = now ? `; pid ${now.pid} on host ${now.host} (${now.command}) holds it now` : "";
  if (/\bENOENT\b/.test(err.message))
    return `its lock directory ${lockPath} was removed (broken with \`stackwarden lock break\`, or deleted)${holder}`;
  if (/stale threshold/.test(err.message))
    return `its lock directory ${lockPath} was changed by another process (broken and taken over, or not refreshed in time)${holder}`;
  return `it could not be refreshed (${err.message})${holder}`;
}

/**
 * Makes a dead holder's lock look stale to proper-lockfile (mtime in the past), so its own stale
 * takeover removes it. The holder is read again just before (`dead` undefined: the lock must still
 * have none), so a lock that changed hands in the meantime is left alone; if one is taken in the
 * microseconds between, its holder's next refresh notices the changed mtime and reports the lock
 * lost (it never goes unnoticed).
 */
function markStale(lockPath: string, dead: LockHolder | undefined): boolean {
  try {
    const again = readHolderFile(lockPath);
    if (dead ? again?.pid !== dead.pid || again.since !== dead.since || again.host !== dead.host : again !== undefined) return false;
    fs.utimesSync(lockPath, new Date(0), new Date(0));
    return true;
  } catch {
    return false;
  }
}

function readHolderFile(lockPath: string): LockHolder | undefined {
  try {
    return lockHolderOf(JSON.parse(fs.readFileSync(join(lockPath, "holder.json"), "utf8")));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** `<dir>/<stack>.lock-intent.<pid>@<host>.json`: a process about to make the lock's directory. */
function intentPrefix(name: string): string {
  return `${stackFileKey(name)}.lock-intent.`;
}

function writeIntent(dir: string, name: string, holder: LockHolder): string {
  const path = join(dir, `${intentPrefix(name)}${holder.pid}@${stackFileKey(holder.host)}.json`);
  fs.writeFileSync(path, JSON.stringify(holder));
  return path;
}

/**
 * For a lock without holder.json: the process that made it and died before writing it, if that is
 * what happened. Every process announces itself (an intent) before making the directory and
 * withdraws only after writing holder.json, so the maker's intent is there. Any intent of a live
 * process, or of another host (whose pids cannot be checked), means someone may be taking the lock
 * right now: undefined, the lock is respected (and goes stale after `staleMs` if abandoned). Dead
 * intents of this host are removed.
 */
function deadIntentOf(dir: string, name: string): LockHolder | undefined {
  const prefix = intentPrefix(name);
  let dead: LockHolder | undefined;
  for (const entry of fs.readdirSync(dir)) {
    if (!entry.startsWith(prefix)) continue;
    let intent: LockHolder | undefined;
    try {
      intent = lockHolderOf(JSON.parse(fs.readFileSync(join(dir, entry), "utf8")));
    } catch {
      continue; // being written or withdrawn
    }
    if (!intent) continue;
    if (intent.host !== hostname() || intent.pid === process.pid || isProcessAlive(intent.pid)) return undefined;
    fs.rmSync(join(dir, entry), { force: true });
    dead = intent;
  }
  return dead;
}
