import { randomUUID } from "node:crypto";
import type { AuditActor, AuditChange, AuditEntry, AuditRecord } from "../audit/audit-entry";
import type { AuditLog } from "../state/state-ports";
import { AuditTrail } from "../audit/audit-trail";
import { acquireStackLock, type LockHolder, type ProcessIdentity, type StackLock } from "./stack-lock";
import type { StateStores } from "../state/state-ports";
import { scrubTokens } from "../../platform/redaction";

export interface LockedApplyOptions {
  state: Pick<StateStores, "locks" | "audit">;
  stack: string;
  /** What is applying, for the lock holder and the audit entry: `apply`, `watch`, `remediate`, `apply --engine pulumi`. */
  command: string;
  /** The process applying, the lock's holder (`thisProcess()` of src/platform/process-identity.ts). */
  holderProcess: ProcessIdentity;
  /** How long to wait for a held lock, in ms. Default 0: fail at once. */
  lockTimeoutMs?: number;
  /** The git commit of the stack file applied (null outside a checkout). */
  commit: string | null;
  /** Who is applying, asked once before anything changes (the use cases ask the credential and IMDS: src/usecases/audit-actor.ts). */
  actor: () => Promise<AuditActor>;
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

/** Records, before the first change is sent, the changes about to be made. */
export type RecordStart = (what: AuditChange[]) => Promise<void>;

/** What an apply under way keeps beside its trail until its entry is written: what a killed one leaves. */
interface PendingApply {
  applyId: string;
  /** Its process, for the note of the entry written for it. */
  pid: number;
  record: AuditRecord;
}

/**
 * Runs an apply under the stack's lock and appends its audit entry before releasing the lock:
 * lock (or LockBusyError), check the trail can be appended to (before anything changes), run
 * `body`, record who/what/commit/exit code. Before it sends the first change, the body calls
 * `started` with the changes it is about to make: they are kept beside the trail (the pending
 * record) until the apply's entry is written. A process killed in between leaves the pending
 * record, and the next holder of the lock writes it into the trail (`phase: started`), so no change
 * is missing from the chain. A body that throws is recorded with exit code 1 and its error, then
 * the error is passed on. The lock is released in every case.
 */
export async function runLockedApply<T extends AppliedResult>(
  opts: LockedApplyOptions,
  body: (lock: StackLock, started: RecordStart) => Promise<T>,
): Promise<{ result: T; entry: AuditEntry; lock: StackLock }> {
  const lock = await acquireStackLock(opts.state.locks, {
    stack: opts.stack,
    command: opts.command,
    holderProcess: opts.holderProcess,
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
    const who = await opts.actor();
    await recordLeftover(opts.state.audit, trail, opts.stack, who);
    const applyId = randomUUID();
    let pending = false;
    const entryOf = (r: Pick<AuditRecord, "what" | "exitCode" | "note">): AuditRecord => ({
      at: new Date().toISOString(),
      stack: opts.stack,
      command: opts.command,
      who,
      what: r.what,
      commit: opts.commit,
      exitCode: r.exitCode,
      ...(r.note ? { note: r.note } : {}),
      ...(pending ? { applyId } : {}),
    });
    const record = async (r: Pick<AuditRecord, "what" | "exitCode" | "note">) => {
      const entry = await trail.append(entryOf(r));
      if (pending) await clearOwnPending(opts.state.audit, opts.stack, applyId);
      return entry;
    };
    const started: RecordStart = async (what) => {
      if (what.length === 0) return;
      await lock.check();
      pending = true;
      const kept: PendingApply = { applyId, pid: lock.holder.pid, record: { ...entryOf({ what, exitCode: null }), phase: "started" } };
      await opts.state.audit.writePending(opts.stack, JSON.stringify(kept));
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

/**
 * The pending record an apply left when it was killed before its entry: written into the trail
 * (`phase: started`, exit code null, its changes as `started`), unless its entry made it (the
 * process died between writing it and removing the record). Removed either way.
 */
async function recordLeftover(audit: AuditLog, trail: AuditTrail, stack: string, recorder: AuditActor): Promise<void> {
  const text = await audit.readPending(stack);
  if (text === undefined) return;
  const left = parsePending(text);
  if (!left) {
    // Unreadable (cut short by a crash mid-write on a store without atomic writes): what it held
    // is unknown, which the trail says rather than dropping it silently.
    await trail.append({
      at: new Date().toISOString(),
      stack,
      command: "recover",
      who: recorder,
      what: [],
      commit: null,
      exitCode: null,
      phase: "started",
      note: `an apply left a pending record that could not be read (${text.length} bytes): its changes, if any, are unknown`,
    });
  } else {
    const recent = await audit.recent(stack, 50);
    if (!recent.some((line) => line.includes(`"applyId":"${left.applyId}"`))) {
      await trail.append({
        ...left.record,
        at: new Date().toISOString(),
        applyId: left.applyId,
        phase: "started",
        exitCode: null,
        note: `the apply of pid ${left.pid} (${left.record.command}, started ${left.record.at}) ended before its entry was written (killed?): the changes it was about to make, recorded by the next holder of the lock`,
      });
    }
  }
  await audit.writePending(stack, undefined);
}

function parsePending(text: string): PendingApply | undefined {
  try {
    const left = JSON.parse(text) as PendingApply;
    return typeof left?.applyId === "string" && left.record ? left : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes the pending record if it is still this apply's: a holder whose lock was broken must not
 * remove the record of the apply that took the lock after it.
 */
async function clearOwnPending(audit: AuditLog, stack: string, applyId: string): Promise<void> {
  const text = await audit.readPending(stack);
  if (text !== undefined && parsePending(text)?.applyId === applyId) await audit.writePending(stack, undefined);
}
