import type { Command } from "commander";
import { renderPlan, type PlanFormat } from "../../../domain/reports/plan-report";
import { unreadOfPlanError } from "../../../domain/reconcile/tde-plan";
import { planExitCode, runPlan } from "../../../usecases/plan";
import type { CommandIO } from "../command-io";
import { unreadErrorLine } from "../failure-lines";
import { choiceOption, intOption } from "../option-parsers";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { serviceClients } from "../service-clients";

export function registerPlan(program: Command, io: CommandIO): void {
  withStackOptions(program.command("plan"))
    .description(
      "compare desired TDE states with live ones and list the changes apply would make (exit 0 none, 2 pending, 1 error: a database that could not be read, the others still planned)",
    )
    .option("--output <format>", "table, json or markdown", choiceOption(["table", "json", "markdown"] as const), "table")
    .option("--concurrency <n>", "databases read at once", intOption(1, 256), 16)
    .action(async (flags: StackFlags & { output: PlanFormat; concurrency: number }) => {
      const { stack, name } = loadStackFromFlags(flags, io);
      const plan = await runPlan({ stack, clients: await serviceClients(io), concurrency: flags.concurrency });
      io.out(renderPlan(plan, stack, name, flags.output));
      // A database that could not be read is an error the user must fix (exit 1, over 2): the plan
      // of the others is printed all the same, and each error names its stack-file line on stderr.
      for (const e of plan.errors) io.err(unreadErrorLine("stackwarden plan", unreadOfPlanError(e)));
      io.exitCode = planExitCode(plan);
    });
}
