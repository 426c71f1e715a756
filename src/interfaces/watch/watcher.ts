import { setMaxListeners } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import type { ActorSources } from "../../domain/audit/audit-actor";
import type { AuditChange } from "../../domain/audit/audit-entry";
import { evaluateCompliance, type ComplianceResult } from "../../domain/compliance/evaluate";
import type { ComplianceFacts } from "../../domain/facts/model/compliance-facts";
import type { StackConfig } from "../../domain/stack/stack-config";
import { commitSubject, fetchFastForward } from "../../platform/programs/git-checkout";
import { describeHolder, LockBusyError } from "../../domain/reconcile/stack-lock";
import { auditChangesOf } from "../../domain/reconcile/apply-changes";
import { runLockedApply } from "../../domain/reconcile/locked-apply";
import { decideRepairs } from "../../domain/reconcile/repair-policy";
import { databaseLabel } from "../../platform/arm/resource-id";
import { applyTde, type ApplyEvent, type ApplyOutcome } from "../../domain/reconcile/tde-apply";
import type { TdePlanItem } from "../../domain/reconcile/tde-plan";
import { stopBetweenRequests } from "../../domain/reconcile/stoppable-tde-api";
import type { ClientSet } from "../../clients/client-set";
import { judgeTick } from "../../usecases/watch-tick";
import { unreadLine } from "../../domain/stack/unread-entry";
import type { StateDirs } from "../../platform/settings/state-dirs";
import { formatDuration } from "../../platform/duration";
import type { Finding } from "../../domain/compliance/finding";
import type { StackStatusReporter } from "./stack-status-reporter";
import type { WatchMetrics } from "./watch-metrics";
import { nextTickAt, periodOf, type Schedule } from "./watch-schedule";
import type { Readiness } from "./watch-server";

export interface WatchGit {
  /** The checkout the stack file is read from. */
  dir: string;
  remote: string;
  branch: string;
}

export interface WatchOptions {
  stackName: string;
  /** Reads and validates the stack file; called every tick, so edits and new commits are picked up. */
  loadStack: () => StackConfig;
  schedule: Schedule;
  /** Every client a tick may need, built on first use (the geocoding client by the first tick whose stack sets residency). */
  clients: ClientSet;
  /** The directory the stack's paths are relative to. */
  cwd: string;
  /** Who applies, for the audit trail. */
  actor: ActorSources;
  dirs: StateDirs;
  /** Follow a git branch: fetch and fast-forward each tick; a new commit is planned (and applied with autoApply). */
  git?: WatchGit;
  /** The commit of the stack file's checkout, for audit entries when not following git. */
  commitOf: () => Promise<string | null>;
  autoApply: boolean;
  autoRemediate: boolean;
  /** How long an apply waits for a held stack lock, in ms. */
  lockTimeoutMs: number;
  /** After a stop, how long a running apply may go on before it is stopped between requests, in ms. */
  graceMs: number;
  /** Stop after this many ticks (benchmarks, smoke tests). */
  maxTicks?: number;
  concurrency: number;
  scanTimeoutMs: number;
  pollIntervalMs: number;
  metrics: WatchMetrics;
  /** Keeps the stack's status for the status page, the API and the events. */
  status?: StackStatusReporter;
  log: (line: string) => void;
}

interface TickRecord {
  n: number;
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  error?: string;
}

/**
 * The long-running reconciler: one tick at a time (drift and check, git, apply or remediation),
 * ticks on a schedule that an overrunning tick delays but never overlaps. A failing tick is
 * logged, counted and tried again at the next one. `stop()` ends it gracefully.
 */
export class Watcher {
  private tickNo = 0;
  private last?: TickRecord;
  private stopping = false;
  private readonly sleep = new AbortController();
  private reads?: AbortController;
  private applyStop?: AbortController;
  private graceTimer?: NodeJS.Timeout;
  private reconciledCommit?: string;
  private lastRefused = "";

  constructor(private readonly o: WatchOptions) {}

  /** Runs ticks until stop() or maxTicks; resolves when the last tick (and its apply) has ended. */
  async run(): Promise<void> {
    let lastStart = Number.NEGATIVE_INFINITY;
    while (!this.stopping) {
      if (this.tickNo > 0) {
        const wait = nextTickAt(this.o.schedule, lastStart) - Date.now();
        if (wait > 0) {
          try {
            await delay(Math.min(wait, 2 ** 31 - 1), undefined, { signal: this.sleep.signal });
          } catch {
            break; // stopped while waiting
          }
          if (Date.now() < nextTickAt(this.o.schedule, lastStart)) continue; // a timer cap, not the due time
        }
      }
      if (this.stopping) break;
      lastStart = Date.now();
      await this.tick();
      if (this.o.maxTicks !== undefined && this.tickNo >= this.o.maxTicks) this.stop(`${this.o.maxTicks} tick(s) done (--max-ticks)`);
    }
    clearTimeout(this.graceTimer);
  }

