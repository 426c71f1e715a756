import type { ComplianceResult } from "../compliance/evaluate";
import type { Finding } from "../compliance/finding";
import { controlSummary } from "./control-summary";

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

const ORDER: Record<Finding["verdict"], number> = { fail: 0, exempt: 1, unknown: 2, "not-applicable": 3, pass: 4 };

function sorted(findings: Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      ORDER[a.verdict] - ORDER[b.verdict] ||
      (a.level === "mandatory" ? -1 : 0) - (b.level === "mandatory" ? -1 : 0) ||
      a.ruleId.localeCompare(b.ruleId) ||
      a.label.localeCompare(b.label),
  );
}

function headline(r: ComplianceReportInput): string {
  const s = r.result.summary;
  return `Compliance of stack ${r.stackName} (${r.file}): ${s.mandatoryViolations} mandatory violation(s), ${s.advisoryViolations} advisory, ${s.exempt} exempt, ${s.passed} passed, ${s.notApplicable} not applicable${s.unknown ? `, ${s.unknown} unknown` : ""}`;
}

/** A table for terminals: every finding that is not a pass, then the exemptions. */
export function renderComplianceTable(r: ComplianceReportInput): string {
  const rows = sorted(r.result.findings).filter((f) => f.verdict !== "pass");
  const lines = [headline(r), ...(r.notes ?? []).map((n) => `  note: ${n}`)];
  if (rows.length) {
    const cells = rows.map((f) => [verdictWord(f), f.ruleId, f.label, f.message]);
    const w = [0, 1, 2].map((i) => Math.max(...cells.map((c) => c[i].length)));
    for (const c of cells) lines.push(`  ${c[0].padEnd(w[0])}  ${c[1].padEnd(w[1])}  ${c[2].padEnd(w[2])}  ${c[3]}`);
  }
  for (const e of r.result.exemptions) {
    lines.push(
      `  exemption ${e.active ? "active " : "EXPIRED"} ${e.exemption.resourceId}: ${e.exemption.reason}${e.exemption.expires ? ` (until ${e.exemption.expires})` : ""}${e.applied ? `, covers ${e.applied} finding(s)` : ""}`,
    );
  }
  return lines.join("\n");
}

/** Markdown for a pull-request comment or a job summary. */
export function renderComplianceMarkdown(r: ComplianceReportInput): string {
  const s = r.result.summary;
  const icon = s.mandatoryViolations ? ":x:" : s.advisoryViolations ? ":warning:" : ":white_check_mark:";
  const lines = [
    `### ${icon} stackwarden check: \`${r.stackName}\``,
    "",
    `**${s.mandatoryViolations}** mandatory violation(s) · **${s.advisoryViolations}** advisory · ${s.exempt} exempt · ${s.passed} passed · ${s.notApplicable} not applicable`,
  ];
  for (const n of r.notes ?? []) lines.push("", `> ${escapeCell(n)}`);
  const rows = sorted(r.result.findings).filter((f) => f.verdict !== "pass");
  if (rows.length) {
    lines.push("", "| | rule | resource | finding |", "|---|---|---|---|");
    for (const f of rows)
      lines.push(
        `| ${verdictWord(f)} | \`${f.ruleId}\` | \`${f.label}\`${f.source ? ` ([line ${f.source.line}](${r.file}#L${f.source.line}))` : ""} | ${escapeCell(f.message)} |`,
      );
  }
  if (r.result.exemptions.length) {
    lines.push("", "<details><summary>Exemptions</summary>", "", "| resource | reason | expires | status |", "|---|---|---|---|");
    for (const e of r.result.exemptions)
      lines.push(
        `| \`${e.exemption.resourceId}\` | ${escapeCell(e.exemption.reason)} | ${e.exemption.expires ?? "never"} | ${e.active ? "active" : "expired"} |`,
      );
    lines.push("", "</details>");
  }
  const controls = controlSummary(r.result.findings);
  if (controls.length) {
    lines.push(
      "",
      "<details><summary>Controls</summary>",
      "",
      "| framework | control | title | pass | fail | exempt |",
      "|---|---|---|---|---|---|",
    );
    for (const c of controls)
      lines.push(
        `| ${escapeCell(`${c.framework} ${c.version}`)} | ${c.uri ? `[${c.id}](${c.uri})` : c.id} | ${escapeCell(c.title)} | ${c.pass} | ${c.fail} | ${c.exempt} |`,
      );
    lines.push("", "</details>");
  }
  return lines.join("\n");
}

function verdictWord(f: Finding): string {
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

/** A table cell: pipes escaped, one line, and `<`/`>` as entities so GitHub does not take them for HTML and drop them. */
function escapeCell(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|").replace(/\n/g, " ");
}
