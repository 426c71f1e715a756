import type { AuditEntry } from "../domain/audit/audit-entry";
import type { ChangeAttribution } from "../domain/changes/change-record";
import type { Finding } from "../domain/compliance/finding";
import type { LockHolder } from "../domain/reconcile/stack-lock";
import type { TdePlanItem } from "../domain/reconcile/tde-plan";
import type { CoverageCounts } from "../domain/reports/compliance-report";
import type { ErrorCode } from "../platform/errors/error-codes";
import type { WatchedDatabase } from "./watch-inventory";

// What the watch process needs of the interfaces around it, as small ports: where it counts
// (metrics), where each stack's status goes (the status board behind the page and the API), the
// statuses a leader keeps and a standby follows, and the events a leader sends. The interfaces
// (src/interfaces/watch) satisfy them; the process never imports them.

/** A counter by labels (prom-client's Counter fits). */
export interface CountPort<L extends string> {
  inc(labels: Partial<Record<L, string>>): void;
}

/** A gauge by labels. */
export interface LevelPort<L extends string> {
  set(labels: Partial<Record<L, string>>, value: number): void;
}

/** A histogram by labels. */
export interface SpreadPort<L extends string> {
  observe(labels: Partial<Record<L, string>>, value: number): void;
}

/** What the watch process counts, by stack (docs/reference.md's metrics table, generated from WatchMetrics, names each). */
export interface WatchMeter {
  ticks: CountPort<"stack" | "result">;
  /** Seconds. */
  tickDuration: SpreadPort<"stack">;
  /** Seconds since the epoch. */
  lastSuccess: LevelPort<"stack">;
  drift: LevelPort<"stack">;
  rereads: CountPort<"stack">;
  applies: CountPort<"stack" | "trigger" | "exit_code">;
  remediations: CountPort<"stack" | "outcome">;
  /** Seconds. */
  lockWait: SpreadPort<"stack">;
  lockBusy: CountPort<"stack">;
  changeRecords: CountPort<"source" | "result">;
  /** A stack is watched: its series exist from the start (at 0), not from its first event. */
  addStack(stack: string): void;
  setFindings(stack: string, findings: readonly Finding[]): void;
  setCommit(stack: string, commit: string): void;
}

/** One apply of a watcher (a new commit, or a repair of drift), as its stack's status keeps it. */
export interface WatchApplyRecord {
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
  /** Who made the drift a remediation repaired, where a change record named them. */
  changedBy: ChangeAttribution[];
}

/** What one tick leaves for the status: its outcome, and (when it read live state) the drift and findings it ends with. */
export interface TickEnded {
  number: number;
  commit: string | null;
  commitSubject: string | null;
  startedAt: number;
  finishedAt: number;
  /** `interrupted`: stopped by a shutdown. */
  outcome: "succeeded" | "failed" | "interrupted";
  error?: string;
  /** The stable code of the error, when it failed. */
  errorCode?: ErrorCode;
  /** The plan items still drifted when the tick ends; absent when live state could not be read. */
  drift?: readonly TdePlanItem[];
  /** The findings the tick ends with; absent when the check did not run. */
  findings?: readonly Finding[];
  /** Every database the watcher knows of (listed and discovered) as the tick leaves it; absent with `drift`. */
  databases?: readonly WatchedDatabase[];
  /** With `stackwarden:scope`, a sweep's counts over those findings (scope-coverage.ts), as check gives them; absent on a re-read. */
  coverage?: CoverageCounts;
  nextTickAt?: number;
  /**
   * Set when this was a targeted re-read between ticks, not a tick: its number (1 for the watcher's
   * first), the changed resources that caused it, and how many databases and rules it read again.
   * `number` is then the tick it followed.
   */
  reread?: { number: number; changed: number; databases: number; rules: number };
}

/** Where one stack's watcher reports as it ticks (the status page, the API and the events follow it). */
export interface StackStatusPort {
  /** An apply (of a commit, or a repair) began. */
  applying(trigger: WatchApplyRecord["trigger"]): void;
  /** A tick found drift it is about to repair. */
  judged(drift: readonly TdePlanItem[]): void;
  /** An apply that began changed nothing (the lock was held). */
  notApplied(): void;
  /** An apply ended, with the audit entry it wrote (none when it failed before writing one). */
  applied(record: WatchApplyRecord, entry?: AuditEntry): void;
  /** The stack's lock was taken over from a process that no longer ran. */
  recovered(holder: LockHolder): void;
  /** A tick ended. */
  ticked(t: TickEnded): Promise<void>;
}

/** What /readyz says. */
export interface Readiness {
  ready: boolean;
  reason: string;
}

/** The statuses of the watched stacks: kept by the leader, followed by a standby. */
export interface WatchStatusesPort {
  /** Takes the statuses stored last (by the previous leader, or the leader a standby follows). */
  adoptStored(): Promise<void>;
  /** A stack is watched in this term, from this file, on this schedule (described). */
  register(stack: string, info: { file: string; schedule: string }): void;
  /** This replica's role changed (standing by: who leads, when known). */
  role(role: "leader" | "standby", leader?: LockHolder): void;
  /** Where a stack's watcher reports. */
  reporter(stack: string): StackStatusPort;
}

/** The events a leader sends while its term lasts (the webhooks of --notify). */
export interface WatchEventsPort {
  /** Opens delivery for a term (what an earlier leader left pending goes out first); returns what ends it. */
  open(): Promise<{ close(): Promise<void> }>;
}

/** Everything the watch process reports to. */
export interface WatchSurface {
  meter: WatchMeter;
  statuses: WatchStatusesPort;
  /** Absent: no events are sent. */
  events?: WatchEventsPort;
  /** Closes what the surface opened (the metrics' collectors), once the process has stopped. */
  close(): Promise<void>;
}
