import { hostname } from "node:os";
import type { ClientSet } from "../clients/client-set";
import { resolveActor } from "./audit-actor";
import type { AuditEntry } from "../domain/audit/audit-entry";
import { AuditTrail } from "../domain/audit/audit-trail";
import type { LockHolder } from "../domain/reconcile/stack-lock";
import type { StateStores } from "../domain/state/state-ports";

/** Who holds a stack's lock, and where the lock lives. */
export interface LockStatus {
  stack: string;
  where: string;
  holder?: LockHolder;
}

/** Who holds the stack's lock now (nobody: `holder` absent). Reads the state only. */
export async function lockStatus(req: { state: Pick<StateStores, "locks">; stack: string }): Promise<LockStatus> {
  const holder = await req.state.locks.holder(req.stack);
  return { stack: req.stack, where: req.state.locks.where(req.stack), ...(holder ? { holder } : {}) };
}

/** What breaking a lock did. */
export interface LockBreak extends LockStatus {
  /** The audit entry that records who broke whose lock; absent when the lock was free. */
  entry?: AuditEntry;
}

/**
 * Breaks the stack's lock, whoever holds it (a holder that died on another machine, whose lease
 * has not lapsed yet; a stuck apply), and appends an audit entry saying who broke whose lock. The
 * holder, if it still runs, finds its lock gone at its next write and stops (the fence). A free lock
 * is left alone and nothing is recorded.
 */
export async function breakLock(req: {
  state: Pick<StateStores, "locks" | "audit">;
  stack: string;
  clients: Pick<ClientSet, "actor">;
}): Promise<LockBreak> {
  const trail = new AuditTrail(req.state.audit, req.stack);
  // The trail must take the entry: a damaged end fails here, before the lock is touched.
  await trail.tail();
  const who = await resolveActor(req.clients.actor);
  const holder = await req.state.locks.break(req.stack);
  const status = { stack: req.stack, where: req.state.locks.where(req.stack), ...(holder ? { holder } : {}) };
  if (!holder) return status;
  const entry = await trail.append({
    at: new Date().toISOString(),
    stack: req.stack,
    command: "lock break",
    who,
    what: [],
    commit: null,
    exitCode: 0,
    note: `broke the lock held by pid ${holder.pid} on host ${holder.host} since ${holder.since} (${holder.command}), from host ${hostname()}`,
    brokeLock: { pid: holder.pid, host: holder.host, since: holder.since, command: holder.command },
  });
  return { ...status, entry };
}
