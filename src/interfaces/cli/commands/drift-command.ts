import type { Command } from "commander";
import { stateStoresFor } from "../state-stores";
import { renderDrift, type DriftFormat } from "../../../domain/reports/drift-report";
import { runDrift } from "../../../usecases/drift";
import { EXIT_CHANGES } from "../../../usecases/plan";
import type { CommandIO } from "../command-io";
import { unreadErrorLine } from "../failure-lines";
import { choiceOption, intOption } from "../option-parsers";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { serviceClients } from "../service-clients";

export function registerDrift(program: Command, io: CommandIO): void {
  withStackOptions(program.command("drift"))
    .description(
      "list live state that differs from the stack and the findings of the rules declared as drift, such as tier-advisor disagreements and key custody (exit 0 none or advisory only, 2 drift, 1 error: also a database that could not be read, the others still compared)",
    )
    .option("--output <format>", "table, json or markdown", choiceOption<DriftFormat>(["table", "json", "markdown"]), "table")
    .option("--concurrency <n>", "databases read at once", intOption(1, 256), 16)
    .action(async (flags: StackFlags & { output: DriftFormat; concurrency: number }) => {
      const { stack, name } = loadStackFromFlags(flags, io);
      const drift = await runDrift({
        stack,
        stackName: name,
        clients: await serviceClients(io),
        cwd: io.cwd,
        state: await stateStoresFor(io),
        concurrency: flags.concurrency,
      });
      io.out(
        renderDrift(flags.output, {
          stackName: name,
          file: stack.file,
          tde: drift.tde,
          sections: drift.sections,
          unread: drift.unread,
          scope: drift.scope,
        }),
      );
      // A database the cloud does not have: at its stack-file line; the others are compared. The
      // stack names something that cannot be compared, which the user must fix: 1, even with drift.
      for (const u of drift.unread) io.err(unreadErrorLine("stackwarden drift", u));
      io.exitCode = drift.unread.length ? 1 : drift.blocking ? EXIT_CHANGES : 0;
    });
}