  /**
   * Stops taking ticks. Reads in flight are cancelled; a running apply may finish within the grace
   * period, after which it stops between requests. A second call stops the apply at once.
   */
  stop(reason: string): void {
    if (this.stopping) {
      this.applyStop?.abort(new Error(`${reason} (again): stopping the apply now`));
      return;
    }
    this.stopping = true;
    this.o.log(`stopping: ${reason}`);
    this.sleep.abort();
    this.reads?.abort(new Error(reason));
    if (this.applyStop) {
      const stop = this.applyStop;
      this.o.log(`an apply is running: it may finish within the grace period of ${formatDuration(this.o.graceMs)}`);
      this.graceTimer = setTimeout(
        () => stop.abort(new Error(`the grace period of ${formatDuration(this.o.graceMs)} ran out`)),
        this.o.graceMs,
      );
    }
  }

  /** /readyz: the last tick finished within two periods (or two of its own durations, if longer) and did not fail. */
  readiness(now = Date.now()): Readiness {
    if (this.stopping) return { ready: false, reason: "shutting down" };
    const t = this.last;
    if (!t) return { ready: false, reason: "no tick has finished yet" };
    if (t.error) return { ready: false, reason: `tick ${t.n} failed: ${t.error}` };
    const window = 2 * Math.max(periodOf(this.o.schedule, now), t.durationMs);
    const age = now - t.finishedAt;
    if (age > window)
      return { ready: false, reason: `the last tick (${t.n}) finished ${formatDuration(age)} ago, more than ${formatDuration(window)}` };
    return { ready: true, reason: `tick ${t.n} finished ${formatDuration(age)} ago` };
  }

  /** The stack it reconciles. */
  get stackName(): string {
    return this.o.stackName;
  }

  /** Ticks run so far. */
  get ticks(): number {
    return this.tickNo;
  }

