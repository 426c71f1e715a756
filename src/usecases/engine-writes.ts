import type { ClientSet } from "../clients/client-set";
import { resolveActor } from "./audit-actor";
import { thisProcess } from "../platform/process-identity";
import type { AuditActor, AuditChange } from "../domain/audit/audit-entry";
import { fenceWrites } from "../domain/reconcile/fenced-tde-api";
import { writeUnderHandoff, type LockHandoff } from "../domain/reconcile/lock-handoff";
import { runLockedApply, type RecordStart } from "../domain/reconcile/locked-apply";
import type { LockHolder, StackLock } from "../domain/reconcile/stack-lock";
import { stopBetweenRequests } from "../domain/reconcile/stoppable-tde-api";
import type { TdeResource } from "../domain/reconcile/tde-api";
import { setTdeStatus, type TdeWrite } from "../domain/reconcile/tde-set";
import type { StateStores } from "../domain/state/state-ports";
import { scrubTokens } from "../platform/redaction";

export type { TdeWrite };

/** Where an engine's writes go, under whose lock, and in whose name. */
export interface EngineWriteContext {
  state: Pick<StateStores, "locks" | "audit">;
  /** The stack whose lock and audit trail the writes go under. */
  stackName: string;
  clients: Pick<ClientSet, "sql" | "actor">;
  /** What is writing, for the lock's holder and the audit entry: `pulumi up`. */
  command: string;
  /** The engine named as the actor of the audit entry (with the credential's identity). */
  engine: NonNullable<AuditActor["engine"]>;
  /** How long to wait for a lock another process holds, in ms (0: refused at once, naming the holder). */
  lockTimeoutMs: number;
  /** The git commit of the stack file, for the audit entry (null outside a checkout). */
  commit: () => Promise<string | null>;
  /**
   * The stack's lock as the process that started this one holds it (`apply --engine pulumi` runs
   * `pulumi up`): the writes are fenced against that holder instead of taking the lock, and that
   * process writes the audit entry. Ignored when it names another stack.
   */
  handoff?: LockHandoff;
  /** Called once when the lock is held by someone else and a write starts to wait for it. */
  onLockWait?: (holder: LockHolder | undefined) => void;
}

/**
 * The writes a declarative engine makes to TDE (the dynamic provider's create, update and delete
 * in a plain `pulumi up`), under the same lock and audit trail as every apply: one writer at a time
 * per stack, each PUT fenced by the lock, each write on record with the engine as its actor. The
 * writes of one process that overlap in time (the engine runs resource steps in parallel) share
 * one hold of the lock and one audit entry, which lists each change; a write that comes after the
 * last has ended takes the lock again. A write under a lock handed on by the process that started
 * this one is fenced against that holder and leaves the entry to it.
 */
export class EngineWrites {
  private readonly sessions = new Map<string, WriteSession>();

  /**
   * Sets one database's TDE status under the stack's lock (waiting up to `lockTimeoutMs` for it,
   * else SW_LOCK_HELD naming the holder): read again under the lock, PUT only when it still
   * differs, wait for the scan. Resolves to the configuration as read (its location) once the
   * audit entry that records the write is appended; rejects when the change failed, the lock was
   * lost, or the entry could not be written.
   */
  async setTde(ctx: EngineWriteContext, write: TdeWrite): Promise<TdeResource> {
    if (ctx.handoff && ctx.handoff.stack === ctx.stackName) {
      const fence = writeUnderHandoff(ctx.state.locks, ctx.handoff);
      const api = fenceWrites(stopBetweenRequests(ctx.clients.sql, fence.lost), fence);
      const r = await setTdeStatus(api, write, { signal: fence.lost });
      if (r.failure) throw r.failure;
      return r.read;
    }
    return this.sessionFor(ctx).run(async (held, session) => {
      const api = fenceWrites(stopBetweenRequests(ctx.clients.sql, held.lock.lost), held.lock);
      const r = await setTdeStatus(api, write, { signal: held.lock.lost, started: (c) => session.started(c, held) });
      if (r.change) session.changed(r.change);
      if (r.failure) throw r.failure;
      return r.read;
    });
  }

