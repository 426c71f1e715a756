import type { ComplianceResult } from "../compliance/evaluate";
import type { Finding } from "../compliance/finding";
import { controlSummary } from "./control-summary";
import {
  countOutcomes,
  listedItems,
  OUTCOME_NAMES,
  OUTCOMES,
  showFlagFor,
  tallyByRule,
  unlisted,
  type ListedItem,
  type Outcome,
  type OutcomeCounts,
  type ReportDetail,
  type RuleTally,
} from "./finding-outline";

/** What every compliance report format renders. */
export interface ComplianceReportInput {
  stackName: string;
  /** The stack file, relative to the repository root where possible (SARIF locations use it). */
  file: string;
  result: ComplianceResult;
  generatedAt: Date;
  toolVersion: string;
  /**
   * What the reader should know about the inputs, one sentence each: where the probe results
   * came from, or why there are none. Shown in every format (SARIF: tool execution notifications).
   */
  notes?: string[];
  /**
   * SARIF only: also give each passed finding as a result of kind `pass` (level `none`), for an
   * auditor's record (the evidence bundle). Off for code scanning, which shows every result as an alert.
   */
  sarifPasses?: boolean;
  /** Table and Markdown only: what they list beyond failures, exempt and unknown findings (default: count the rest). */
  show?: ReportDetail;
  /**
   * Markdown only: the most characters it may take (default 65,536, GitHub's limit for a comment);
   * what does not fit is counted, exactly, and the JSON and SARIF reports named as where it is.
   */
  markdownLimit?: number;
  /** With `stackwarden:scope`: the databases in scope, listed and discovered, and how many fail (scope-coverage.ts). */
  coverage?: CoverageCounts;
}

/** The coverage counts of a check over a scope, as the JSON (`coverage`) and SARIF (`run.properties.coverage`) give them. */
export interface CoverageCounts {
  inScope: number;
  listed: number;
  discovered: number;
  nonCompliant: number;
  /** `rg/server/db` of each discovered database with a mandatory violation. */
  discoveredNonCompliant: string[];
}

/** What a summary says about a stack's scope: check's sentence and the counts its JSON carries (scope-coverage.ts). */
export interface ScopeSummary {
  sentence: string;
  counts: CoverageCounts;
}

/** The `check --format json` document. */
export function complianceDocument(r: ComplianceReportInput) {
  return {
    stack: r.stackName,
    file: r.file,
    generatedAt: r.generatedAt.toISOString(),
    summary: r.result.summary,
    ...(r.coverage ? { coverage: r.coverage } : {}),
    notes: r.notes ?? [],
    findings: r.result.findings.map((f) => ({
      ruleId: f.ruleId,
      verdict: f.verdict,
      level: f.level,
      resourceId: f.resourceId,
      label: f.label,
      message: f.message,
      ...(f.source ? { line: f.source.line, column: f.source.column } : {}),
      ...(f.location ? { location: f.location } : {}),
      ...(f.properties ? { properties: f.properties } : {}),
      ...(f.exemption ? { exemption: { reason: f.exemption.reason, expires: f.exemption.expires ?? null } } : {}),
    })),
    exemptions: r.result.exemptions.map((s) => ({
      resourceId: s.exemption.resourceId,
      rules: s.exemption.rules ?? "all",
      reason: s.exemption.reason,
      expires: s.exemption.expires ?? null,
      active: s.active,
      applied: s.applied,
    })),
    // Per control (CIS, Azure Policy) the rules give evidence for: its findings passed, failed, exempt.
    controls: controlSummary(r.result.findings),
  };
}

/** The headline of the table: the stack, its file and the count of each outcome. */
function headline(r: ComplianceReportInput): string {
  const s = r.result.summary;
  return `Compliance of stack ${r.stackName} (${r.file}): ${s.mandatoryViolations} mandatory violation(s), ${s.advisoryViolations} advisory, ${s.exempt} exempt, ${s.passed} passed, ${s.notApplicable} not applicable${s.unknown ? `, ${s.unknown} unknown` : ""}`;
}

/**
 * A table for terminals, as short at 10,000 databases as at 10: the count of each outcome, the
 * notes, the counts per rule, then every failure (mandatory, then advisory; by rule, then server),
 * exempt and unknown finding, one line each; passes and not-applicable findings only as counts
 * unless `show` asks for them (`--show passed,not-applicable`, `--verbose` for each pass's
 * evidence); then the exemptions, and what was counted but not listed.
 */