  private async tick(): Promise<void> {
    const n = ++this.tickNo;
    const startedAt = Date.now();
    const reads = (this.reads = new AbortController());
    // Every request of the tick listens to this signal, up to --concurrency at once: not a leak.
    setMaxListeners(0, reads.signal);
    let tag = `tick ${n}`;
    let error: string | undefined;
    let commit: string | null = null;
    let subject: string | null = null;
    let ended: { drift: TdePlanItem[]; findings: Finding[] } | undefined;
    try {
      if (this.o.git) {
        const g = this.o.git;
        commit = await fetchFastForward(g.dir, g.remote, g.branch, reads.signal);
        tag = `tick ${n} @${commit.slice(0, 12)}`;
        this.o.metrics.setCommit(this.o.stackName, commit);
        subject = await commitSubject(g.dir, commit);
      }
      const stack = this.o.loadStack();
      const {
        check: result,
        items,
        drift,
      } = await judgeTick({
        stack,
        stackName: this.o.stackName,
        clients: this.o.clients,
        cwd: this.o.cwd,
        dirs: this.o.dirs,
        concurrency: this.o.concurrency,
        signal: reads.signal,
        warn: (line) => this.o.log(`${tag}: ${line}`),
      });
      const facts = result.facts;
      this.o.log(`${tag}: ${drift.length} drifted, ${summarize(result)}`);
      for (const d of drift)
        this.o.log(`${tag}:   ~ ${databaseLabel(d.ref)} TDE live ${d.live ?? "unknown"}, desired ${d.desired.transparentDataEncryption}`);
      // A database the cloud does not have: at its stack-file line, as every command says it; the
      // others are reconciled, and the tick fails at its end (below) until the stack is fixed.
      for (const u of result.unread) this.o.log(`${tag}: ${unreadLine(u)}`);

      let outcomes: ApplyOutcome[] = [];
      let failedApply = 0;
      const newCommit = commit !== null && commit !== this.reconciledCommit;
      if (newCommit && this.o.autoApply) {
        this.o.log(`${tag}: new commit: applying ${drift.length} change(s)`);
        outcomes = drift.length ? await this.apply(tag, "watch", "commit", drift, [], commit) : [];
        failedApply = outcomes.filter((o) => !o.ok).length;
        if (failedApply === 0 && !this.stopping) this.reconciledCommit = commit!;
      } else {
        if (newCommit) {
          this.o.log(`${tag}: new commit: plan has ${drift.length} change(s) (apply them with --auto-apply or stackwarden apply)`);
          this.reconciledCommit = commit!;
        }
        if (this.o.autoRemediate && drift.length) {
          outcomes = await this.remediate(tag, drift, facts, stack, commit);
          failedApply = outcomes.filter((o) => !o.ok).length;
        }
      }

      // What the tick leaves behind: statuses that converged are now as desired.
      const converged = new Set(outcomes.filter((o) => o.ok).map((o) => o.item.id));
      const after: ComplianceFacts = converged.size
        ? {
            ...facts,
            databases: facts.databases.map((d) =>
              converged.has(d.id) ? { ...d, liveTdeStatus: items.find((i) => i.id === d.id)!.desired.transparentDataEncryption } : d,
            ),
          }
        : facts;
      const finalResult = converged.size ? evaluateCompliance(after, stack.policies, stack.exemptions, Date.now()) : result;
      this.o.metrics.drift.set({ stack: this.o.stackName }, drift.length - converged.size);
      this.o.metrics.setFindings(this.o.stackName, finalResult.findings);
      ended = { drift: drift.filter((d) => !converged.has(d.id)), findings: finalResult.findings };
      if (failedApply > 0 && !this.stopping) throw new Error(`${failedApply} change(s) did not converge; they are tried again next tick`);
      if (result.unread.length > 0)
        throw new Error(
          `${result.unread.length} database(s) of the stack could not be read (${result.unread.map((u) => u.label).join(", ")})`,
        );
    } catch (e) {
      if (this.stopping && reads.signal.aborted) {
        this.o.log(`${tag}: stopped by shutdown`);
      } else {
        error = oneLine(e);
        this.o.log(`${tag}: FAILED: ${error}`);
      }
    }
    const finishedAt = Date.now();
    const durationMs = finishedAt - startedAt;
    const interrupted = this.stopping && !error && reads.signal.aborted;
    this.o.status?.ticked({
      number: n,
      commit,
      commitSubject: subject,
      startedAt,
      finishedAt,
      outcome: interrupted ? "interrupted" : error ? "failed" : "succeeded",
      error,
      ...(ended && !error ? ended : {}),
      nextTickAt: this.stopping ? undefined : nextTickAt(this.o.schedule, startedAt),
    });
    if (interrupted) return; // an interrupted tick is neither a success nor a failure
    this.last = { n, startedAt, finishedAt, durationMs, error };
    this.o.metrics.ticks.inc({ stack: this.o.stackName, result: error ? "error" : "ok" });
    this.o.metrics.tickDuration.observe({ stack: this.o.stackName }, durationMs / 1000);
    if (!error) this.o.metrics.lastSuccess.set({ stack: this.o.stackName }, finishedAt / 1000);
  }

  /** Repairs the drift that moves toward compliance; reports (and audits, once) what it refuses. */
  private async remediate(
    tag: string,
    drift: TdePlanItem[],
    facts: ComplianceFacts,
    stack: StackConfig,
    commit: string | null,
  ): Promise<ApplyOutcome[]> {
    const decisions = decideRepairs(drift, facts, stack, Date.now());
    const repairs = decisions.filter((d) => d.repair).map((d) => d.item);
    const refused = decisions.filter((d) => !d.repair);
    for (const r of refused) this.o.log(`${tag}: not repairing ${databaseLabel(r.item.ref)}: ${r.reason}`);
    const refusedKey = refused.map((r) => `${r.item.id}=${r.item.desired.transparentDataEncryption}`).join(",");
    const newlyRefused = refusedKey !== this.lastRefused;
    if (repairs.length === 0 && !(newlyRefused && refused.length)) {
      this.lastRefused = refusedKey;
      return [];
    }
    const refusedChanges: AuditChange[] = newlyRefused
      ? refused.map((r) => ({
          resource: r.item.id,
          before: r.item.live ?? null,
          after: r.item.live ?? null,
          outcome: "refused",
          reason: r.reason,
        }))
      : [];
    for (const _ of refusedChanges) this.o.metrics.remediations.inc({ stack: this.o.stackName, outcome: "refused" });
    if (repairs.length) this.o.log(`${tag}: remediating ${repairs.length} database(s)`);
    const outcomes = await this.apply(tag, "remediate", "remediation", repairs, refusedChanges, commit);
    // Remembered once recorded: a refusal whose apply could not run (a held lock) is recorded next tick.
    this.lastRefused = refusedKey;
    for (const o of outcomes)
      this.o.metrics.remediations.inc({
        stack: this.o.stackName,
        outcome: o.ok ? "converged" : this.applyStopped ? "interrupted" : "failed",
      });
    return outcomes;
  }

  private applyStopped = false;