  /** The session of the stack's writes under way, or a new one after the last has ended. */
  private sessionFor(ctx: EngineWriteContext): WriteSession {
    const current = this.sessions.get(ctx.stackName);
    if (current && !current.closing) return current;
    const next = new WriteSession(ctx, current?.ended ?? Promise.resolve());
    this.sessions.set(ctx.stackName, next);
    void next.ended.then(() => {
      if (this.sessions.get(ctx.stackName) === next) this.sessions.delete(ctx.stackName);
    });
    return next;
  }
}

/** The lock as a session holds it, and how it records changes about to be made. */
interface Held {
  lock: StackLock;
  started: RecordStart;
}

/**
 * One hold of a stack's lock by the writes of this process that overlap: taken when the first
 * joins (after the previous session has let the lock go), kept while any runs, and given up with
 * the audit entry of all of them once the last has left.
 */
class WriteSession {
  /** No write may join any more: the last one left, the entry is being written. */
  closing = false;
  /** Settles once the entry is written and the lock released: undefined, or why that failed. */
  readonly ended: Promise<unknown>;
  private readonly held: Promise<Held>;
  private active = 0;
  private drained!: () => void;
  private readonly changes: AuditChange[] = [];
  private readonly announced: AuditChange[] = [];
  private readonly failures: string[] = [];
  private announcing: Promise<void> = Promise.resolve();

  constructor(ctx: EngineWriteContext, previous: Promise<unknown>) {
    const drained = new Promise<void>((resolve) => (this.drained = resolve));
    let hold!: (h: Held) => void;
    let refuse!: (e: unknown) => void;
    this.held = new Promise<Held>((resolve, reject) => ((hold = resolve), (refuse = reject)));
    this.held.catch(() => undefined); // each write awaits it and sees the refusal itself
    this.ended = previous.then(async () => {
      try {
        await runLockedApply(
          {
            state: ctx.state,
            stack: ctx.stackName,
            command: ctx.command,
            lockTimeoutMs: ctx.lockTimeoutMs,
            holderProcess: thisProcess(),
            commit: await ctx.commit(),
            actor: async (): Promise<AuditActor> => ({ ...(await resolveActor(ctx.clients.actor)), engine: ctx.engine }),
            onLockWait: ctx.onLockWait,
          },
          async (lock, started) => {
            hold({ lock, started });
            await drained;
            const note = this.failures.length ? { note: `failed: ${this.failures.join("; ")}` } : {};
            return { what: this.changes, exitCode: this.failures.length ? 1 : 0, ...note };
          },
        );
        return undefined;
      } catch (e) {
        refuse(e);
        return e;
      }
    });
  }

  /**
   * Runs one write under the session's hold of the lock; resolves (or rejects) once the session
   * has ended, so a write is reported done only when its audit entry is in the trail.
   */
  async run<T>(work: (held: Held, session: WriteSession) => Promise<T>): Promise<T> {
    this.active += 1;
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await work(await this.held, this) };
    } catch (e) {
      outcome = { ok: false, error: e };
      // A write refused the lock changed nothing: only a failure under the lock is the entry's.
      if (!(await this.held.then(() => false).catch(() => true))) this.failures.push(scrubTokens(oneLine(e)));
    } finally {
      this.leave();
    }
    const ended = await this.ended;
    if (!outcome.ok) throw outcome.error;
    if (ended !== undefined) throw ended;
    return outcome.value;
  }

  /** A change is about to be made: the pending record beside the trail lists every change of the session so far. */
  started(change: AuditChange, held: Held): Promise<void> {
    this.announced.push(change);
    const all = [...this.announced];
    this.announcing = this.announcing.catch(() => undefined).then(() => held.started(all));
    return this.announcing;
  }

  /** A change was made (converged, or failed with where it ended). */
  changed(change: AuditChange): void {
    this.changes.push(change);
  }

  private leave(): void {
    this.active -= 1;
    if (this.active > 0) return;
    this.closing = true;
    this.drained();
  }
}

function oneLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ").trim();
}
