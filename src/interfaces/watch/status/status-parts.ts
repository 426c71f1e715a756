import type { AuditEntry } from "../../../domain/audit/audit-entry";
import type { Finding } from "../../../domain/compliance/finding";
import type { ProbeResult } from "../../../domain/probes/probe-runner";
import type { LockHolder } from "../../../domain/reconcile/stack-lock";
import type { TdePlanItem } from "../../../domain/reconcile/tde-plan";
import { databaseLabel, databaseRefOf } from "../../../platform/arm/resource-id";
import type {
  AuditEntrySummary,
  AuditStatus,
  DriftStatus,
  FindingsStatus,
  LockHolderStatus,
  LockStatus,
  ProbesStatus,
  RuleFindings,
  StackFileLine,
  StackStatus,
  StatusCondition,
  TickStatus,
} from "./stack-status";
import { CONDITION_REASONS, reasonOfFailure, STALLED_AFTER_FAILURES } from "./condition-reasons";

// Builders of the status's parts from what a tick has in hand (plan items, findings, the lock
// holder, probe results, audit entries). They copy only the fields the status shows, so nothing
// else a domain object carries (a token claim, a probe parameter) can reach the API.

/** Advisory or exempt findings listed per rule; mandatory failures are always all listed (events are derived from them). */
export const FINDINGS_LISTED_PER_RULE = 50;
/** Audit entries the status keeps. */
export const AUDIT_ENTRIES_KEPT = 5;
/**
 * Entries read from the trail's end once per tick: the audit part keeps the last AUDIT_ENTRIES_KEPT,
 * the deployment looks for the last apply among all of them (so a few evidence anchors or lock
 * breaks after it do not hide it from a watcher that starts afresh).
 */
export const AUDIT_TAIL_READ = 10;
/** Resources named per audit entry. */
export const AUDIT_RESOURCES_NAMED = 10;

/** The drift part from a tick's plan items (those whose action is not `none` are drifted). */
export function driftOf(items: readonly TdePlanItem[], checkedAt: Date): DriftStatus {
  const drifted = items.filter((i) => i.action !== "none");
  return {
    state: drifted.length ? "drifted" : "in-sync",
    checkedAt: checkedAt.toISOString(),
    since: null,
    episode: 0,
    resources: drifted.map((i) => ({
      id: i.id,
      label: databaseLabel(i.ref),
      property: "transparentDataEncryption",
      desired: i.desired.transparentDataEncryption,
      live: i.live ?? null,
      source: lineOf(i.desired.source),
      changedBy: i.cause ?? null,
    })),
  };
}

/** The findings part: failing and exempt findings grouped by rule and level, mandatory first. */
export function findingsOf(findings: readonly Finding[], checkedAt: Date, listedPerRule = FINDINGS_LISTED_PER_RULE): FindingsStatus {
  const rules = new Map<string, RuleFindings>();
  let mandatory = 0;
  let advisory = 0;
  let exempt = 0;
  for (const f of findings) {
    if ((f.verdict !== "fail" && f.verdict !== "exempt") || (f.level !== "mandatory" && f.level !== "advisory")) continue;
    const key = `${f.level}\u0000${f.ruleId}`;
    let r = rules.get(key);
    if (!r) rules.set(key, (r = { ruleId: f.ruleId, level: f.level, failing: 0, exempt: 0, findings: [], truncated: 0 }));
    if (f.verdict === "fail") {
      r.failing++;
      if (f.level === "mandatory") mandatory++;
      else advisory++;
    } else {
      r.exempt++;
      exempt++;
    }
    const always = f.level === "mandatory" && f.verdict === "fail";
    if (!always && r.findings.length >= listedPerRule) {
      r.truncated++;
      continue;
    }
    r.findings.push({
      resourceId: f.resourceId,
      label: f.label,
      message: f.message,
      facet: f.facet ?? null,
      verdict: f.verdict,
      source: lineOf(f.source),
      episode: null,
    });
  }
  const order = (r: RuleFindings) => `${r.level === "mandatory" ? 0 : 1}${r.ruleId}`;
  return {
    checkedAt: checkedAt.toISOString(),
    mandatory,
    advisory,
    exempt,
    rules: [...rules.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0)),
  };
}

/** A lock holder as the status shows it (pid, host, command, since). */
export function lockHolderOf(h: LockHolder): LockHolderStatus {
  return { pid: h.pid, host: h.host, command: h.command, since: h.since };
}

/** The lock part: who holds it now (undefined: free), and the last lock recovered from a dead holder. */
export function lockOf(holder: LockHolder | undefined, lastRecovered: { holder: LockHolder; at: Date } | null = null): LockStatus {
  return {
    state: holder ? "held" : "free",
    holder: holder ? lockHolderOf(holder) : null,
    lastRecovered: lastRecovered ? { holder: lockHolderOf(lastRecovered.holder), at: lastRecovered.at.toISOString() } : null,
  };
}

