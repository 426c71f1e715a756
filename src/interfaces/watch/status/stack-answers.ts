import { NOT_CHECKED, NOT_READ, type ComplianceStatus, type StackStatus, type SyncStatus, type TickStatus } from "./stack-status";

// The two answers a person asks of a stack first (is it in sync? is it compliant?), derived from
// the rest of its status. The StatusBoard derives them on every update, so they never disagree
// with the drift and findings beside them. The watcher's condition (Ready, Reconciling, Stalled)
// is a third, separate thing: a watcher can be Ready, having read everything, while the stack is
// drifted and non-compliant.

/**
 * Whether live state is as the stack file says. Unknown when it was never read, or when the last
 * tick failed before reading it: a failed tick leaves the last drift in place (so that it is not
 * announced as resolved), which is then what was last known, not an answer for now.
 */
export function syncOf(s: Pick<StackStatus, "drift" | "lastTick">): SyncStatus {
  const d = s.drift;
  const drifted = d.state === "drifted" ? d.resources.length : 0;
  const base = { drifted, checkedAt: d.checkedAt };
  if (d.state === "unknown" || d.checkedAt === null) return { ...base, state: "unknown", message: NOT_READ };
  const known = d.state === "drifted" ? `${drifted} drifted` : "in sync";
  const failed = readFailed(d.checkedAt, s.lastTick);
  if (failed) return { ...base, state: "unknown", message: `${failed} could not read live state; last read ${d.checkedAt}: ${known}` };
  if (d.state === "in-sync") return { ...base, state: "in-sync", message: "every resource is as the stack file says" };
  return { ...base, state: "drifted", message: `${drifted} resource(s) differ from the stack file` };
}

/**
 * Whether the stack passes every mandatory rule: advisory and exempt findings do not count against
 * it. Unknown when the rules were never checked, or the last tick failed before its check (the
 * findings kept are then the last known ones).
 */
export function complianceOf(s: Pick<StackStatus, "findings" | "lastTick">): ComplianceStatus {
  const f = s.findings;
  const base = { mandatory: f.mandatory, checkedAt: f.checkedAt };
  if (f.checkedAt === null) return { ...base, state: "unknown", message: NOT_CHECKED };
  const known = f.mandatory ? `${f.mandatory} mandatory violation(s)` : "compliant";
  const failed = readFailed(f.checkedAt, s.lastTick);
  if (failed) return { ...base, state: "unknown", message: `${failed} could not check the rules; last checked ${f.checkedAt}: ${known}` };
  if (f.mandatory) return { ...base, state: "non-compliant", message: `${known} of the stack's rules` };
  const advisory = f.advisory ? `; ${f.advisory} advisory finding(s)` : "";
  return { ...base, state: "compliant", message: `no mandatory rule fails${advisory}` };
}

/**
 * The tick that failed after the read at `checkedAt` (`tick 7 (SW_THROTTLED)`), or undefined when
 * the read is the last tick's own. A tick that ended otherwise (succeeded, or interrupted by a
 * shutdown) leaves the last read standing.
 */
function readFailed(checkedAt: string, t: TickStatus | null): string | undefined {
  if (!t || t.outcome !== "failed" || Date.parse(checkedAt) >= Date.parse(t.startedAt)) return undefined;
  return `tick ${t.number}${t.errorCode ? ` (${t.errorCode})` : ""}`;
}

/**
 * A status with its answers derived afresh, keys in the order the API shows them (the answers
 * before the condition). For a status stored by an earlier version, which had no answers and no
 * deployment read from the trail, this is what brings it to the current shape.
 */
export function withAnswers(s: StackStatus): StackStatus {
  const { name, file, generation, episodes, updatedAt, schedule, sync: _sync, compliance: _compliance, ...rest } = s;
  return {
    name,
    file,
    generation,
    episodes,
    updatedAt,
    schedule,
    sync: syncOf(s),
    compliance: complianceOf(s),
    ...rest,
    deployment: { ...s.deployment, applying: s.deployment.applying ?? null, last: s.deployment.last ?? null },
    // A status stored before the watcher counted the scope.
    coverage: s.coverage ?? null,
  };
}

/** The fleet's answers: how many stacks are drifted, non-compliant, unknown on either, and fine on both. */
export interface FleetAnswers {
  stacks: number;
  drifted: number;
  nonCompliant: number;
  /** Stacks whose sync or compliance is unknown. */
  unknown: number;
  /** In sync and compliant. */
  fine: number;
  /** Mandatory violations across the non-compliant stacks. */
  mandatory: number;
}

/** Counts the fleet's answers from its stacks' statuses. */
export function fleetOf(stacks: readonly Pick<StackStatus, "sync" | "compliance">[]): FleetAnswers {
  const count = (p: (s: Pick<StackStatus, "sync" | "compliance">) => boolean) => stacks.filter(p).length;
  return {
    stacks: stacks.length,
    drifted: count((s) => s.sync.state === "drifted"),
    nonCompliant: count((s) => s.compliance.state === "non-compliant"),
    unknown: count((s) => s.sync.state === "unknown" || s.compliance.state === "unknown"),
    fine: count((s) => s.sync.state === "in-sync" && s.compliance.state === "compliant"),
    mandatory: stacks.reduce((n, s) => n + (s.compliance.state === "non-compliant" ? s.compliance.mandatory : 0), 0),
  };
}
