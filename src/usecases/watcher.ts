import { setMaxListeners } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import type { ComplianceResult } from "../domain/compliance/evaluate";
import type { StackConfig } from "../domain/stack/stack-config";
import type { StateStores } from "../domain/state/state-ports";
import { commitSubject, fetchFastForward } from "../platform/programs/git-checkout";
import { describeHolder } from "../domain/reconcile/stack-lock";
import { notConvergedError, unreadError } from "../domain/reconcile/reconcile-failures";
import { errorCodeOf } from "../platform/errors/error-code-of";
import type { ErrorCode } from "../platform/errors/error-codes";
import { databaseLabel } from "../platform/arm/resource-id";
import type { ApplyEvent } from "../domain/reconcile/tde-apply";
import type { TdePlanItem } from "../domain/reconcile/tde-plan";
import type { ClientSet } from "../clients/client-set";
import { runWatchTick, type TickApply, type TickFindings, type TickHooks, type TickMemory, type TickReport } from "./watch-tick";
import { runRereadTick, type WatchView } from "./watch-reread";
import { describeAttribution, type ChangeAttribution } from "../domain/changes/change-record";
import type { ChangeQueue } from "../domain/changes/change-queue";
import { planReread, type RereadPlan } from "../domain/rereads/reread-plan";
import { withDiscovered } from "../domain/stack/scope-discovered";
import { readUnlisted, type UnlistedRead } from "./scope";
import { enabledRules } from "../domain/compliance/evaluate";
import type { ComplianceFacts } from "../domain/facts/model/compliance-facts";
import { unreadLine } from "../domain/stack/unread-entry";
import { formatDuration } from "../platform/duration";
import type { Finding } from "../domain/compliance/finding";
import { coverageCounts } from "../domain/discovery/scope-coverage";
import type { CoverageCounts } from "../domain/reports/compliance-report";
import type { Readiness, StackStatusPort, WatchMeter } from "./watch-ports";
import { nextTickAt, periodOf, type Schedule } from "./watch-schedule";
import { mergedReads, withCompliance, type WatchedDatabase } from "./watch-inventory";

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
  /** Where locks, audit trails and probe results live. */
  state: StateStores;
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
  metrics: WatchMeter;
  /** The fence before an apply (the replica's lease): a replica that no longer leads applies nothing. */
  fence?: () => Promise<void>;
  /** Keeps the stack's status for the status page, the API and the events. */
  status?: StackStatusPort;
  /**
   * Change records (ChangeFeed): each batch is a targeted re-read between sweeps, after `debounceMs`
   * (writes that come together are read together). Absent: only the schedule's sweeps.
   */
  changes?: { queue: ChangeQueue; debounceMs: number };
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
  private applyRunning = false;
  private memory: TickMemory = { lastRefused: "" };
  private lastStart = Number.NEGATIVE_INFINITY;
  /** Cuts a wait short when changes arrive (nudge). */
  private wake?: AbortController;
  private rereads = 0;
  /** The whole stack's drift and findings as last shown: what a re-read updates. Absent before the first sweep. */
  private view?: WatchView;
  /** The facts of the last sweep: which vaults and keys the stack's protectors lead to. */
  private lastFacts?: ComplianceFacts;
  /** Who changed each database still drifted (lower-cased id): its drift keeps saying so at the next sweeps. */
  private readonly causes = new Map<string, ChangeAttribution>();

  constructor(private readonly o: WatchOptions) {}

  /**
   * Runs sweeps on the schedule until stop() or maxTicks, and between them a targeted re-read for
   * each batch of changes; resolves when the last tick (and its apply) has ended.
   */
  async run(): Promise<void> {
    while (!this.stopping) {
      if (this.tickNo > 0) {
        const due = nextTickAt(this.o.schedule, this.lastStart);
        if (Date.now() < due) {
          if (this.changesWaiting()) await this.reread();
          else await this.sleepUntil(due);
          continue; // a wake, a timer cap or a re-read: look again at what is due
        }
      }
      if (this.stopping) break;
      this.lastStart = Date.now();
      this.absorbChanges();
      await this.tick();
      if (this.o.maxTicks !== undefined && this.tickNo >= this.o.maxTicks) this.stop(`${this.o.maxTicks} tick(s) done (--max-ticks)`);
    }
    clearTimeout(this.graceTimer);
  }

  /** Changes arrived (the feed's wake): a wait for the next sweep ends, so they are read now. */
  nudge(): void {
    this.wake?.abort();
  }

  /** Waits until `due`, a stop, or a nudge. */
  private async sleepUntil(due: number): Promise<void> {
    const wake = (this.wake = new AbortController());
    if (this.changesWaiting()) return; // a nudge that came before the wait began
    try {
      await delay(Math.min(due - Date.now(), 2 ** 31 - 1), undefined, { signal: AbortSignal.any([this.sleep.signal, wake.signal]) });
    } catch {
      /* stopped or nudged */
    } finally {
      this.wake = undefined;
    }
  }

  /** Changes wait, and a sweep has shown the whole stack (a re-read updates what it showed). */
  private changesWaiting(): boolean {
    return !!this.o.changes?.queue.waiting && this.view !== undefined;
  }

  /**
   * One batch of changes: after the debounce, the re-read they plan (reread-plan.ts), or a sweep of
   * the whole stack when the queue overflowed; changes to nothing the stack depends on read nothing.
   */
  private async reread(): Promise<void> {
    const changes = this.o.changes!;
    // The debounce never holds up a sweep that falls due: the sweep reads the changes instead (absorbChanges).
    const due = nextTickAt(this.o.schedule, this.lastStart);
    await delay(Math.max(0, Math.min(changes.debounceMs, due - Date.now())), undefined, { signal: this.sleep.signal }).catch(
      () => undefined,
    );
    if (this.stopping || Date.now() >= due) return;
    const batch = changes.queue.take();
    if (batch.overflowed) {
      this.o.log(`changes: more resources changed than the queue holds: sweeping the stack`);
      this.lastStart = Date.now();
      await this.tick();
      return;
    }
    let plan: RereadPlan | undefined;
    let stack: StackConfig;
    try {
      stack = this.o.loadStack();
      plan = planReread(stack, batch.changes, enabledRules(stack.policies), this.lastFacts);
    } catch {
      return; // a stack file that cannot be read fails the next sweep, which says why
    }
    if (plan?.unlisted.length) plan = await this.withUnlisted(stack, plan);
    if (plan?.stack.databases.length) await this.tick(plan, batch.changes.size);
  }

  /**
   * A re-read's plan with the unlisted databases of the scope its changes named: each read once
   * (scope.ts `readUnlisted`), those in scope judged as discovered ones (and repaired only with
   * `scope.remediate`), those gone dropped from the view and its counts. Not a sweep: nothing else
   * of the scope is listed. A failed read leaves them to the next sweep.
   */
  private async withUnlisted(stack: StackConfig, plan: RereadPlan): Promise<RereadPlan | undefined> {
    let read: UnlistedRead;
    try {
      read = await readUnlisted(stack, this.o.clients, plan.unlisted, this.sleep.signal);
    } catch (e) {
      this.o.log(`changes: unlisted database(s) in scope could not be read (${(e as Error).message}); the next sweep reads them`);
      return plan.stack.databases.length ? plan : undefined;
    }
    if (read.gone.length && this.view) {
      const gone = new Set(read.gone);
      this.view = {
        drift: this.view.drift.filter((i) => !gone.has(i.id.toLowerCase())),
        findings: this.view.findings.filter((f) => !gone.has(f.resourceId.toLowerCase())),
        databases: mergedReads(this.view.databases, [], read.gone),
      };
      this.o.metrics.drift.set({ stack: this.o.stackName }, this.view.drift.length);
      this.o.metrics.setFindings(this.o.stackName, this.view.findings);
      this.o.log(`changes: ${read.gone.length} database(s) of the scope deleted: no longer counted (${read.gone.join(", ")})`);
    }
    const { coverage: _coverage, ...widened } = withDiscovered(plan.stack, { databases: read.inScope, servers: 0 });
    return { ...plan, stack: widened };
  }

  /**
   * A sweep reads everything: the changes waiting are read by it, and who made them stays with the
   * drift it finds on the databases they reach.
   */
  private absorbChanges(): void {
    const queue = this.o.changes?.queue;
    if (!queue?.waiting) return;
    const batch = queue.take();
    try {
      const stack = this.o.loadStack();
      const plan = planReread(stack, batch.changes, enabledRules(stack.policies), this.lastFacts);
      for (const [id, cause] of plan?.causes ?? []) this.causes.set(id, cause);
    } catch {
      /* a stack file that cannot be read fails the sweep, which says why */
    }
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
    if (this.applyStop && this.applyRunning) {
      const stop = this.applyStop;
      this.o.log(`an apply is running: it may finish within the grace period of ${formatDuration(this.o.graceMs)}`);
      this.graceTimer = setTimeout(
        () => stop.abort(new Error(`the grace period of ${formatDuration(this.o.graceMs)} ran out`)),
        this.o.graceMs,
      );
    }
  }

  /**
   * Takes the last tick of the watcher this one replaces (the same stack, this process's previous
   * term of leadership): a replica that loses its lease and wins it back goes on being as ready as
   * its last tick says, instead of "no tick has finished yet" until the new term's first tick.
   */
  carryOver(previous: Watcher | undefined): void {
    if (previous && previous.stackName === this.stackName && !this.last) this.last = previous.last;
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

  /** The queue its change records wait in (absent without change records). */
  get changeQueue(): ChangeQueue | undefined {
    return this.o.changes?.queue;
  }

  /** Ticks run so far. */
  get ticks(): number {
    return this.tickNo;
  }

  /** A sweep of the whole stack, or (with a plan) a targeted re-read of what `changed` resources reach. */
  private async tick(plan?: RereadPlan, changed = 0): Promise<void> {
    const n = plan ? this.tickNo : ++this.tickNo;
    const startedAt = Date.now();
    const reads = (this.reads = new AbortController());
    // Every request of the tick listens to this signal, up to --concurrency at once: not a leak.
    setMaxListeners(0, reads.signal);
    let tag = plan ? `re-read ${++this.rereads}` : `tick ${n}`;
    let error: string | undefined;
    let errorCode: ErrorCode | undefined;
    let commit: string | null = null;
    let subject: string | null = null;
    let ended: { drift: TdePlanItem[]; findings: Finding[]; databases: WatchedDatabase[]; coverage?: CoverageCounts } | undefined;
    const stop = (this.applyStop = new AbortController());
    setMaxListeners(0, stop.signal);
    try {
      if (plan) {
        this.o.metrics.rereads.inc({ stack: this.o.stackName });
        this.o.log(
          `${tag}: ${changed} changed resource(s) reach ${plan.stack.databases.length} database(s); judging ${plan.rules.length} rule(s)`,
        );
      }
      if (this.o.git && !plan) {
        const g = this.o.git;
        commit = await fetchFastForward(g.dir, g.remote, g.branch, reads.signal);
        tag = `tick ${n} @${commit.slice(0, 12)}`;
        this.o.metrics.setCommit(this.o.stackName, commit);
        subject = await commitSubject(g.dir, commit);
      }
      const report = await this.read(plan, tag, commit, reads.signal, stop.signal);
      this.memory = report.memory;
      if (report.apply) this.showApply(tag, report.apply);
      const converged = report.apply?.result?.outcomes.filter((o) => o.ok).length ?? 0;
      this.o.metrics.drift.set({ stack: this.o.stackName }, report.remaining.length);
      this.o.metrics.setFindings(this.o.stackName, report.findings);
      // The scope's counts come from a sweep only: a re-read judges the few databases its changes reach.
      const coverage = !plan && report.check.coverage ? coverageCounts(report.check.coverage, report.findings) : undefined;
      const before = this.view;
      this.remember(report, !plan);
      ended = {
        drift: report.remaining,
        findings: report.findings,
        databases: withCompliance(this.view!.databases, report.findings),
        ...(coverage ? { coverage } : {}),
      };
      if (plan) this.o.log(`${tag}: ${rereadLine(before, this.view!)}`);
      const failedApply = (report.apply?.result?.outcomes.length ?? 0) - converged;
      if (failedApply > 0 && !this.stopping) throw notConvergedError(report.apply?.result?.outcomes ?? []);
      const unread = report.check.unread;
      if (unread.length > 0) throw unreadError(unread);
    } catch (e) {
      if (this.stopping && reads.signal.aborted) {
        this.o.log(`${tag}: stopped by shutdown`);
      } else {
        error = oneLine(e);
        errorCode = errorCodeOf(e);
        this.o.log(`${tag}: FAILED: ${error}`);
      }
    } finally {
      this.applyStop = undefined;
      this.applyRunning = false;
      clearTimeout(this.graceTimer);
    }
    const finishedAt = Date.now();
    const durationMs = finishedAt - startedAt;
    const interrupted = this.stopping && !error && reads.signal.aborted;
    await this.o.status?.ticked({
      number: n,
      commit,
      commitSubject: subject,
      startedAt,
      finishedAt,
      outcome: interrupted ? "interrupted" : error ? "failed" : "succeeded",
      error,
      errorCode,
      ...(ended && !error ? ended : {}),
      nextTickAt: this.stopping ? undefined : nextTickAt(this.o.schedule, this.lastStart),
      ...(plan ? { reread: { number: this.rereads, changed, databases: plan.stack.databases.length, rules: plan.rules.length } } : {}),
    });
    // An interrupted tick is neither a success nor a failure; a re-read is no sweep (readiness and tick metrics are the sweeps').
    if (interrupted || plan) return;
    this.last = { n, startedAt, finishedAt, durationMs, error };
    this.o.metrics.ticks.inc({ stack: this.o.stackName, result: error ? "error" : "ok" });
    this.o.metrics.tickDuration.observe({ stack: this.o.stackName }, durationMs / 1000);
    if (!error) this.o.metrics.lastSuccess.set({ stack: this.o.stackName }, finishedAt / 1000);
  }

  /** The reading (and repairing) half of a tick: a sweep of the stack file's whole stack, or the plan's re-read of part of it. */
  private read(
    plan: RereadPlan | undefined,
    tag: string,
    commit: string | null,
    signal: AbortSignal,
    stop: AbortSignal,
  ): Promise<TickReport> {
    const req = {
      stack: this.o.loadStack(),
      stackName: this.o.stackName,
      clients: this.o.clients,
      cwd: this.o.cwd,
      state: this.o.state,
      commit,
      commitOf: this.o.commitOf,
      autoApply: this.o.autoApply && !plan,
      autoRemediate: this.o.autoRemediate,
      lockTimeoutMs: this.o.lockTimeoutMs,
      concurrency: this.o.concurrency,
      scanTimeoutMs: this.o.scanTimeoutMs,
      pollIntervalMs: this.o.pollIntervalMs,
      memory: this.memory,
      signal,
      stop,
      fence: this.o.fence,
      warn: (line: string) => this.o.log(`${tag}: ${line}`),
      causes: this.causes,
    };
    const hooks = this.tickHooks(tag, (found) => {
      this.logFound(tag, found, plan);
      this.showDriftBeforeRepair(found, plan);
    });
    return plan && this.view ? runRereadTick(req, plan, this.view, hooks) : runWatchTick(req, hooks);
  }

  /** Keeps what the next re-read builds on: the whole stack's view, a sweep's facts, who caused the drift still there. */
  private remember(report: TickReport, sweep: boolean): void {
    this.view = { drift: report.remaining, findings: report.findings, databases: report.databases };
    if (sweep) this.lastFacts = report.check.facts;
    const still = new Map(report.remaining.flatMap((i) => (i.cause ? [[i.id.toLowerCase(), i.cause] as const] : [])));
    this.causes.clear();
    for (const [id, cause] of still) this.causes.set(id, cause);
  }

  /** What the watcher says, counts and shows while a tick runs. */
  private tickHooks(tag: string, found: (f: TickFindings) => void): TickHooks {
    return {
      judged: found,
      say: (line) => this.o.log(`${tag}: ${line}`),
      applying: (trigger) => {
        this.applyRunning = true;
        this.o.status?.applying(trigger);
      },
      refused: () => this.o.metrics.remediations.inc({ stack: this.o.stackName, outcome: "refused" }),
      lockWait: (holder) => {
        this.o.metrics.lockBusy.inc({ stack: this.o.stackName });
        this.o.log(
          `${tag}: stack ${this.o.stackName} is locked by ${describeHolder(holder)}; waiting up to ${formatDuration(this.o.lockTimeoutMs)}`,
        );
      },
      lockAcquired: (waitedMs) => this.o.metrics.lockWait.observe({ stack: this.o.stackName }, waitedMs / 1000),
      lockRecovered: (holder) => {
        this.o.log(`${tag}: recovered the lock left by ${describeHolder(holder)}: that process no longer runs`);
        this.o.status?.recovered(holder);
      },
      event: (e) => this.o.log(`${tag}: ${describeEvent(e)}`),
    };
  }

  /**
   * Drift about to be repaired shows first (the status page, the API and `drift.detected`, with who
   * made it), so a repair within the tick that found it still announces what it repaired.
   */
  private showDriftBeforeRepair(found: TickFindings, plan: RereadPlan | undefined): void {
    if (!this.o.autoRemediate || found.drift.length === 0) return;
    const reread = new Set(found.items.map((i) => i.id.toLowerCase()));
    const others = plan && this.view ? this.view.drift.filter((i) => !reread.has(i.id.toLowerCase())) : [];
    this.o.status?.judged([...others, ...found.drift]);
  }

  /** The tick's reading: drift, findings and what could not be read. */
  private logFound(tag: string, { check, drift }: TickFindings, plan?: RereadPlan): void {
    // A re-read's own reading is part of the stack: its line, once merged, gives the stack's counts (rereadLine).
    if (!plan) this.o.log(`${tag}: ${drift.length} drifted, ${summarize(check)}`);
    for (const d of drift)
      this.o.log(
        `${tag}:   ~ ${databaseLabel(d.ref)} TDE live ${d.live ?? "unknown"}, desired ${d.desired.transparentDataEncryption}, ${describeAttribution(d.cause)}`,
      );
    // A database the cloud does not have: at its stack-file line, as every command says it; the
    // others are reconciled, and the tick fails at its end until the stack is fixed.
    for (const u of check.unread) this.o.log(`${tag}: ${unreadLine(u)}`);
  }

  /** Shows how a tick's apply went (status, metrics, log); an apply that failed fails the tick. */
  private showApply(tag: string, a: TickApply): void {
    this.applyRunning = false;
    const { trigger } = a;
    if (!a.result) {
      // A held lock changed nothing (the tick fails and is tried again); anything else failed the apply.
      if (a.lockBusy) this.o.status?.notApplied();
      else
        this.o.status?.applied({
          trigger,
          startedAt: a.startedAt,
          finishedAt: a.finishedAt,
          commit: a.commit,
          exitCode: 1,
          converged: 0,
          failed: a.items,
          auditSeq: null,
          changedBy: [],
        });
      // A wait that ran out was counted when it began; a refusal without a wait is counted here.
      if (a.lockBusy && a.lockBusy.waitedMs === 0) this.o.metrics.lockBusy.inc({ stack: this.o.stackName });
      throw a.error;
    }
    const r = a.result;
    this.o.metrics.applies.inc({ stack: this.o.stackName, trigger, exit_code: String(r.exitCode) });
    const ok = r.outcomes.filter((o) => o.ok).length;
    if (trigger === "remediation")
      for (const o of r.outcomes)
        this.o.metrics.remediations.inc({ stack: this.o.stackName, outcome: o.ok ? "converged" : r.stopped ? "interrupted" : "failed" });
    this.o.status?.applied(
      {
        trigger,
        startedAt: a.startedAt,
        finishedAt: a.finishedAt,
        commit: a.commit,
        exitCode: r.exitCode,
        converged: ok,
        failed: r.outcomes.length - ok,
        auditSeq: r.entry.seq,
        changedBy: r.outcomes.flatMap((o) => (o.item.cause ? [o.item.cause] : [])),
      },
      r.entry,
    );
    this.o.log(
      `${tag}: ${trigger === "commit" ? "apply" : "remediation"}: ${ok} of ${r.outcomes.length} converged${r.stopped ? " (stopped by shutdown)" : ""}; audit entry ${r.entry.seq} in ${this.o.state.audit.where(this.o.stackName)}`,
    );
  }
}

