import { resolveActor, type ActorSources } from "../audit/audit-actor";
import type { AuditActor, AuditChange, AuditEntry, AuditRecord } from "../audit/audit-entry";
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

/** Records, before the first change is sent, the changes about to be made (a `started` entry). */
export type RecordStart = (what: AuditChange[]) => Promise<void>;

/**
 * Runs an apply under the stack's lock and appends its audit entry before releasing the lock:
 * lock (or LockBusyError), check the trail can be appended to (before anything changes), run
 * `body`, record who/what/commit/exit code. The body calls `started` with the changes it is about
 * to make before it sends the first: a process killed mid-apply leaves that entry, so no change it
 * made is missing from the trail. A body that throws is recorded with exit code 1 and its error,
 * then the error is passed on. The lock is released in every case.
 */
export async function runLockedApply<T extends AppliedResult>(
  opts: LockedApplyOptions,
  body: (lock: StackLock, started: RecordStart) => Promise<T>,
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
    const record = (r: Pick<AuditRecord, "what" | "exitCode" | "note" | "phase">) =>
      trail.append({
        at: new Date().toISOString(),
        stack: opts.stack,
        command: opts.command,
        who,
        what: r.what,
        commit: opts.commit,
        exitCode: r.exitCode,
        ...(r.note ? { note: r.note } : {}),
        ...(r.phase ? { phase: r.phase } : {}),
      });
    const started: RecordStart = async (what) => {
      if (what.length === 0) return;
      await lock.check();
      await record({
        what,
        exitCode: null,
        phase: "started",
        note: `about to make ${what.length} change(s); the entry of this apply that follows says how they ended`,
      });
    };
    let result: T;
    try {
      result = await body(lock, started);
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
