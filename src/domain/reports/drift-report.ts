import type { Finding } from "../compliance/finding";
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

/** What `drift` found: TDE that differs, and tier-advisor findings (failures and exempt ones). */
export interface DriftReportInput {
  stackName: string;
  file: string;
  tde: TdeDrift[];
  advisor: Finding[];
  /** Key-custody findings (TDE protector, vault, key): failures and exempt ones. */
  keyCustody?: Finding[];
  /** Databases that could not be read (listed under `errors` in JSON, and in Markdown; the table's are on stderr). */
  unread?: UnreadEntry[];
}

/** Renders `drift`'s findings for people (table), pipelines (json) or pull-request comments (markdown). */
export function renderDrift(format: DriftFormat, d: DriftReportInput): string {
  const { stackName, file, tde, advisor } = d;
  const keyCustody = d.keyCustody ?? [];
  if (format === "json") {
    return JSON.stringify(
      {
        stack: stackName,
        file,
        transparentDataEncryption: tde,
        tierAdvisor: advisor.map((f) => ({
          resourceId: f.resourceId,
          label: f.label,
          level: f.level,
          verdict: f.verdict,
          message: f.message,
          line: f.source?.line,
        })),
        keyCustody: keyCustody.map((f) => ({
          ruleId: f.ruleId,
          resourceId: f.resourceId,
          label: f.label,
          level: f.level,
          verdict: f.verdict,
          message: f.message,
          line: f.source?.line,
        })),
        errors: (d.unread ?? []).map(unreadDocument),
      },
      null,
      2,
    );
  }
  if (format === "markdown") {
    const lines = [`### stackwarden drift: \`${stackName}\``, ""];
    lines.push(tde.length ? `**${tde.length}** database(s) differ from the stack:` : "Live TDE matches the stack.");
    for (const d of tde) lines.push(`- \`${d.label}\`: TDE is ${d.live ?? "unknown"}, the stack wants ${d.desired}`);
    if (advisor.length) {
      lines.push("", "Tier advisor:");
      for (const f of advisor) lines.push(`- ${f.verdict === "exempt" ? "exempt" : f.level}: ${f.message}`);
    }
    if (keyCustody.length) {
      lines.push("", "Key custody:");
      for (const f of keyCustody) lines.push(`- ${f.verdict === "exempt" ? "exempt" : f.level} \`${f.ruleId}\`: ${f.message}`);
    }
    if (d.unread?.length) {
      lines.push("", "Could not be read:");
      for (const u of d.unread) lines.push(`- ${unreadLine(u)}`);
    }
    return lines.join("\n");
  }
  const lines = [
    `Drift of stack ${stackName} (${file}): ${tde.length ? `${tde.length} database(s) differ from the stack` : "live TDE matches the stack"}`,
  ];
  for (const d of tde) lines.push(`  ~ ${d.label}  TDE live ${d.live ?? "unknown"}, desired ${d.desired}`);
  for (const f of [...advisor, ...keyCustody])
    lines.push(`  ${f.verdict === "exempt" ? "EXEMPT" : f.level === "mandatory" ? "DRIFT" : "ADVISORY"} ${f.label}: ${f.message}`);
  return lines.join("\n");
}
