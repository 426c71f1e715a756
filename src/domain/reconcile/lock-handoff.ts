import { StackwardenError } from "../../platform/errors/stackwarden-error";
import type { LockStore } from "../state/state-ports";
import type { StackLock } from "./stack-lock";

/**
 * A stack lock held by one process and written under by another it started: `apply --engine
 * pulumi` holds the stack's lock and runs `pulumi up`, whose TDE provider (in Pulumi's plugin, a
 * process of its own) must not take the lock again (a lock is not re-entrant across processes: it
 * would wait for its own parent) nor write without it. The holder names itself in the environment
 * of what it starts; the provider then fences every write against that holder: right before a PUT it
 * reads who holds the lock, and writes only while it is still that holder (a lock that lapsed,
 * was broken or changed hands stops it, SW_LOCK_LOST). The holder itself keeps the lease alive and
 * writes the audit entry.
 */

/** The variable that carries the hand-off to the processes the holder starts. */
export const LOCK_HANDOFF_VAR = "STACKWARDEN_LOCK_HELD";

/** Who holds a stack's lock, as the holder hands it on (nothing secret: what `lock status` shows). */
export interface LockHandoff {
  stack: string;
  pid: number;
  host: string;
  /** When the holder took the lock (ISO 8601): a holder that lost the lock and took it again is another. */
  since: string;
}

/** The hand-off of a held lock, as the variable's value. */
export function handoffText(lock: Pick<StackLock, "holder">): string {
  const { stack, pid, host, since } = lock.holder;
  return JSON.stringify({ stack, pid, host, since } satisfies LockHandoff);
}

/** The hand-off in the variable's value (undefined when unset); a value that is not one is SW_SETTING_INVALID, naming the variable. */
export function parseHandoff(text: string | undefined): LockHandoff | undefined {
  if (!text?.trim()) return undefined;
  let v: Partial<LockHandoff> | undefined;
  try {
    v = JSON.parse(text) as Partial<LockHandoff>;
  } catch {
    v = undefined;
  }
  if (!v || typeof v.stack !== "string" || typeof v.pid !== "number" || typeof v.host !== "string" || typeof v.since !== "string")
    throw new StackwardenError(
      "SW_SETTING_INVALID",
      `${LOCK_HANDOFF_VAR}: not a lock hand-off (it is set by stackwarden for the processes it starts while it holds a stack's lock: {"stack","pid","host","since"}); unset it`,
    );
  return { stack: v.stack, pid: v.pid, host: v.host, since: v.since };
}

/**
 * Writes under a lock another process holds and handed on: `check()` (the fence before every
 * write) resolves while the store still names that holder, and throws SW_LOCK_LOST once it does
 * not; `lost` is aborted then, so an apply stops between requests.
 */
export function writeUnderHandoff(locks: Pick<LockStore, "holder">, handoff: LockHandoff): { check(): Promise<void>; lost: AbortSignal } {
  const lost = new AbortController();
  return {
    lost: lost.signal,
    check: async () => {
      if (lost.signal.aborted) throw lost.signal.reason;
      const now = await locks.holder(handoff.stack);
      if (now && now.pid === handoff.pid && now.host === handoff.host && now.since === handoff.since) return;
      const why = new StackwardenError(
        "SW_LOCK_LOST",
        `the lock of stack ${handoff.stack} that pid ${handoff.pid} on host ${handoff.host} took at ${handoff.since} and handed on is no longer held by it (${now ? `pid ${now.pid} on host ${now.host} holds it (${now.command})` : "nobody holds it"}): stopping before the next write`,
      );
      lost.abort(why);
      throw why;
    },
  };
}
