import type { StackStatus } from "./stack-status";

/**
 * Drifted resources each stack of the list answer names; the rest (and every finding) are at
 * `/api/v1/stacks/{name}`, and `sync.drifted` counts them all. One, not three: at 100 stacks of 100
 * databases three made the list 311 kB and its p99 under 20 pollers 52-62 ms on two cores, one 203 kB
 * and 36-45 ms (bench/RESULTS.md), and a fleet view needs which stacks drift, not each one's resources.
 */
export const DRIFT_LISTED_PER_STACK = 1;

/** The address of a stack's full status, as the list answer's `details` names it (`{name}` percent-encoded). */
export const STACK_DETAILS_TEMPLATE = "/api/v1/stacks/{name}";

/**
 * A stack as `GET /api/v1/stacks` lists it: the same shape as its full status (every answer, count,
 * condition, tick, lock, probe and audit part), with its drifted resources cut to the first
 * DRIFT_LISTED_PER_STACK and its findings left out of each rule (the rule's `truncated` counts
 * them). At 100 stacks of 100 databases the full statuses are a megabyte that 20 pollers would
 * each download; the list answers what a fleet view needs, and `/api/v1/stacks/{name}` the rest.
 */
export function stackListEntry(s: StackStatus): StackStatus {
  return {
    ...s,
    drift: { ...s.drift, resources: s.drift.resources.slice(0, DRIFT_LISTED_PER_STACK) },
    findings: {
      ...s.findings,
      rules: s.findings.rules.map((r) => ({ ...r, findings: [], truncated: r.truncated + r.findings.length })),
    },
  };
}