  /** One apply under the stack lock, audited. */
  private async apply(
    tag: string,
    command: string,
    trigger: "commit" | "remediation",
    items: TdePlanItem[],
    extra: AuditChange[],
    commit: string | null,
  ): Promise<ApplyOutcome[]> {
    if (this.stopping) return [];
    const stop = (this.applyStop = new AbortController());
    setMaxListeners(0, stop.signal);
    this.applyStopped = false;
    const startedAt = new Date().toISOString();
    const applyCommit = commit ?? (await this.o.commitOf());
    this.o.status?.applying(trigger, applyCommit);
    try {
      const { result, entry } = await runLockedApply(
        {
          dirs: this.o.dirs,
          stack: this.o.stackName,
          command,
          lockTimeoutMs: this.o.lockTimeoutMs,
          commit: applyCommit,
          actor: this.o.actor,
          signal: this.reads?.signal,
          onLockWait: (holder) => {
            this.o.metrics.lockBusy.inc({ stack: this.o.stackName });
            this.o.log(
              `${tag}: stack ${this.o.stackName} is locked by ${describeHolder(holder)}; waiting up to ${formatDuration(this.o.lockTimeoutMs)}`,
            );
          },
        },
        async (lock) => {
          this.o.metrics.lockWait.observe({ stack: this.o.stackName }, lock.waitedMs / 1000);
          if (lock.recovered) {
            this.o.log(`${tag}: recovered the lock left by ${describeHolder(lock.recovered)}: that process no longer runs`);
            this.o.status?.recovered(lock.recovered);
          }
          lock.lost.addEventListener("abort", () => stop.abort(lock.lost.reason), { once: true });
          const api = stopBetweenRequests(this.o.clients.sql, stop.signal);
          const outcomes = await applyTde(api, items, {
            concurrency: this.o.concurrency,
            scanTimeoutMs: this.o.scanTimeoutMs,
            pollIntervalMs: this.o.pollIntervalMs,
            signal: stop.signal,
            onEvent: (e) => this.o.log(`${tag}: ${describeEvent(e)}`),
          });
          this.applyStopped = stop.signal.aborted;
          const what = [...(await auditChangesOf(api, outcomes, stop.signal)), ...extra];
          return { what, exitCode: outcomes.every((o) => o.ok) ? 0 : 1, outcomes };
        },
      );
      this.o.metrics.applies.inc({ stack: this.o.stackName, trigger, exit_code: String(result.exitCode) });
      const ok = result.outcomes.filter((o) => o.ok).length;
      this.o.status?.applied({
        trigger,
        startedAt,
        finishedAt: new Date().toISOString(),
        commit: applyCommit,
        exitCode: result.exitCode,
        converged: ok,
        failed: result.outcomes.length - ok,
        auditSeq: entry.seq,
      });
      this.o.log(
        `${tag}: ${trigger === "commit" ? "apply" : "remediation"}: ${ok} of ${result.outcomes.length} converged${this.applyStopped ? " (stopped by shutdown)" : ""}; audit entry ${entry.seq} in ${this.o.dirs.audit}`,
      );
      return result.outcomes;
    } catch (e) {
      // A held lock changed nothing (the tick fails and is tried again); anything else failed the apply.
      if (e instanceof LockBusyError) this.o.status?.notApplied();
      else
        this.o.status?.applied({
          trigger,
          startedAt,
          finishedAt: new Date().toISOString(),
          commit: applyCommit,
          exitCode: 1,
          converged: 0,
          failed: items.length,
          auditSeq: null,
        });
      // A wait that ran out was counted when it began; a refusal without a wait is counted here.
      if (e instanceof LockBusyError && e.waitedMs === 0) this.o.metrics.lockBusy.inc({ stack: this.o.stackName });
      throw e;
    } finally {
      this.applyStop = undefined;
      clearTimeout(this.graceTimer);
    }
  }
}

function summarize(r: ComplianceResult): string {
  return `${r.summary.mandatoryViolations} mandatory and ${r.summary.advisoryViolations} advisory finding(s)`;
}

function describeEvent(e: ApplyEvent): string {
  const label = databaseLabel(e.item.ref);
  switch (e.kind) {
    case "started":
      return `${label}: ${e.item.desired.transparentDataEncryption === "Enabled" ? "encryption" : "decryption"} requested`;
    case "progress":
      return `${label}: ${e.activity.toLowerCase()} ${Math.floor(e.percentComplete)}%`;
    case "converged":
      return `${label}: done: TDE ${e.item.desired.transparentDataEncryption} (${formatDuration(e.elapsedMs)})`;
    case "failed":
      return `${label}: FAILED: ${e.error}`;
  }
}

function oneLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ").trim();
}
