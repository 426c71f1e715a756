import type { DriftSection, DriftSectionFindings } from "../compliance/drift-section";
import type { Finding } from "../compliance/finding";
import type { ScopeSummary } from "./compliance-report";
import { unreadDocument, unreadLine, type UnreadEntry } from "../stack/unread-entry";

export type DriftFormat = "table" | "json" | "markdown";

/** A database whose live TDE differs from the stack. */
export interface TdeDrift {
  id: string;
  label: string;
  live: string | null;
  desired: string;
  line?: number;
}

/** What `drift` found: TDE that differs, and the findings (failures and exempt ones) of each declared drift section. */
export interface DriftReportInput {
  stackName: string;
  file: string;
  tde: TdeDrift[];
  /** Every declared section, in order, with its findings: each is a JSON key (empty or not), a Markdown heading when it has findings, and lines of the table. */
  sections: DriftSectionFindings[];
  /** Databases that could not be read (listed under `errors` in JSON, and in Markdown; the table's are on stderr). */
  unread?: UnreadEntry[];
  /** With `stackwarden:scope`: the scope's sentence and counts (scope-coverage.ts), as check gives them. */
  scope?: ScopeSummary;
}

/** Renders `drift`'s findings for people (table), pipelines (json) or pull-request comments (markdown). */
export function renderDrift(format: DriftFormat, d: DriftReportInput): string {
  const { stackName, file, tde, sections } = d;
  if (format === "json") {
    return JSON.stringify(
      {
        stack: stackName,
        file,
        transparentDataEncryption: tde,
        ...Object.fromEntries(sections.map(({ section, findings }) => [section.key, findings.map((f) => jsonEntry(section, f))])),
        errors: (d.unread ?? []).map(unreadDocument),
        ...(d.scope ? { coverage: d.scope.counts } : {}),
      },
      null,
      2,
    );
  }
  if (format === "markdown") {
    const lines = [`### stackwarden drift: \`${stackName}\``, ""];
    if (d.scope) lines.push(d.scope.sentence, "");
    lines.push(tde.length ? `**${tde.length}** database(s) differ from the stack:` : "Live TDE matches the stack.");
    for (const d of tde) lines.push(`- \`${d.label}\`: TDE is ${d.live ?? "unknown"}, the stack wants ${d.desired}`);
    for (const { section, findings } of sections) {
      if (!findings.length) continue;
      lines.push("", `${section.heading}:`);
      for (const f of findings)
        lines.push(`- ${f.verdict === "exempt" ? "exempt" : f.level}${namesRule(section) ? ` \`${f.ruleId}\`` : ""}: ${f.message}`);
    }
    if (d.unread?.length) {
      lines.push("", "Could not be read:");
      for (const u of d.unread) lines.push(`- ${unreadLine(u)}`);
    }
    return lines.join("\n");
  }
  const lines = [
    `Drift of stack ${stackName} (${file}): ${tde.length ? `${tde.length} database(s) differ from the stack` : "live TDE matches the stack"}`,
    ...(d.scope ? [`  ${d.scope.sentence}`] : []),
  ];
  for (const d of tde) lines.push(`  ~ ${d.label}  TDE live ${d.live ?? "unknown"}, desired ${d.desired}`);
  for (const f of sections.flatMap((s) => s.findings))
    lines.push(`  ${f.verdict === "exempt" ? "EXEMPT" : f.level === "mandatory" ? "DRIFT" : "ADVISORY"} ${f.label}: ${f.message}`);
  return lines.join("\n");
}

/** Whether a section's entries name their rule (the default). */
function namesRule(section: DriftSection): boolean {
  return section.namesRule ?? true;
}

/** A finding as drift's JSON lists it under its section's key. */
function jsonEntry(section: DriftSection, f: Finding) {
  return {
    ...(namesRule(section) ? { ruleId: f.ruleId } : {}),
    resourceId: f.resourceId,
    label: f.label,
    level: f.level,
    verdict: f.verdict,
    message: f.message,
    line: f.source?.line,
  };
}
