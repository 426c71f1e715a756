import type { Command } from "commander";
import { applyExemptions } from "../../compliance/exemptions";
import { gatherFacts } from "../../compliance/gather-facts";
import { UNKNOWN } from "../../compliance/facts";
import { sqlTierAdvisorDrift } from "../../compliance/rules/sql-tier-advisor-drift";
import type { Finding } from "../../compliance/finding";
import { decideAction } from "../../reconcile/tde-plan";
import { azureClientsFromEnv } from "../../runtime/azure-clients";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { EXIT_CHANGES } from "./plan-command";

interface TdeDrift {
  id: string;
  label: string;
  live: string | null;
  desired: string;
  line?: number;
}

export function registerDrift(program: Command, io: CommandIO): void {
  withStackOptions(program.command("drift"))
    .description(
      "list live state that differs from the stack, and tier-advisor disagreements (exit 0 none or advisory only, 2 drift, 1 error)",
    )
    .option("--output <format>", "table, json or markdown", choiceOption(["table", "json", "markdown"] as const), "table")
    .option("--concurrency <n>", "databases read at once", intOption(1, 256), 16)
    .action(async (flags: StackFlags & { output: "table" | "json" | "markdown"; concurrency: number }) => {
      const { stack, name } = loadStackFromFlags(flags, io);
      const facts = await gatherFacts(
        azureClientsFromEnv(io.env),
        { ...stack, batch: { ...stack.batch, locations: [] } },
        { concurrency: flags.concurrency },
      );
      const now = Date.now();
      const tde: TdeDrift[] = [];
      facts.databases.forEach((f, i) => {
        const desired = stack.databases[i].transparentDataEncryption;
        const live = f.liveTdeStatus === UNKNOWN ? undefined : f.liveTdeStatus;
        if (decideAction(live, desired) !== "none")
          tde.push({ id: f.id, label: `${f.resourceGroup}/${f.server}/${f.database}`, live: live ?? null, desired, line: f.source?.line });
      });
      const settings = stack.policies["sql-tier-advisor-drift"];
      const advisor =
        settings.enforcementLevel === "disabled"
          ? []
          : applyExemptions(
              facts.databases.map((d) => sqlTierAdvisorDrift(d, settings, now)),
              stack.exemptions,
              now,
            ).findings.filter((f) => f.verdict === "fail" || f.verdict === "exempt");
      const blocking = tde.length > 0 || advisor.some((f) => f.verdict === "fail" && f.level === "mandatory");
      io.out(render(flags.output, name, stack.file, tde, advisor));
      io.exitCode = blocking ? EXIT_CHANGES : 0;
    });
}

function render(format: "table" | "json" | "markdown", stackName: string, file: string, tde: TdeDrift[], advisor: Finding[]): string {
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
    return lines.join("\n");
  }
  const lines = [
    `Drift of stack ${stackName} (${file}): ${tde.length ? `${tde.length} database(s) differ from the stack` : "live TDE matches the stack"}`,
  ];
  for (const d of tde) lines.push(`  ~ ${d.label}  TDE live ${d.live ?? "unknown"}, desired ${d.desired}`);
  for (const f of advisor)
    lines.push(`  ${f.verdict === "exempt" ? "EXEMPT" : f.level === "mandatory" ? "DRIFT" : "ADVISORY"} ${f.label}: ${f.message}`);
  return lines.join("\n");
}
