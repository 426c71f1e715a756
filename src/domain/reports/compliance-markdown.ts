import type { Finding } from "../compliance/finding";
import { countColumns, unlistedNote, verdictWord, type ComplianceReportInput } from "./compliance-report";
import { controlSummary } from "./control-summary";
import { countOutcomes, listedItems, OUTCOME_NAMES, OUTCOMES, tallyByRule, type ListedItem, type Outcome } from "./finding-outline";
import { MarkdownBudget } from "./markdown-budget";

/** GitHub's limit for a pull-request or issue comment, in characters: the default bound of the Markdown report. */
export const GITHUB_COMMENT_LIMIT = 65_536;

/** Room kept for the line that counts what did not fit, and the one-line stand-ins of sections that did not. */
const RESERVED = 1_000;

/**
 * Markdown for a pull-request comment or a job summary, within `markdownLimit` characters (GitHub's
 * 65,536 for a comment by default) at any estate size: the counts per outcome and per rule, the
 * notes, then the listed findings (failures first, by rule then server), then exemptions and
 * controls. The failures are a table row each when they fit; else each rule's failures that say the
 * same thing are one line per server naming its resources; what still does not fit is counted
 * exactly by outcome, with where every finding is (the JSON and SARIF reports).
 */
export function renderComplianceMarkdown(r: ComplianceReportInput): string {
  const s = r.result.summary;
  const detail = r.show ?? {};
  const findings = r.result.findings;
  const icon = s.mandatoryViolations ? ":x:" : s.advisoryViolations ? ":warning:" : ":white_check_mark:";
  // The text as written to a file ends with a newline: it counts too.
  const out = new MarkdownBudget((r.markdownLimit ?? GITHUB_COMMENT_LIMIT) - 1);
  out.force(
    `### ${icon} stackwarden check: \`${r.stackName}\``,
    "",
    `**${s.mandatoryViolations}** mandatory violation(s) · **${s.advisoryViolations}** advisory · ${s.exempt} exempt · ${s.passed} passed · ${s.notApplicable} not applicable${s.unknown ? ` · ${s.unknown} unknown` : ""}`,
  );
  for (const n of r.notes ?? []) out.force("", `> ${escapeCell(n)}`);
  const tallies = tallyByRule(findings);
  if (tallies.length) {
    const columns = countColumns(tallies);
    const strong = (o: Outcome, n: number) => (n > 0 && (o === "mandatory" || o === "advisory") ? `**${n}**` : String(n));
    out.add(
      "",
      `| rule | ${columns.map((o) => (o === "notApplicable" ? "n/a" : OUTCOME_NAMES[o])).join(" | ")} |`,
      `|---|${columns.map(() => "--:").join("|")}|`,
      ...tallies.map((t) => `| \`${t.ruleId}\` | ${columns.map((o) => strong(o, t.counts[o])).join(" | ")} |`),
    );
  }

  const items = listedItems(findings, detail);
  const left = new Map<Outcome, number>();
  const leaveOut = (i: ListedItem) => left.set(i.outcome, (left.get(i.outcome) ?? 0) + (i.kind === "absent" ? i.findings.length : 1));
  const rows = items.map((i) => itemRow(i, r, !!detail.verbose));
  out.reserve(RESERVED);
  // Every listed finding a row of its own when they all fit.
  const whole = items.length > 0 && out.add("", "| | rule | resource | finding |", "|---|---|---|---|", ...rows);
  if (!whole && items.length) {
    // Too many for a row each: a rule's failures that say the same thing, one line per server; then the rest while it fits.
    const failing = items.filter((i) => i.outcome === "mandatory" || i.outcome === "advisory");
    let full = false;
    for (const group of failureGroups(failing)) {
      const heading = ["", groupHeading(group), "", "| server | resources |", "|---|---|"];
      group.rows.forEach((row, i) => {
        // A heading only with its first row; a row that does not fit whole names what fits and counts the rest.
        const names = full ? 0 : fitting(row, r, out, i === 0 ? heading : []);
        if (names > 0) out.add(...(i === 0 ? heading : []), serverRow(row, r, names));
        if (names < row.findings.length) {
          full = true;
          for (const f of row.findings.slice(names)) leaveOut(f);
        }
      });
    }
    const rest = items.slice(failing.length);
    if (rest.length) full ||= !out.add("", "| | rule | resource | finding |", "|---|---|---|---|");
    rest.forEach((item, i) => {
      full ||= !out.add(rows[failing.length + i]);
      if (full) leaveOut(item);
    });
  }
  out.release();
  const omitted = OUTCOMES.filter((o) => left.get(o));
  if (omitted.length) {
    const total = omitted.reduce((n, o) => n + left.get(o)!, 0);
    out.force(
      "",
      `**${total}** more finding(s) not listed here (${omitted.map((o) => `${left.get(o)} ${OUTCOME_NAMES[o]}`).join(", ")}), to stay within ${r.markdownLimit ?? GITHUB_COMMENT_LIMIT} characters: the JSON and SARIF reports (\`check --output json\`, \`--output sarif\`) list every finding.`,
    );
  }
  const hidden = unlistedNote(countOutcomes(findings), detail);
  if (hidden)
    out.force(
      "",
      `Not listed: ${hidden.counts} (\`check ${hidden.flag}\` lists them${hidden.passes ? "; `--verbose` each pass with its evidence" : ""}).`,
    );

  appendExemptionsAndControls(out, r);
  return out.text();
}

