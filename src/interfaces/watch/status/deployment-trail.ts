import type { AuditEntry } from "../../../domain/audit/audit-entry";
import type { DeploymentStatus, TrailApply } from "./stack-status";
import { auditEntrySummaryOf } from "./status-parts";

// The deployment part of a status, read from the stack's audit trail: every apply, whoever runs it
// (the CLI by hand or in a pipeline, the Pulumi engine, this watcher or another), appends an entry
// there under the stack's lock, so the trail is the one record that sees them all. The watcher
// reads the trail's end once per tick for the audit part; the deployment is found in that same read.

/**
 * The entries on a trail that are not applies, by command: an evidence bundle's anchor and a broken
 * lock. Every other writer of the trail is an apply (runLockedApply: `apply`, `apply --engine
 * pulumi`, `watch`, `remediate`, a plain `pulumi up`'s TDE provider, and `recover` for an apply whose
 * pending record was unreadable).
 */
const NOT_APPLIES: ReadonlySet<string> = new Set(["evidence", "lock break"]);

/** Whether an audit entry records an apply (of anyone), as opposed to an evidence anchor or a lock break. */
export function isApplyEntry(e: AuditEntry): boolean {
  return !NOT_APPLIES.has(e.command) && e.evidence === undefined && e.brokeLock === undefined;
}

/** An apply entry as the status shows it: the entry's summary (who by host and application id only) and its outcome. */
export function trailApplyOf(e: AuditEntry): TrailApply {
  return { ...auditEntrySummaryOf(e), outcome: e.exitCode === null ? "interrupted" : e.exitCode === 0 ? "succeeded" : "failed" };
}

/**
 * The deployment after reading `entries` (the trail's end, oldest first): the last apply among them
 * and the commit of the last one that succeeded. What they do not show is kept from `known` (the
 * deployment read before): the trail only grows at its end, so an apply seen once stays the last
 * until a later one appears, even after more entries than are read (evidence anchors, lock breaks)
 * follow it. When neither shows an apply, `state` is `none` only if the entries are the whole trail
 * (the first is entry 1): else an apply may lie further back, and it is `unknown`.
 * `lastApply` (this watcher's own) is kept as it is; `state` follows the last apply (this describes
 * what is deployed, not an apply of this watcher under way: `applying` is null).
 */
export function deploymentOf(entries: readonly AuditEntry[], known: DeploymentStatus): DeploymentStatus {
  const applies = entries.filter(isApplyEntry);
  const newest = applies.at(-1);
  const last = newest ? trailApplyOf(newest) : known.last;
  const succeeded = applies.filter((e) => e.exitCode === 0).at(-1);
  const wholeTrail = entries.length === 0 || entries[0].seq === 1;
  return {
    state: last ? last.outcome : wholeTrail ? "none" : "unknown",
    applying: null,
    commit: succeeded ? succeeded.commit : known.commit,
    last,
    lastApply: known.lastApply,
  };
}
