import type { Finding } from "../compliance/finding";
import { ruleIds } from "../compliance/registry";
import { parseResourceId } from "../../platform/arm/resource-id";

// How the people's reports (the table, Markdown) lay out an evaluation at any estate size: counts
// per outcome and per rule first, then the failures, grouped by rule then server; passes and
// not-applicable findings are counts unless asked for. Argo CD, Checkov and Prowler lead the same way.

/** What a finding counts as in the people's reports, in the order they count them (as the headline does). */
export const OUTCOMES = ["mandatory", "advisory", "exempt", "unknown", "passed", "notApplicable"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The order the reports list findings in: failures first, passes last. */
const LIST_ORDER: readonly Outcome[] = ["mandatory", "advisory", "exempt", "unknown", "notApplicable", "passed"];

/** How each outcome is named in a report's counts. */
export const OUTCOME_NAMES: Record<Outcome, string> = {
  mandatory: "mandatory",
  advisory: "advisory",
  exempt: "exempt",
  unknown: "unknown",
  notApplicable: "not applicable",
  passed: "passed",
};

/** What the people's reports list beyond failures, exempt and unknown findings (`check --show`, `--verbose`). */
export interface ReportDetail {
  /** List each pass (without `verbose`: which resource, not the evidence). */
  passed?: boolean;
  /** List each not-applicable finding; those that only say something is absent collapse to one line per rule and reason. */
  notApplicable?: boolean;
  /** Each pass with its evidence (its message), and absent-only not-applicable findings one by one. Implies `passed`. */
  verbose?: boolean;
}

/** The findings of one outcome: which one it is. */
export function outcomeOf(f: Pick<Finding, "verdict" | "level">): Outcome {
  switch (f.verdict) {
    case "fail":
      return f.level === "mandatory" ? "mandatory" : "advisory";
    case "exempt":
      return "exempt";
    case "unknown":
      return "unknown";
    case "pass":
      return "passed";
    default:
      return "notApplicable";
  }
}

/** A count per outcome, every outcome present (0 when none). */
export type OutcomeCounts = Record<Outcome, number>;

function noCounts(): OutcomeCounts {
  return { mandatory: 0, advisory: 0, exempt: 0, unknown: 0, notApplicable: 0, passed: 0 };
}

/** How many findings came out each way. */
export function countOutcomes(findings: readonly Finding[]): OutcomeCounts {
  const c = noCounts();
  for (const f of findings) c[outcomeOf(f)]++;
  return c;
}

/** One rule's findings counted by outcome. */
export interface RuleTally {
  ruleId: string;
  counts: OutcomeCounts;
}

/** Per rule that has findings, its counts: in registry order, then rules the registry does not know, by id. */
export function tallyByRule(findings: readonly Finding[]): RuleTally[] {
  const by = new Map<string, OutcomeCounts>();
  for (const f of findings) {
    let c = by.get(f.ruleId);
    if (!c) by.set(f.ruleId, (c = noCounts()));
    c[outcomeOf(f)]++;
  }
  const order = ruleOrder();
  return [...by.entries()].map(([ruleId, counts]) => ({ ruleId, counts })).sort((a, b) => compareRules(order, a.ruleId, b.ruleId));
}

/** Whether the reports list findings of this outcome with `detail`, or only count them. */
export function isListed(outcome: Outcome, detail: ReportDetail = {}): boolean {
  if (outcome === "passed") return !!(detail.passed || detail.verbose);
  if (outcome === "notApplicable") return !!detail.notApplicable;
  return true;
}

/**
 * A line of a report's listing: one finding, or the not-applicable findings of one rule that only
 * say the same thing is absent (no advisor output, a service-managed protector), counted as one.
 */
export type ListedItem =
  | { kind: "finding"; outcome: Outcome; finding: Finding; server: string }
  | { kind: "absent"; outcome: "notApplicable"; ruleId: string; absent: string; findings: Finding[] };

/**
 * What a report lists, in order: failures (mandatory, then advisory), exempt, unknown, then (when
 * asked for) not-applicable and passed findings; within each, by rule (registry order), server
 * (`rg/server`, for SQL findings) and label. Absent-only not-applicable findings of a rule collapse
 * into one item per reason unless `verbose`.
 */
export function listedItems(findings: readonly Finding[], detail: ReportDetail = {}): ListedItem[] {
  const order = ruleOrder();
  const shown = findings
    .map((finding) => ({ finding, outcome: outcomeOf(finding), server: serverOf(finding) }))
    .filter((x) => isListed(x.outcome, detail))
    .sort(
      (a, b) =>
        LIST_ORDER.indexOf(a.outcome) - LIST_ORDER.indexOf(b.outcome) ||
        compareRules(order, a.finding.ruleId, b.finding.ruleId) ||
        compareText(a.server, b.server) ||
        compareText(a.finding.label, b.finding.label),
    );
  const out: ListedItem[] = [];
  const collapsed = new Map<string, Extract<ListedItem, { kind: "absent" }>>();
  for (const x of shown) {
    const absent = x.outcome === "notApplicable" && !detail.verbose ? x.finding.absent : undefined;
    if (!absent) {
      out.push({ kind: "finding", ...x });
      continue;
    }
    const key = `${x.finding.ruleId}\u0000${absent}`;
    const group = collapsed.get(key);
    if (group) group.findings.push(x.finding);
    else {
      const item = { kind: "absent" as const, outcome: "notApplicable" as const, ruleId: x.finding.ruleId, absent, findings: [x.finding] };
      collapsed.set(key, item);
      out.push(item);
    }
  }
  return out;
}

/** The outcomes a report counts but, with `detail`, does not list, with their counts (only those with findings). */
export function unlisted(counts: OutcomeCounts, detail: ReportDetail = {}): [Outcome, number][] {
  return OUTCOMES.filter((o) => !isListed(o, detail) && counts[o] > 0).map((o) => [o, counts[o]]);
}

/** The flag that lists what `unlisted` names (`--show passed,not-applicable`), for the reports' last line. */
export function showFlagFor(outcomes: readonly Outcome[]): string {
  const words = outcomes.map((o) => (o === "passed" ? "passed" : "not-applicable"));
  return `--show ${words.join(",")}`;
}

/**
 * The SQL server a finding is about or lies under, as `rg/server`; "" for anything else (a usage,
 * an artifact, a probe). Groups a rule's findings by server.
 */
export function serverOf(f: Pick<Finding, "resourceId">): string {
  const p = parseResourceId(f.resourceId);
  const s = p?.segments[0];
  return p?.service === "Sql" && p.resourceGroup && s?.type.toLowerCase() === "servers" && s.name ? `${p.resourceGroup}/${s.name}` : "";
}

function ruleOrder(): Map<string, number> {
  return new Map(ruleIds().map((id, i) => [id, i]));
}

function compareRules(order: ReadonlyMap<string, number>, a: string, b: string): number {
  const ia = order.get(a) ?? Number.MAX_SAFE_INTEGER;
  const ib = order.get(b) ?? Number.MAX_SAFE_INTEGER;
  return ia - ib || compareText(a, b);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
