import { Command, CommanderError } from "commander";
import { VERSION } from "../version";
import { describeError } from "./cli-error";
import { type CommandIO, processIO } from "./command-io";
import { registerEmulator } from "./commands/emulator-command";
import { registerWhoami } from "./commands/whoami-command";
import { registerPlan } from "./commands/plan-command";
import { registerApply } from "./commands/apply-command";
import { registerStart } from "./commands/start-command";
import { registerCheck } from "./commands/check-command";
import { registerDrift } from "./commands/drift-command";
import { registerInventory } from "./commands/inventory-command";
import { registerScan } from "./commands/scan-command";
import { registerRules } from "./commands/rules-command";
import { registerProbe } from "./commands/probe-command";
import { registerWatch } from "./commands/watch-command";
import { registerAudit } from "./commands/audit-command";
import { registerGeocode } from "./commands/geocode-command";
import { registerWhere } from "./commands/where-command";
import { registerStacks } from "./commands/stacks-command";
import { registerPko } from "./commands/pko-command";

/** Builds the command tree; `io` receives all output. */
export function buildProgram(io: CommandIO): Command {
  const program = new Command("stackwarden")
    .description("GitOps reconciler and compliance gate for Azure SQL transparent data encryption, on Pulumi")
    .version(VERSION, "-V, --version")
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => io.out(s.replace(/\n$/, "")),
      writeErr: (s) => io.err(s.replace(/\n$/, "")),
      // One line, no usage dump: the error names what and where; --help shows the rest.
      outputError: (s, write) => write(`stackwarden: ${s.replace(/^error: /, "").trim()} (see --help)\n`),
    })
    .exitOverride();
  registerPlan(program, io);
  registerApply(program, io);
  registerDrift(program, io);
  registerCheck(program, io);
  registerInventory(program, io);
  registerProbe(program, io);
  registerGeocode(program, io);
  registerWhere(program, io);
  registerEmulator(program, io);
  registerStart(program, io);
  registerWhoami(program, io);
  registerScan(program, io);
  registerRules(program, io);
  registerWatch(program, io);
  registerAudit(program, io);
  registerStacks(program, io);
  registerPko(program, io);
  for (const c of program.commands) {
    c.exitOverride().configureOutput({
      writeOut: (s) => io.out(s.replace(/\n$/, "")),
      writeErr: (s) => io.err(s.replace(/\n$/, "")),
      outputError: (s, write) =>
        write(`stackwarden ${c.name()}: ${s.replace(/^error: /, "").trim()} (see stackwarden ${c.name()} --help)\n`),
    });
  }
  return program;
}

/** Runs the CLI and resolves to the exit code; errors become one line on stderr. */
export async function main(argv: string[], io: CommandIO = processIO()): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: "user" });
    return io.exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help") return 0;
      return e.exitCode === 0 ? 0 : 1;
    }
    io.err(`stackwarden: ${describeError(e)}`);
    return 1;
  }
}
