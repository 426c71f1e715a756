/**
 * The status of one watched stack, as the status page, `GET /api/v1/stacks[/NAME]` and the events
 * show it. `stack-status.schema.json` beside this file is its JSON Schema (the API serves it at
 * `/api/v1/schema`; a test validates every response against it): change both together.
 *
 * What it never holds: a token, a key, a secret, a probe parameter, an identity's object or tenant
 * id. Audit entries show who by host and application id only; lock holders by pid and host.
 *
 * Times are ISO 8601 strings (UTC), durations milliseconds. Absent values are `null`, never
 * missing keys, so that clients read one shape.
 */

import type { ChangeAttribution } from "../../../domain/changes/change-record";
import type { ErrorCode } from "../../../platform/errors/error-codes";
import type { CoverageCounts } from "../../../domain/reports/compliance-report";
import type { ConditionReason, ConditionType } from "./condition-reasons";

export { CONDITION_REASONS, CONDITION_TYPES, type ConditionReason, type ConditionType } from "./condition-reasons";

/** The stack's condition: which of Ready, Reconciling or Stalled holds, and why. */
export interface StatusCondition {
  type: ConditionType;
  /** CamelCase, for machines: one of CONDITION_REASONS (condition-reasons.ts), each typed transient or stalled. */
  reason: ConditionReason;
  /** The stable error code (`SW_…`, error-codes.ts) of the failure the reason comes from; null when none did. */
  code: ErrorCode | null;
  /** One sentence, for people. */
  message: string;
  /** When the type or the reason last changed (kept by the StatusBoard). */
  lastTransitionTime: string;
}

/** Where in the stack file something is written. */
export interface StackFileLine {
  file: string;
  line: number;
  column: number;
}

/** A resource whose live state differs from the stack file. */
export interface DriftedResource {
  /** The ARM id. */
  id: string;
  /** `rg/server/database`. */
  label: string;
  /** The property that differs. */
  property: "transparentDataEncryption";
  desired: string;
  /** As the API said it; null when it could not be read. */
  live: string | null;
  /** Where the stack file declares the resource. */
  source: StackFileLine | null;
  /**
   * Who changed it and how, when a change record (the Activity Log, Event Grid) led the watcher to
   * it: caller, time, operation, source and correlation id. Null when the full sweep found it ("by the sweep").
   */
  changedBy: ChangeAttribution | null;
}

/**
 * Drift, kept apart from deployment (one combined status hides results). `unknown` only until the
 * first successful check: a failed tick leaves the last known drift in place (see `lastTick`).
 */
export interface DriftStatus {
  state: "unknown" | "in-sync" | "drifted";
  /** When live state was last read. */
  checkedAt: string | null;
  /** When the current drift episode began; null when not drifted (kept by the StatusBoard). */
  since: string | null;
  /** The number of the current (or last) drift episode, 0 before the first (kept by the StatusBoard; events are named after it). */
  episode: number;
  resources: DriftedResource[];
}

/** An apply the watcher made: of a new commit, or a repair of drift. */
export interface ApplyRecord {
  trigger: "commit" | "remediation";
  startedAt: string;
  finishedAt: string;
  commit: string | null;
  /** 0 when every change converged. */
  exitCode: number;
  converged: number;
  failed: number;
  /** The audit entry that records it; null when none was written. */
  auditSeq: number | null;
  /** Who made the drift a remediation repaired, for each change a change record named; empty when the sweep found it (and for a commit's apply). */
  changedBy: ChangeAttribution[];
}

/**
 * An apply as the stack's audit trail records it, whoever made it: `apply` (the CLI, by hand or in a
 * pipeline: `who` tells them apart), `apply --engine pulumi`, the watcher's `watch` (a new commit)
 * and `remediate` (a repair), or `recover` (an apply whose pending record could not be read).
 */
export interface TrailApply extends AuditEntrySummary {
  /**
   * `succeeded`: exit code 0; `failed`: any other; `interrupted`: the process was killed mid-way
   * (a `started` entry, exit code null, written for it by the next holder of the lock).
   */
  outcome: "succeeded" | "failed" | "interrupted";
}

/**
 * What is deployed, apart from what drifted since: read from the stack's audit trail, so an apply
 * by anyone shows, not only this watcher's own.
 */
export interface DeploymentStatus {
  /**
   * `applying` while this watcher applies; else the outcome of `last`; `none` when the trail holds no
   * apply; `unknown` when the entries read (the trail's end) hold none and none was seen before.
   */
  state: "none" | "unknown" | "applying" | "succeeded" | "failed" | "interrupted";
  /** What this watcher is applying now (a new commit, or a repair of drift); null when it is not applying. */
  applying: ApplyRecord["trigger"] | null;
  /** The commit the last apply that succeeded acted on (its audit entry's), else null. */
  commit: string | null;
  /**
   * The last apply on the trail, by anyone. Found among the entries the status reads from the
   * trail's end (AUDIT_TAIL_READ); once found it is kept until a later one appears, however many
   * other entries (evidence anchors, lock breaks) follow it.
   */
  last: TrailApply | null;
  /** The last apply this watcher made (its `apply.*` and `remediation.*` events are derived from it). */
  lastApply: ApplyRecord | null;
}

