import type { Command } from "commander";
import { databaseLabel } from "../../../platform/arm/resource-id";
import { applyExemptions } from "../../../domain/compliance/exemptions";
import { UNKNOWN } from "../../../domain/compliance/facts";
import { settingsOf } from "../../../domain/compliance/rule-settings";
import { sqlTierAdvisorDrift } from "../../../domain/compliance/rules/sql-tier-advisor-drift";
import { gatherFacts } from "../../../domain/facts/gather-facts";
import { decideAction } from "../../../domain/reconcile/tde-plan";
import { renderDrift, type DriftFormat, type TdeDrift } from "../../../domain/reports/drift-report";
import { azureClientsFromEnv } from "../../../clients/azure-clients";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { EXIT_CHANGES } from "./plan-command";

export function registerDrift(program: Command, io: CommandIO): void {
  withStackOptions(program.command("drift"))
    .description(
      "list live state that differs from the stack, and tier-advisor disagreements (exit 0 none or advisory only, 2 drift, 1 error)",
    )
    .option("--output <format>", "table, json or markdown", choiceOption<DriftFormat>(["table", "json", "markdown"]), "table")
    .option("--concurrency <n>", "databases read at once", intOption(1, 256), 16)
    .action(async (flags: StackFlags & { output: DriftFormat; concurrency: number }) => {
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
          tde.push({ id: f.id, label: databaseLabel(f), live: live ?? null, desired, line: f.source?.line });
      });
      const settings = settingsOf(sqlTierAdvisorDrift, stack.policies);
      const advisor =
        settings.enforcementLevel === "disabled"
          ? []
          : applyExemptions(sqlTierAdvisorDrift.evaluate(facts, settings, now), stack.exemptions, now).findings.filter(
              (f) => f.verdict === "fail" || f.verdict === "exempt",
            );
      const blocking = tde.length > 0 || advisor.some((f) => f.verdict === "fail" && f.level === "mandatory");
      io.out(renderDrift(flags.output, { stackName: name, file: stack.file, tde, advisor }));
      io.exitCode = blocking ? EXIT_CHANGES : 0;
    });
}
