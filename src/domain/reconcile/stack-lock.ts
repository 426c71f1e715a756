import * as fs from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import lockfile from "proper-lockfile";
import { stackFileKey } from "../../platform/settings/state-dirs";
import { formatDuration } from "../../platform/duration";
import { StackwardenError } from "../../platform/errors/stackwarden-error";

/** Who holds a stack's lock: written into the lock directory by the holder. */
export interface LockHolder {
  pid: number;
  host: string;
  /** When the lock was taken (ISO 8601). */
  since: string;
  /** What took it: `apply`, `watch`, `watch (remediation)`, `apply --engine pulumi`. */
  command: string;
  stack: string;
}

export interface StackLockOptions {
  /** The directory of lock files (default `.stackwarden/locks` under the working directory). */
  dir: string;
  stack: string;
  command: string;
  /** How long to wait for a held lock, in ms. Default 0: fail at once. */
  timeoutMs?: number;
  /**
   * A lock whose holder stopped refreshing it for this long is taken over, in ms (holders refresh
   * it every staleMs / 3). This is what recovers a lock held from another host. Default 30 000.
   */
  staleMs?: number;
  /** Time between attempts while waiting, in ms. Default 250. */
  pollMs?: number;
  /** Called once when the lock is held by someone else and this call starts to wait. */
  onWait?: (holder: LockHolder | undefined) => void;
  signal?: AbortSignal;
}

/** A held stack lock. */
export interface StackLock {
  holder: LockHolder;
  /** Time spent waiting for it, in ms (0 when it was free). */
  waitedMs: number;
  /** The holder whose dead lock was taken over, if any. */
  recovered?: LockHolder;
  /**
   * Aborted when the lock was lost (its directory was removed or taken over while held); an
   * apply should stop between requests then.
   */
  lost: AbortSignal;
  release(): Promise<void>;
}

/** The lock is held by someone else (and the wait, if any, ran out). */
export class LockBusyError extends StackwardenError {
  constructor(
    readonly stackName: string,
    readonly holder: LockHolder | undefined,
    readonly waitedMs: number,
  ) {
    super(
      "SW_LOCK_HELD",
      `stack ${stackName} is locked by ${describeHolder(holder)}${waitedMs > 0 ? `; gave up after waiting ${formatDuration(waitedMs)}` : ""}; ` +
        `wait for it with --lock-timeout (e.g. --lock-timeout 5m) or retry when it has finished`,
    );
    this.name = "LockBusyError";
  }
}

/** `pid 4242 on host build-7 since 2026-01-01T10:00:00.000Z (apply, 12s ago)`. */
export function describeHolder(h: LockHolder | undefined): string {
  if (!h) return "another process (it is just taking the lock; its details are not written yet)";
  const age = Date.now() - Date.parse(h.since);
  return `pid ${h.pid} on host ${h.host} since ${h.since} (${h.command}${Number.isFinite(age) ? `, ${formatDuration(Math.max(0, age))} ago` : ""})`;
}

/**
 * proper-lockfile removes a lock with `rmdir`; ours holds `holder.json`, so removal is recursive.
 * Everything else is the plain fs (graceful-fs is not needed for one directory).
 */
const lockFs = {
  ...fs,
  rmdir: (p: fs.PathLike, cb: (err: NodeJS.ErrnoException | null) => void) => fs.rm(p, { recursive: true, force: false }, cb),
  rmdirSync: (p: fs.PathLike) => fs.rmSync(p, { recursive: true, force: false }),
};

/** Where the lock of `stack` lives: `<dir>/<stack>.lock` (a directory). */
export function lockPathOf(dir: string, stack: string): string {
  return join(dir, `${stackFileKey(stack)}.lock`);
}

