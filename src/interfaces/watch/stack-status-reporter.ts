import type { AuditEntry } from "../../domain/audit/audit-entry";
import { readProbeRun } from "../../domain/probes/probe-results-store";
import type { LockHolder } from "../../domain/reconcile/stack-lock";
import type { TdePlanItem } from "../../domain/reconcile/tde-plan";
import type { StateStores } from "../../domain/state/state-ports";
import type { StackStatusPort, TickEnded } from "../../usecases/watch-ports";
import { readAuditTail } from "./status/audit-tail";
import { inventoryOf } from "./status/database-inventory";
import { deploymentOf } from "./status/deployment-trail";
import type { ApplyRecord, DeploymentStatus, RereadStatus, StackStatus, TickStatus } from "./status/stack-status";
import type { StatusBoard } from "./status/status-board";
import { AUDIT_TAIL_READ, auditOf, conditionOf, driftOf, findingsOf, lockOf, probesOf } from "./status/status-parts";

/**
 * Keeps one stack's status on the board as its watcher ticks: the tick, drift and findings apart
 * from the deployment, the lock, the last probe run and audit entries (read from the stack's
 * state directories), and the condition that follows from them. The deployment is read from the
 * same read of the audit trail's end as the audit part, so applies by anyone show; this watcher's
 * own applies show at once. A failed tick updates only the tick and the condition: clearing drift
 * or findings would announce them resolved.
 */
export class StackStatusReporter implements StackStatusPort {
  private consecutiveFailures = 0;
  private deployment: DeploymentStatus = { state: "none", applying: null, commit: null, last: null, lastApply: null };
  private lastRecovered: { holder: LockHolder; at: Date } | null = null;

  constructor(
    private readonly board: StatusBoard,
    private readonly stack: string,
    private readonly state: Pick<StateStores, "locks" | "audit" | "probes">,
  ) {
    const kept = board.get(stack)?.deployment;
    if (kept && kept.state !== "applying") this.deployment = kept;
  }

  /**
   * An apply (of a commit, or a repair) began; what is deployed stays as it was until it ends, and
   * the last apply's record is left alone (its events are derived from it).
   */
  applying(trigger: ApplyRecord["trigger"]): void {
    this.push({ deployment: { ...this.deployment, state: "applying", applying: trigger } }, true);
  }

  /** A tick found drift it is about to repair: the drift shows now (the tick's end shows what the repair left). */
  judged(drift: readonly TdePlanItem[]): void {
    this.push({ drift: driftOf(drift, new Date()) });
  }

  /** An apply that began changed nothing (the lock was held): the deployment is as it was. */
  notApplied(): void {
    this.push({ deployment: this.deployment }, true);
  }

  /**
   * An apply ended (converged or not), with the audit entry it wrote (none when it failed before
   * writing one): the deployment shows it now, as the next read of the trail will.
   */
  applied(record: ApplyRecord, entry?: AuditEntry): void {
    this.deployment = { ...(entry ? deploymentOf([entry], this.deployment) : this.deployment), lastApply: record };
    this.push({ deployment: this.deployment }, true);
  }

  /** The stack's lock was taken over from a process that no longer ran. */
  recovered(holder: LockHolder): void {
    this.lastRecovered = { holder, at: new Date() };
  }

  /**
   * A tick (or a re-read between ticks) ended: its outcome, with the lock, probe results and audit
   * entries as the state has them now. A re-read is `lastReread`: `lastTick` stays the last sweep's.
   */
  async ticked(t: TickEnded): Promise<void> {
    const ran = t.reread ? { lastReread: rereadStatus(t, t.reread) } : { lastTick: this.tickStatus(t) };
    const at = new Date(t.finishedAt);
    const [holder, probes, trail] = await Promise.all([
      this.state.locks.holder(this.stack).catch(() => undefined),
      this.probes(),
      readAuditTail(this.state.audit, this.stack, AUDIT_TAIL_READ),
    ]);
    this.deployment = deploymentOf(trail, this.deployment);
    const read = t.drift !== undefined && t.findings !== undefined;
    if (read && t.databases) this.board.keepDatabases(this.stack, inventoryOf(t.databases, at.toISOString()));
    this.push(
      {
        ...ran,
        nextTickAt: t.nextTickAt === undefined ? null : new Date(t.nextTickAt).toISOString(),
        deployment: this.deployment,
        ...(read ? { drift: driftOf(t.drift!, at), findings: findingsOf(t.findings!, at) } : {}),
        // A sweep's scope counts (null once a sweep finds no scope); a re-read keeps the last sweep's.
        ...(read && !t.reread ? { coverage: t.coverage ? { ...t.coverage, checkedAt: at.toISOString() } : null } : {}),
        lock: lockOf(holder, this.lastRecovered),
        ...probes,
        audit: auditOf(trail),
      },
      true,
    );
  }

  private tickStatus(t: TickEnded): TickStatus {
    this.consecutiveFailures = t.outcome === "failed" ? this.consecutiveFailures + 1 : 0;
    return {
      number: t.number,
      commit: t.commit,
      commitSubject: t.commitSubject,
      outcome: t.outcome,
      error: t.error ?? null,
      errorCode: t.outcome === "failed" ? (t.errorCode ?? null) : null,
      startedAt: new Date(t.startedAt).toISOString(),
      finishedAt: new Date(t.finishedAt).toISOString(),
      durationMs: t.finishedAt - t.startedAt,
      consecutiveFailures: this.consecutiveFailures,
    };
  }

  private async probes(): Promise<Partial<StackStatus>> {
    const lookup = await readProbeRun(this.state.probes, this.stack);
    return lookup.found ? { probes: probesOf(lookup.run.results, lookup.run.finishedAt) } : {};
  }

  /** Puts `update` on the board; `recondition` (an apply, a tick or a re-read) derives the condition again. */
  private push(update: Partial<StackStatus>, recondition = false): void {
    this.board.update(this.stack, (prev) => {
      const next = { ...prev, ...update };
      return { ...update, condition: recondition ? conditionOf(next) : prev.condition };
    });
  }
}

/** A re-read's status: when it ran, how it ended and what it read again. */
function rereadStatus(t: TickEnded, r: NonNullable<TickEnded["reread"]>): RereadStatus {
  return {
    number: r.number,
    afterTick: t.number,
    outcome: t.outcome,
    error: t.error ?? null,
    errorCode: t.outcome === "failed" ? (t.errorCode ?? null) : null,
    startedAt: new Date(t.startedAt).toISOString(),
    finishedAt: new Date(t.finishedAt).toISOString(),
    durationMs: t.finishedAt - t.startedAt,
    changed: r.changed,
    databases: r.databases,
    rules: r.rules,
  };
}