/** The last tick that ended. */
export interface TickStatus {
  /** 1 for the watcher's first tick. */
  number: number;
  commit: string | null;
  /** The commit's subject line, as git has it (free text: the page escapes it). */
  commitSubject: string | null;
  /** `interrupted`: stopped by a shutdown. */
  outcome: "succeeded" | "failed" | "interrupted";
  /** One line, when it failed. */
  error: string | null;
  /** The stable code of that error (`SW_…`), when it failed; the condition's reason follows from it. */
  errorCode: ErrorCode | null;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** Failed ticks in a row, this one included (0 after a success). */
  consecutiveFailures: number;
}

/** The last targeted re-read between ticks (after change records): it updates drift and findings, not `lastTick`. */
export interface RereadStatus {
  /** 1 for the watcher's first re-read. */
  number: number;
  /** The tick it followed. */
  afterTick: number;
  outcome: "succeeded" | "failed" | "interrupted";
  error: string | null;
  errorCode: ErrorCode | null;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** What it re-read: the changed resources that caused it, the databases they reach, the rules judged again. */
  changed: number;
  databases: number;
  rules: number;
}

/** One failing (or exempted) finding, as the page lists it. */
export interface FindingSummary {
  resourceId: string;
  label: string;
  message: string;
  /** Tells apart several findings of one rule on one resource; null when there is one. */
  facet: string | null;
  /** `exempt`: it would fail, but an active exemption covers it. */
  verdict: "fail" | "exempt";
  source: StackFileLine | null;
  /** For mandatory failures, the episode the finding was raised in (kept by the StatusBoard; events are named after it); else null. */
  episode: number | null;
}

/** The findings of one rule at one enforcement level. */
export interface RuleFindings {
  ruleId: string;
  level: "mandatory" | "advisory";
  /** Failing findings (exempt ones not counted). */
  failing: number;
  exempt: number;
  /** Every mandatory failure; other findings up to a bound (see `truncated`). */
  findings: FindingSummary[];
  /** Findings left out of `findings` for size. */
  truncated: number;
}

/**
 * The compliance findings of the last check, by enforcement level and rule. A failed tick leaves the
 * last findings in place (see `lastTick`): emptied, they would be announced as cleared, then raised again.
 */
export interface FindingsStatus {
  checkedAt: string | null;
  mandatory: number;
  advisory: number;
  exempt: number;
  /** Rules with at least one failing or exempt finding: mandatory first, then by rule id. */
  rules: RuleFindings[];
}

/** Who holds (or held) the stack's apply lock. */
export interface LockHolderStatus {
  pid: number;
  host: string;
  /** What took it: `apply`, `watch`, `remediate`. */
  command: string;
  since: string;
}

export interface LockStatus {
  state: "free" | "held";
  holder: LockHolderStatus | null;
  /** The last lock recovered from a process that no longer ran. */
  lastRecovered: { holder: LockHolderStatus; at: string } | null;
}

/** One probe's last result: never its parameters, never the document. */
export interface ProbeStatus {
  name: string;
  issuer: string;
  doctype: string;
  format: string;
  outcome: "passed" | "failed";
  latencyMs: number;
  /** The issuer's HTTP status; null when no answer came. */
  status: number | null;
  error: { code: string; message: string } | null;
  /** For a failure, the episode it began in (kept by the StatusBoard; events are named after it); else null. */
  episode: number | null;
}

export interface ProbesStatus {
  ranAt: string | null;
  passed: number;
  failed: number;
  results: ProbeStatus[];
}

/** One audit entry, as the page shows it. */
export interface AuditEntrySummary {
  seq: number;
  hash: string;
  at: string;
  /** `apply`, `watch`, `remediate` … */
  command: string;
  /** The machine and the application id of the credential; no user or tenant id. */
  who: { host: string; appId: string | null };
  /** What changed: a count by outcome, and the resources (labels, up to a bound). */
  what: { changes: number; outcomes: Record<string, number>; resources: string[] };
  commit: string | null;
  /** null in a `started` entry (written before the apply's first change; its own entry follows). */
  exitCode: number | null;
}

export interface AuditStatus {
  /** The trail's last entry: the head `audit verify --expect-head` takes. */
  head: { seq: number; hash: string } | null;
  /** The last entries, newest first. */
  last: AuditEntrySummary[];
}