/** Reads the holder of a stack's lock; undefined when it is free or the holder is not written yet. */
export function readLockHolder(dir: string, stack: string): LockHolder | undefined {
  try {
    return readHolderFile(lockPathOf(dir, stack));
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid runs on this machine (EPERM: it runs, as another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes the per-stack lock (proper-lockfile: an atomic mkdir, refreshed while held, stale after
 * `staleMs` without a refresh). A lock whose holder ran on this host and no longer runs (kill -9,
 * a crash) is recovered at once instead of after `staleMs`. Held by a live process: throws
 * LockBusyError naming it, or waits up to `timeoutMs` first.
 */
export async function acquireStackLock(opts: StackLockOptions): Promise<StackLock> {
  const staleMs = Math.max(opts.staleMs ?? 30_000, 2000);
  const pollMs = opts.pollMs ?? 250;
  const timeoutMs = opts.timeoutMs ?? 0;
  const target = join(opts.dir, stackFileKey(opts.stack));
  const lockPath = lockPathOf(opts.dir, opts.stack);
  fs.mkdirSync(opts.dir, { recursive: true });
  const started = Date.now();
  const lost = new AbortController();
  let recovered: LockHolder | undefined;
  let waiting = false;
  for (;;) {
    let release: () => Promise<void>;
    const holder: LockHolder = {
      pid: process.pid,
      host: hostname(),
      since: new Date().toISOString(),
      command: opts.command,
      stack: opts.stack,
    };
    // Announced before the lock's directory is made, so that a process killed between making it
    // and writing holder.json inside leaves a dead pid behind, not an anonymous lock.
    const intent = writeIntent(opts.dir, opts.stack, holder);
    try {
      release = await lockfile.lock(target, {
        lockfilePath: lockPath,
        realpath: false,
        stale: staleMs,
        update: Math.max(1000, Math.floor(staleMs / 3)),
        retries: 0,
        fs: lockFs,
        onCompromised: (err) => lost.abort(new Error(`the lock of stack ${opts.stack} was lost while held: ${err.message}`)),
      });
    } catch (e) {
      fs.rmSync(intent, { force: true });
      if ((e as NodeJS.ErrnoException).code !== "ELOCKED") throw e;
      const current = readLockHolder(opts.dir, opts.stack);
      if (current && current.host === hostname() && current.pid !== process.pid && !pidAlive(current.pid) && markStale(lockPath, current)) {
        recovered = current;
        continue;
      }
      const diedTaking = current ? undefined : deadIntentOf(opts.dir, opts.stack);
      if (diedTaking && markStale(lockPath, undefined)) {
        recovered = diedTaking;
        continue;
      }
      const waited = Date.now() - started;
      if (waited >= timeoutMs) throw new LockBusyError(opts.stack, current, waiting ? waited : 0);
      if (!waiting) {
        waiting = true;
        opts.onWait?.(current);
      }
      await delay(Math.min(pollMs, timeoutMs - waited), undefined, { signal: opts.signal });
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
    let released = false;
    return {
      holder,
      waitedMs: waiting ? Date.now() - started : 0,
      recovered,
      lost: lost.signal,
      async release() {
        if (released) return;
        released = true;
        try {
          await release();
        } catch (e) {
          // Already released, or taken over after it went stale: nothing of ours is left to remove.
          const code = (e as NodeJS.ErrnoException).code;
          if (code !== "ERELEASED" && code !== "ENOTACQUIRED" && code !== "ENOENT") throw e;
        }
      },
    };
  }
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
    return JSON.parse(fs.readFileSync(join(lockPath, "holder.json"), "utf8")) as LockHolder;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** `<dir>/<stack>.lock-intent.<pid>@<host>.json`: a process about to make the lock's directory. */
function intentPrefix(stack: string): string {
  return `${stackFileKey(stack)}.lock-intent.`;
}

function writeIntent(dir: string, stack: string, holder: LockHolder): string {
  const path = join(dir, `${intentPrefix(stack)}${holder.pid}@${stackFileKey(holder.host)}.json`);
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
function deadIntentOf(dir: string, stack: string): LockHolder | undefined {
  const prefix = intentPrefix(stack);
  let dead: LockHolder | undefined;
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    let intent: LockHolder;
    try {
      intent = JSON.parse(fs.readFileSync(join(dir, name), "utf8")) as LockHolder;
    } catch {
      continue; // being written or withdrawn
    }
    if (intent.host !== hostname() || intent.pid === process.pid || pidAlive(intent.pid)) return undefined;
    fs.rmSync(join(dir, name), { force: true });
    dead = intent;
  }
  return dead;
}