/** The probes part from a run's results: outcome, latency, the issuer's status and error; never parameters or documents. */
export function probesOf(results: readonly ProbeResult[], ranAt: Date | string): ProbesStatus {
  return {
    ranAt: typeof ranAt === "string" ? new Date(ranAt).toISOString() : ranAt.toISOString(),
    passed: results.filter((r) => r.outcome === "passed").length,
    failed: results.filter((r) => r.outcome === "failed").length,
    results: results.map((r) => ({
      name: r.name,
      issuer: r.issuer,
      doctype: r.doctype,
      format: r.format,
      outcome: r.outcome,
      latencyMs: r.latencyMs,
      status: r.status ?? null,
      error: r.error ? { code: r.error.code, message: r.error.message } : null,
      episode: null,
    })),
  };
}

/** The audit part from the trail's entries (oldest first, as the trail holds them): its head and the last entries, newest first. */
export function auditOf(entries: readonly AuditEntry[], kept = AUDIT_ENTRIES_KEPT): AuditStatus {
  const last = entries.at(-1);
  return {
    head: last ? { seq: last.seq, hash: last.hash } : null,
    last: entries.slice(-kept).reverse().map(auditEntrySummaryOf),
  };
}

/** One audit entry as the status shows it: who by host and application id only (no user or tenant id). */
export function auditEntrySummaryOf(e: AuditEntry): AuditEntrySummary {
  const outcomes: Record<string, number> = {};
  for (const c of e.what) outcomes[c.outcome] = (outcomes[c.outcome] ?? 0) + 1;
  return {
    seq: e.seq,
    hash: e.hash,
    at: e.at,
    command: e.command,
    who: { host: e.who.host, appId: e.who.appid ?? null },
    what: { changes: e.what.length, outcomes, resources: e.what.slice(0, AUDIT_RESOURCES_NAMED).map((c) => resourceLabel(c.resource)) },
    commit: e.commit,
    exitCode: e.exitCode,
  };
}

/**
 * The condition that follows from the rest of a status: an apply running is Reconciling; before
 * the first tick, Reconciling; a failed tick takes its reason from its error's code
 * (condition-reasons.ts): one that needs a person is Stalled at once, a transient one is retried
 * (Reconciling) until it has failed STALLED_AFTER_FAILURES times in a row (Stalled, TickFailing);
 * a failed apply of this watcher's own (`lastApply`; one by someone else is not the watcher's
 * condition, and shows in the deployment) needs a person (Stalled); else Ready. Ready says the
 * watcher did its work, not that the stack is fine: that is what `sync` and `compliance` answer.
 */
export function conditionOf(
  s: Pick<StackStatus, "deployment" | "lastTick" | "drift" | "findings">,
): Omit<StatusCondition, "lastTransitionTime"> {
  const d = s.deployment;
  if (d.state === "applying") {
    return d.applying === "remediation"
      ? { type: "Reconciling", reason: "Remediating", code: null, message: "repairing drift" }
      : { type: "Reconciling", reason: "Applying", code: null, message: "applying a new commit" };
  }
  const t = s.lastTick;
  if (!t) return { type: "Reconciling", reason: "AwaitingFirstTick", code: null, message: "waiting for the first tick" };
  if (t.outcome === "failed") return failedTickCondition(t);
  if (d.lastApply && d.lastApply.failed > 0) {
    const remediation = d.lastApply.trigger === "remediation";
    const failed = d.lastApply.failed;
    return {
      type: "Stalled",
      reason: remediation ? "RemediationFailed" : "ApplyFailed",
      code: null,
      message: `${remediation ? "the last repair" : "the last apply"} left ${failed} change(s) unconverged`,
    };
  }
  const drift =
    s.drift.state === "drifted" ? `${s.drift.resources.length} drifted` : s.drift.state === "in-sync" ? "in sync" : "drift unknown";
  return {
    type: "Ready",
    reason: "Reconciled",
    code: null,
    message: `tick ${t.number} succeeded: ${drift}, ${s.findings.mandatory} mandatory and ${s.findings.advisory} advisory finding(s)`,
  };
}

/** A failed tick: stalled at once when a person must act, else retried until the retries run out. */
function failedTickCondition(t: TickStatus): Omit<StatusCondition, "lastTransitionTime"> {
  const reason = reasonOfFailure(t.errorCode);
  const error = t.error ?? "see the log";
  const code = t.errorCode;
  if (CONDITION_REASONS[reason].kind === "stalled")
    return { type: "Stalled", reason, code, message: `tick ${t.number} failed and needs a person (retrying will not help): ${error}` };
  if (t.consecutiveFailures >= STALLED_AFTER_FAILURES)
    return { type: "Stalled", reason: "TickFailing", code, message: `${t.consecutiveFailures} ticks in a row failed: ${error}` };
  return { type: "Reconciling", reason, code, message: `tick ${t.number} failed and is retried: ${error}` };
}

function lineOf(source: { file: string; line: number; column: number } | undefined): StackFileLine | null {
  return source ? { file: source.file, line: source.line, column: source.column } : null;
}

/** `rg/server/db` for a database id; the id itself for anything else. */
function resourceLabel(id: string): string {
  const ref = databaseRefOf(id);
  return ref ? databaseLabel(ref) : id;
}