/**
 * The first of the two answers a person asks: is live state as the stack file says? Derived by the
 * StatusBoard from `drift` and `lastTick` (stack-answers.ts); never set by hand.
 */
export interface SyncStatus {
  /** `unknown`: live state was never read, or the last tick failed before reading it (see `message`). */
  state: "in-sync" | "drifted" | "unknown";
  /** Resources that differ from the stack file, as of `checkedAt` (the last read that succeeded). */
  drifted: number;
  /** When live state was last read; null when never. */
  checkedAt: string | null;
  /** One sentence, for people: what differs, or why it is unknown. */
  message: string;
}

/**
 * The second answer: does the stack pass every mandatory rule? Derived by the StatusBoard from
 * `findings` and `lastTick` (stack-answers.ts); never set by hand. Advisory findings and exempt
 * ones do not make a stack non-compliant.
 */
export interface ComplianceStatus {
  /** `unknown`: never checked, or the last tick failed before its check (see `message`). */
  state: "compliant" | "non-compliant" | "unknown";
  /** Mandatory violations (failing, not exempt), as of `checkedAt`. */
  mandatory: number;
  /** When the rules were last checked; null when never. */
  checkedAt: string | null;
  /** One sentence, for people. */
  message: string;
}

/** Everything the watcher shows of one stack. */
export interface StackStatus {
  name: string;
  /** The stack file, as the watcher reads it. */
  file: string;
  /** +1 with every update of this stack's status (kept by the StatusBoard). */
  generation: number;
  /** Opened episodes (drift, mandatory findings, probe failures) so far; numbers them (kept by the StatusBoard). */
  episodes: number;
  updatedAt: string;
  /** How ticks are scheduled, for people (`every 5m`). */
  schedule: string | null;
  /** Is it in sync? (derived; the first answer, before the watcher's condition) */
  sync: SyncStatus;
  /** Is it compliant? (derived; the second answer) */
  compliance: ComplianceStatus;
  condition: StatusCondition;
  deployment: DeploymentStatus;
  drift: DriftStatus;
  /** The last full tick (a sweep of the whole stack); re-reads between ticks are `lastReread`. */
  lastTick: TickStatus | null;
  lastReread: RereadStatus | null;
  nextTickAt: string | null;
  findings: FindingsStatus;
  lock: LockStatus;
  probes: ProbesStatus;
  audit: AuditStatus;
  /** With `stackwarden:scope`: the last sweep's counts, as check gives them; null without a scope or before the first sweep. */
  coverage: CoverageStatus | null;
}

/** "N databases in scope: L listed, D discovered; X non-compliant" (scope-coverage.ts), with when the sweep judged it. */
export interface CoverageStatus extends CoverageCounts {
  checkedAt: string;
}

/** `GET /api/v1/stacks`. */
export interface StackStatusList {
  /** The board's revision: +1 with every update of any stack. */
  revision: number;
  generatedAt: string;
  /**
   * Where each stack's full status is: `/api/v1/stacks/{name}` (the name percent-encoded). The list
   * gives each stack abridged (stack-list-entry.ts): a few drifted resources, no findings (each
   * rule's `truncated` counts them).
   */
  details: string;
  stacks: StackStatus[];
}

/** The body of an API error. */
export interface StatusApiError {
  error: { code: string; message: string };
}

/** What the sync answer says before live state was ever read. */
export const NOT_READ = "live state has not been read yet";
/** What the compliance answer says before the first check. */
export const NOT_CHECKED = "the rules have not been checked yet";

/** A stack's status before its first tick. */
export function initialStackStatus(name: string, file: string, now: Date, schedule: string | null = null): StackStatus {
  const at = now.toISOString();
  return {
    name,
    file,
    generation: 0,
    episodes: 0,
    updatedAt: at,
    schedule,
    sync: { state: "unknown", drifted: 0, checkedAt: null, message: NOT_READ },
    compliance: { state: "unknown", mandatory: 0, checkedAt: null, message: NOT_CHECKED },
    condition: {
      type: "Reconciling",
      reason: "AwaitingFirstTick",
      code: null,
      message: "waiting for the first tick",
      lastTransitionTime: at,
    },
    deployment: { state: "none", applying: null, commit: null, last: null, lastApply: null },
    drift: { state: "unknown", checkedAt: null, since: null, episode: 0, resources: [] },
    lastTick: null,
    lastReread: null,
    nextTickAt: null,
    findings: { checkedAt: null, mandatory: 0, advisory: 0, exempt: 0, rules: [] },
    lock: { state: "free", holder: null, lastRecovered: null },
    probes: { ranAt: null, passed: 0, failed: 0, results: [] },
    audit: { head: null, last: [] },
    coverage: null,
  };
}