/**
 * What a re-read leaves: the whole stack's counts after it (drifted, mandatory and advisory
 * findings), then what the re-read itself changed: databases newly drifted or repaired, failing
 * findings raised or cleared.
 */
export function rereadLine(before: WatchView | undefined, after: WatchView): string {
  const drifted = (v?: WatchView) => new Set((v?.drift ?? []).map((i) => i.id.toLowerCase()));
  const failing = (v: WatchView | undefined, level: Finding["level"]) =>
    new Set(
      (v?.findings ?? []).filter((f) => f.verdict === "fail" && f.level === level).map((f) => `${f.ruleId} ${f.resourceId.toLowerCase()}`),
    );
  const diff = (a: Set<string>, b: Set<string>) => [[...b].filter((x) => !a.has(x)).length, [...a].filter((x) => !b.has(x)).length];
  const [newDrift, repaired] = diff(drifted(before), drifted(after));
  const count = (level: Finding["level"]) => after.findings.filter((f) => f.verdict === "fail" && f.level === level).length;
  const [raisedM, clearedM] = diff(failing(before, "mandatory"), failing(after, "mandatory"));
  const [raisedA, clearedA] = diff(failing(before, "advisory"), failing(after, "advisory"));
  const changes = [
    newDrift && `${newDrift} newly drifted`,
    repaired && `${repaired} no longer drifted`,
    raisedM && `${raisedM} mandatory finding(s) raised`,
    clearedM && `${clearedM} mandatory cleared`,
    raisedA && `${raisedA} advisory raised`,
    clearedA && `${clearedA} advisory cleared`,
  ].filter(Boolean);
  return `the stack now has ${after.drift.length} drifted, ${count("mandatory")} mandatory and ${count("advisory")} advisory finding(s); this re-read changed ${changes.length ? changes.join(", ") : "nothing"}`;
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