export function renderComplianceTable(r: ComplianceReportInput): string {
  const detail = r.show ?? {};
  const findings = r.result.findings;
  const lines = [headline(r), ...(r.notes ?? []).map((n) => `  note: ${n}`)];
  const tallies = tallyByRule(findings);
  if (tallies.length) lines.push("", ...alignedRows(ruleCountCells(tallies), [false, true, true, true, true, true, true]));
  const items = listedItems(findings, detail);
  if (items.length) lines.push("", ...alignedRows(items.map((item) => itemCells(item, detail))));
  for (const e of r.result.exemptions) {
    lines.push(
      `  exemption ${e.active ? "active " : "EXPIRED"} ${e.exemption.resourceId}: ${e.exemption.reason}${e.exemption.expires ? ` (until ${e.exemption.expires})` : ""}${e.applied ? `, covers ${e.applied} finding(s)` : ""}`,
    );
  }
  const hidden = unlistedNote(countOutcomes(findings), detail);
  if (hidden)
    lines.push(
      `  not listed: ${hidden.counts} (${hidden.flag} lists them${hidden.passes ? "; --verbose each pass with its evidence" : ""})`,
    );
  return lines.join("\n");
}

/** What a report counted but, with its detail, did not list: the counts in words, and the flag that lists them. */
export interface UnlistedNote {
  /** `285 passed, 330 not applicable`. */
  counts: string;
  /** `--show passed,not-applicable`. */
  flag: string;
  /** Passes are among them: `--verbose` lists each with its evidence. */
  passes: boolean;
}

/** What `detail` leaves unlisted, with its counts; undefined when everything is listed. */
export function unlistedNote(counts: OutcomeCounts, detail: ReportDetail): UnlistedNote | undefined {
  const hidden = unlisted(counts, detail);
  if (!hidden.length) return undefined;
  return {
    counts: hidden.map(([o, n]) => `${n} ${OUTCOME_NAMES[o]}`).join(", "),
    flag: showFlagFor(hidden.map(([o]) => o)),
    passes: hidden.some(([o]) => o === "passed"),
  };
}

/** The columns of the per-rule counts: mandatory, advisory, not applicable and passed always; exempt and unknown when any rule has some. */
export function countColumns(tallies: readonly RuleTally[]): Outcome[] {
  return OUTCOMES.filter((o) => (o !== "exempt" && o !== "unknown") || tallies.some((t) => t.counts[o] > 0));
}

/** The per-rule counts as cells: a header row, then one row per rule. */
function ruleCountCells(tallies: readonly RuleTally[]): string[][] {
  const columns = countColumns(tallies);
  const name = (o: Outcome) => (o === "notApplicable" ? "n/a" : OUTCOME_NAMES[o]);
  return [["rule", ...columns.map(name)], ...tallies.map((t) => [t.ruleId, ...columns.map((o) => String(t.counts[o]))])];
}

/** A listed item's cells: its verdict, rule, resource and message (a pass's evidence only when verbose). */
function itemCells(item: ListedItem, detail: ReportDetail): string[] {
  if (item.kind === "absent") return ["N/A", item.ruleId, `${item.findings.length} finding(s)`, `${item.absent} (--verbose lists each)`];
  const f = item.finding;
  return [verdictWord(f), f.ruleId, f.label, f.verdict === "pass" && !detail.verbose ? "" : f.message];
}

/** Rows of cells, each column padded to its widest cell (right-aligned where `right`), the last column as it is. */
function alignedRows(rows: readonly string[][], right: readonly boolean[] = []): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => {
    const cells = r.map((c, i) => (right[i] ? c.padStart(widths[i]) : i === r.length - 1 ? c : c.padEnd(widths[i])));
    return `  ${cells.join("  ")}`.trimEnd();
  });
}

/** The word a listed finding is shown with: FAIL (mandatory), ADVISORY, EXEMPT, UNKNOWN, N/A or pass. */
export function verdictWord(f: Pick<Finding, "verdict" | "level">): string {
  switch (f.verdict) {
    case "fail":
      return f.level === "mandatory" ? "FAIL" : "ADVISORY";
    case "exempt":
      return "EXEMPT";
    case "unknown":
      return "UNKNOWN";
    case "not-applicable":
      return "N/A";
    default:
      return "pass";
  }
}
