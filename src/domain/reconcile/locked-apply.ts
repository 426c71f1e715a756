import { resolveActor, type ActorSources } from "../audit/audit-actor";
import type { AuditActor, AuditChange, AuditEntry } from "../audit/audit-entry";
import { AuditTrail } from "../audit/audit-trail";
import { acquireStackLock, type LockHolder, type StackLock } from "./stack-lock";
import type { StateStores } from "../state/state-ports";
import { scrubTokens } from "../../platform/http/redaction";

export interface LockedApplyOptions {
  state: Pick<StateStores, "locks" | "audit">;
  stack: string;
  /** What is applying, for the lock holder and the audit entry: `apply`, `watch`, `remediate`, `apply --engine pulumi`. */
  command: string;
  /** How long to wait for a held lock, in ms. Default 0: fail at once. */
  lockTimeoutMs?: number;
  /** The git commit of the stack file applied (null outside a checkout). */
  commit: string | null;
  /** Where the actor comes from (credential, IMDS). */
  actor: ActorSources | (() => Promise<AuditActor>);
  onLockWait?: (holder: LockHolder | undefined) => void;
  onLockAcquired?: (lock: StackLock) => void;
  signal?: AbortSignal;
}

/** What an apply body reports for the trail. */
export interface AppliedResult {
  what: AuditChange[];
  exitCode: number;
  note?: string;
  /** The apply's closing line, printed after the audit note so it stays the last word. */
  summary?: { stream: "out" | "err"; line: string };
}

/**
 * Runs an apply under the stack's lock and appends its audit entry before releasing the lock:
 * lock (or LockBusyError), check the trail can be appended to (before anything changes), run
 * `body`, record who/what/commit/exit code. A body that throws is recorded with exit code 1 and
 * its error, then the error is passed on. The lock is released in every case.
 */
export async function runLockedApply<T extends AppliedResult>(
  opts: LockedApplyOptions,
  body: (lock: StackLock) => Promise<T>,
): Promise<{ result: T; entry: AuditEntry; lock: StackLock }> {
  const lock = await acquireStackLock(opts.state.locks, {
    stack: opts.stack,
    command: opts.command,
    timeoutMs: opts.lockTimeoutMs,
    onWait: opts.onLockWait,
    signal: opts.signal,
  });
  try {
    opts.onLockAcquired?.(lock);
    const trail = new AuditTrail(opts.state.audit, opts.stack);
    await trail.tail();
    // Who is applying is learnt before anything changes: after a shutdown has stopped the apply
    // between requests, writing the entry must not need any more requests.
    const who = typeof opts.actor === "function" ? await opts.actor() : await resolveActor(opts.actor);
    const record = (r: AppliedResult) =>
      trail.append({
        at: new Date().toISOString(),
        stack: opts.stack,
        command: opts.command,
        who,
        what: r.what,
        commit: opts.commit,
        exitCode: r.exitCode,
        ...(r.note ? { note: r.note } : {}),
      });
    let result: T;
    try {
      result = await body(lock);
    } catch (e) {
      await record({ what: [], exitCode: 1, note: `failed: ${scrubTokens((e as Error).message ?? String(e))}` });
      throw e;
    }
    const entry = await record(result);
    return { result, entry, lock };
  } finally {
    await lock.release();
  }
}
