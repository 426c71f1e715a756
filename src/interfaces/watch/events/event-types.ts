import type { ApplyRecord, DriftedResource, LockHolderStatus, StackFileLine } from "../status/stack-status";

/**
 * The CloudEvents `type` of each state change the watcher announces. Stable: receivers route on
 * them. Every event's `subject` is the stack's name and its `data` (JSON) names the stack too.
 */
export const EVENT_TYPES = {
  driftDetected: "com.stackwarden.drift.detected",
  driftResolved: "com.stackwarden.drift.resolved",
  applySucceeded: "com.stackwarden.apply.succeeded",
  applyFailed: "com.stackwarden.apply.failed",
  remediationApplied: "com.stackwarden.remediation.applied",
  remediationFailed: "com.stackwarden.remediation.failed",
  findingRaised: "com.stackwarden.finding.raised",
  findingCleared: "com.stackwarden.finding.cleared",
  probeFailed: "com.stackwarden.probe.failed",
  lockRecovered: "com.stackwarden.lock.recovered",
} as const;

export type StackwardenEventType = (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];

/** `drift.detected`: live state began to differ from the stack (a new drift episode). */
export interface DriftDetectedData {
  stack: string;
  /** The stack's drift episode number (1 for its first drift). */
  episode: number;
  since: string;
  resources: DriftedResource[];
}

/** `drift.resolved`: live state is as the stack says again (the episode is over). */
export interface DriftResolvedData {
  stack: string;
  episode: number;
  /** When the episode began. */
  since: string | null;
  resolvedAt: string;
  /** What had drifted (as last seen during the episode). */
  resources: DriftedResource[];
}

/** `apply.succeeded` / `apply.failed` (of a new commit) and `remediation.applied` / `remediation.failed` (of drift). */
export interface ApplyEventData extends ApplyRecord {
  stack: string;
}

/** `finding.raised` / `finding.cleared`: a mandatory compliance finding began or stopped failing. */
export interface FindingEventData {
  stack: string;
  episode: number;
  ruleId: string;
  level: "mandatory";
  resourceId: string;
  label: string;
  message: string;
  facet: string | null;
  source: StackFileLine | null;
}

/** `probe.failed`: a certificate probe that passed (or had not run) failed. Never its parameters. */
export interface ProbeFailedData {
  stack: string;
  episode: number;
  ranAt: string | null;
  probe: {
    name: string;
    issuer: string;
    doctype: string;
    format: string;
    latencyMs: number;
    status: number | null;
    error: { code: string; message: string } | null;
  };
}

/** `lock.recovered`: the stack's lock, left by a process that no longer ran, was taken over. */
export interface LockRecoveredData {
  stack: string;
  previousHolder: LockHolderStatus;
  recoveredAt: string;
}

/** The data of each event type. */
export interface EventDataByType {
  "com.stackwarden.drift.detected": DriftDetectedData;
  "com.stackwarden.drift.resolved": DriftResolvedData;
  "com.stackwarden.apply.succeeded": ApplyEventData;
  "com.stackwarden.apply.failed": ApplyEventData;
  "com.stackwarden.remediation.applied": ApplyEventData;
  "com.stackwarden.remediation.failed": ApplyEventData;
  "com.stackwarden.finding.raised": FindingEventData;
  "com.stackwarden.finding.cleared": FindingEventData;
  "com.stackwarden.probe.failed": ProbeFailedData;
  "com.stackwarden.lock.recovered": LockRecoveredData;
}

/** A CloudEvents 1.0 event as stackwarden sends it (structured mode: this object is the JSON body). */
export interface StackwardenEvent<T extends StackwardenEventType = StackwardenEventType> {
  specversion: "1.0";
  /** Stable for one state change: the same change derived again (after a restart) has the same id. Receivers deduplicate on it. */
  id: string;
  /** Where the event comes from: a URI-reference naming the watcher (default `/stackwarden/watch`). */
  source: string;
  type: T;
  /** The stack's name. */
  subject: string;
  time: string;
  datacontenttype: "application/json";
  data: EventDataByType[T];
}
