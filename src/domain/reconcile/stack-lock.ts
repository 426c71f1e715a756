import { formatDuration } from "../../platform/duration";
import { StackwardenError } from "../../platform/errors/stackwarden-error";
import type { ProcessIdentity } from "../../platform/process-identity";
import type { LockHolder } from "../../platform/state/lock-holder";
import type { LockStore } from "../state/state-ports";

export type { LockHolder, ProcessIdentity };

export interface StackLockOptions {
  stack: string;
  command: string;
  /**
   * The process taking the lock, written as its holder (the use cases pass `thisProcess()` of
   * src/platform/process-identity.ts): how a lock store tells a dead holder's lock from a live one's.
   */
  holderProcess: ProcessIdentity;
  /** How long to wait for a held lock, in ms. Default 0: fail at once. */
  timeoutMs?: number;
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
  /** Aborted when the lock was lost while held (lapsed, broken, taken over); an apply stops between requests then. */
  lost: AbortSignal;
  /** Fencing: throws SW_LOCK_LOST once the lock is no longer ours. Called right before every write to the cloud. */
  check(): Promise<void>;
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
 * Takes the stack's lock in the state store. Held by someone else: throws LockBusyError naming
 * the holder, or waits up to `timeoutMs` first. How a lock is kept, renewed and recovered after a
 * crash is the store's (files: a directory refreshed while held; Blob Storage: a lease).
 */
export async function acquireStackLock(locks: LockStore, opts: StackLockOptions): Promise<StackLock> {
  const holder: LockHolder = {
    pid: opts.holderProcess.pid,
    host: opts.holderProcess.host,
    since: new Date().toISOString(),
    command: opts.command,
    stack: opts.stack,
  };
  const attempt = await locks.acquire({
    name: opts.stack,
    holder,
    timeoutMs: opts.timeoutMs ?? 0,
    pollMs: opts.pollMs,
    onWait: opts.onWait,
    signal: opts.signal,
  });
  if (!attempt.held) throw new LockBusyError(opts.stack, attempt.holder, attempt.waitedMs);
  const { lease } = attempt;
  return {
    holder: lease.holder,
    waitedMs: lease.waitedMs,
    recovered: lease.recovered,
    lost: lease.lost,
    check: () => lease.check(),
    release: () => lease.release(),
  };
}
