import { ERROR_CODES, type ErrorCode } from "../../../platform/errors/error-codes";

/** The three conditions of kstatus (as the Pulumi Kubernetes Operator reports them): exactly one holds. */
export type ConditionType = "Ready" | "Reconciling" | "Stalled";
export const CONDITION_TYPES: readonly ConditionType[] = ["Ready", "Reconciling", "Stalled"];

/** Consecutive failed ticks after which a transient failure is Stalled (TickFailing) rather than Reconciling. */
export const STALLED_AFTER_FAILURES = 3;

/**
 * Whether a failure's reason is retried (`transient`: the stack stays Reconciling until the retries
 * run out) or needs a person (`stalled`: Stalled at once), as the Pulumi Kubernetes Operator tells
 * its Stalled reasons from its Reconciling ones.
 */
export type ReasonKind = "progress" | "transient" | "stalled" | "ready";

/** What a reason says: the condition it goes with, its kind, and the error codes a failed tick gets it from. */
export interface ReasonInfo {
  condition: ConditionType;
  kind: ReasonKind;
  /** The codes of a failed tick that give this reason; empty for a reason that does not come from a tick's error. */
  codes: readonly ErrorCode[];
  /** For people and the README: when the reason holds. */
  meaning: string;
}

/**
 * Every reason a stack's condition can have. A failed tick takes its reason from its error's code
 * (error-codes.ts: the one taxonomy): a code listed here gives that reason; any other code gives
 * `RetryingAfterError` when the catalogue calls it transient, `NeedsAttention` when it needs a person.
 */
export const CONDITION_REASONS = {
  Reconciled: { condition: "Ready", kind: "ready", codes: [], meaning: "the last tick succeeded" },
  AwaitingFirstTick: { condition: "Reconciling", kind: "progress", codes: [], meaning: "the watcher has not finished a tick yet" },
  Applying: { condition: "Reconciling", kind: "progress", codes: [], meaning: "an apply of a new commit runs" },
  Remediating: { condition: "Reconciling", kind: "progress", codes: [], meaning: "a repair of drift runs" },
  WaitingForLock: {
    condition: "Reconciling",
    kind: "transient",
    codes: ["SW_LOCK_HELD", "SW_LOCK_LOST"],
    meaning: "another process holds the stack's lock (or took it over); the next tick tries again",
  },
  Throttled: {
    condition: "Reconciling",
    kind: "transient",
    codes: ["SW_THROTTLED"],
    meaning: "the service still answered 429 after the retries; the next tick tries again",
  },
  EndpointUnreachable: {
    condition: "Reconciling",
    kind: "transient",
    codes: ["SW_ENDPOINT_UNREACHABLE", "SW_TIMEOUT", "SW_CONNECTION_LOST"],
    meaning: "an endpoint did not answer (refused, timed out, cut off); the next tick tries again",
  },
  ServiceError: {
    condition: "Reconciling",
    kind: "transient",
    codes: ["SW_SERVICE_ERROR"],
    meaning: "the service failed (5xx) after the retries; the next tick tries again",
  },
  NotConverged: {
    condition: "Reconciling",
    kind: "transient",
    codes: ["SW_NOT_CONVERGED"],
    meaning: "a change was made but its scan failed or did not finish; the next tick tries again",
  },
  RetryingAfterError: {
    condition: "Reconciling",
    kind: "transient",
    codes: [],
    meaning: "the tick failed for another reason that may pass (a git fetch, a cancelled call); the next tick tries again",
  },
  TickFailing: {
    condition: "Stalled",
    kind: "stalled",
    codes: [],
    meaning: `a transient failure outlasted its retries: ${STALLED_AFTER_FAILURES} ticks in a row failed`,
  },
  StackFileInvalid: {
    condition: "Stalled",
    kind: "stalled",
    codes: ["SW_CONFIG_INVALID", "SW_STACK_NOT_FOUND"],
    meaning: "the stack file (or a file it names) is missing or invalid: fix it at the line named",
  },
  CredentialsRefused: {
    condition: "Stalled",
    kind: "stalled",
    codes: ["SW_ACCESS_DENIED", "SW_CREDENTIAL_UNAVAILABLE", "SW_STATE_FORBIDDEN"],
    meaning: "no credential, or the service (or the state's Blob Storage) refused it or its permissions: grant or configure access",
  },
  ResourceNotFound: {
    condition: "Stalled",
    kind: "stalled",
    codes: ["SW_RESOURCE_NOT_FOUND"],
    meaning: "the stack names a resource the cloud does not have: fix the stack entry or create the resource",
  },
  AuditTrailDamaged: {
    condition: "Stalled",
    kind: "stalled",
    codes: ["SW_AUDIT_TRAIL_DAMAGED"],
    meaning: "the stack's audit trail cannot be appended to: verify it, then move it aside",
  },
  NeedsAttention: {
    condition: "Stalled",
    kind: "stalled",
    codes: [],
    meaning: "the tick failed for another reason that retrying will not fix (a setting, a refused request, a bug): read the message",
  },
  ApplyFailed: {
    condition: "Stalled",
    kind: "stalled",
    codes: [],
    meaning: "the last apply of a commit left changes unconverged, and nothing has applied since",
  },
  RemediationFailed: {
    condition: "Stalled",
    kind: "stalled",
    codes: [],
    meaning: "the last repair left changes unconverged, and nothing has applied since",
  },
} as const satisfies Record<string, ReasonInfo>;

/** A reason of a stack's condition (CamelCase, for machines). */
export type ConditionReason = keyof typeof CONDITION_REASONS;

const REASON_OF_CODE = new Map<ErrorCode, ConditionReason>(
  Object.entries(CONDITION_REASONS).flatMap(([reason, info]) => info.codes.map((c) => [c, reason as ConditionReason] as const)),
);

/** The reason a tick that failed with `code` gives (before its retries run out); an unknown code counts as transient. */
export function reasonOfFailure(code: ErrorCode | null): ConditionReason {
  if (code === null) return "RetryingAfterError";
  return REASON_OF_CODE.get(code) ?? (ERROR_CODES[code].retry === "person" ? "NeedsAttention" : "RetryingAfterError");
}