/** The exemptions and the controls, each in a disclosure, or one line saying where they are when they do not fit. */
function appendExemptionsAndControls(out: MarkdownBudget, r: ComplianceReportInput): void {
  const findings = r.result.findings;
  if (r.result.exemptions.length) {
    const lines = ["", "<details><summary>Exemptions</summary>", "", "| resource | reason | expires | status |", "|---|---|---|---|"];
    for (const e of r.result.exemptions)
      lines.push(
        `| \`${e.exemption.resourceId}\` | ${escapeCell(e.exemption.reason)} | ${e.exemption.expires ?? "never"} | ${e.active ? "active" : "expired"} |`,
      );
    lines.push("", "</details>");
    // Room stays for the controls' stand-in line.
    out.reserve(200);
    if (!out.add(...lines))
      out.force("", `${r.result.exemptions.length} exemption(s) not listed here for size: the JSON report lists them.`);
    out.release();
  }
  const controls = controlSummary(findings);
  if (controls.length) {
    const lines = [
      "",
      "<details><summary>Controls</summary>",
      "",
      "| framework | control | title | pass | fail | exempt |",
      "|---|---|---|---|---|---|",
      ...controls.map(
        (c) =>
          `| ${escapeCell(`${c.framework} ${c.version}`)} | ${c.uri ? `[${c.id}](${c.uri})` : c.id} | ${escapeCell(c.title)} | ${c.pass} | ${c.fail} | ${c.exempt} |`,
      ),
      "",
      "</details>",
    ];
    if (!out.add(...lines)) out.force("", `${controls.length} control(s) not listed here for size: the JSON and SARIF reports list them.`);
  }
}

/** One listed item as a row of the findings table: verdict, rule, resource (linked to its stack-file line), finding. */
function itemRow(item: ListedItem, r: ComplianceReportInput, verbose: boolean): string {
  if (item.kind === "absent")
    return `| N/A | \`${item.ruleId}\` | ${item.findings.length} finding(s) | ${escapeCell(item.absent)} (\`--verbose\` lists each) |`;
  const f = item.finding;
  const message = f.verdict === "pass" && !verbose ? "" : escapeCell(f.message);
  return `| ${verdictWord(f)} | \`${f.ruleId}\` | \`${f.label}\`${f.source ? ` ([line ${f.source.line}](${r.file}#L${f.source.line}))` : ""} | ${message} |`;
}

/** A rule's failures at one level that say the same thing but for the resource, by server. */
interface FailureGroup {
  outcome: Outcome;
  ruleId: string;
  /** The message with the resource's label replaced by ‹resource›; the message itself when it names none. */
  template: string;
  count: number;
  rows: { server: string; findings: Extract<ListedItem, { kind: "finding" }>[] }[];
}

/** The failing items (already in order: level, rule, server, label) grouped by level, rule and what they say, then by server. */
function failureGroups(items: readonly ListedItem[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const item of items) {
    if (item.kind !== "finding") continue;
    const f = item.finding;
    const template = templateOf(f);
    const key = `${item.outcome}\u0000${f.ruleId}\u0000${template}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { outcome: item.outcome, ruleId: f.ruleId, template, count: 0, rows: [] }));
    g.count++;
    const last = g.rows.at(-1);
    if (last && last.server === item.server) last.findings.push(item);
    else g.rows.push({ server: item.server, findings: [item] });
  }
  return [...groups.values()];
}

function templateOf(f: Finding): string {
  return f.label && f.message.includes(f.label) ? f.message.split(f.label).join("‹resource›") : f.message;
}

function groupHeading(g: FailureGroup): string {
  return `**${g.outcome === "mandatory" ? "FAIL" : "ADVISORY"} \`${g.ruleId}\`** (${g.count}): ${escapeCell(g.template)}`;
}

/**
 * One server's resources of a group (the first `shown` of them, then how many more), each its name
 * under the server linked to its stack-file line.
 */
function serverRow(row: FailureGroup["rows"][number], r: ComplianceReportInput, shown = row.findings.length): string {
  const names = row.findings.slice(0, shown).map(({ finding: f }) => {
    const name = row.server && f.label.startsWith(`${row.server}/`) ? f.label.slice(row.server.length + 1) : f.label;
    return f.source ? `[${escapeLinkText(name)}](${r.file}#L${f.source.line})` : `\`${name}\``;
  });
  const more = row.findings.length - shown;
  return `| ${row.server ? `\`${row.server}\`` : "(no server)"} (${row.findings.length}) | ${names.join(", ")}${more ? `, and ${more} more (counted below)` : ""} |`;
}

/** How many of a row's resources fit in what is left after `before`: all, some, or none. */
function fitting(row: FailureGroup["rows"][number], r: ComplianceReportInput, out: MarkdownBudget, before: readonly string[]): number {
  const room = out.left - before.reduce((n, l) => n + l.length + 1, 0) - 1;
  if (serverRow(row, r).length <= room) return row.findings.length;
  let lo = 0;
  let hi = row.findings.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (serverRow(row, r, mid).length <= room) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A table cell: pipes escaped, one line, and `<`/`>` as entities so GitHub does not take them for HTML and drop them. */
export function escapeCell(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function escapeLinkText(s: string): string {
  return escapeCell(s).replace(/[[\]`*_]/g, (c) => `\\${c}`);
}
