import { Command, CommanderError, Help } from "commander";
import { VERSION } from "../../platform/version";
import { describeError } from "./cli-error";
import { type CommandIO, processIO } from "./command-io";
import { COMMANDS, commandTerm, type CommandEntry, type RegisterCommand } from "./command-registry";

/** Thrown by a command that is listed but not loaded, when it is dispatched: main loads it and parses again. */
class CommandNotLoaded extends Error {
  constructor(readonly entry: CommandEntry) {
    super(`command ${entry.name} is not loaded`);
  }
}

/**
 * Builds the command tree; `io` receives all output. Commands in `loaded` are declared in full
 * (options, action); the others are listed by name and description only, so that `--help` and
 * `--version` load no command module (see command-registry.ts).
 */
export function buildProgram(io: CommandIO, loaded: ReadonlyMap<string, RegisterCommand> = new Map()): Command {
  const listed = new Map<Command, CommandEntry>();
  const defaultHelp = new Help();
  const program = new Command("stackwarden")
    .description("GitOps reconciler and compliance gate for Azure SQL transparent data encryption, on Pulumi")
    .version(VERSION, "-V, --version")
    .showSuggestionAfterError(true)
    .configureHelp({
      subcommandTerm: (cmd) => {
        const entry = listed.get(cmd);
        return entry ? commandTerm(entry) : defaultHelp.subcommandTerm(cmd);
      },
    })
    .configureOutput({
      writeOut: (s) => io.out(s.replace(/\n$/, "")),
      writeErr: (s) => io.err(s.replace(/\n$/, "")),
      // One line, no usage dump: the error names what and where; --help shows the rest.
      outputError: (s, write) => write(`stackwarden: ${s.replace(/^error: /, "").trim()} (see --help)\n`),
    })
    .exitOverride();
  for (const entry of COMMANDS) {
    const register = loaded.get(entry.name);
    if (register) {
      register(program, io);
      continue;
    }
    const stub = program
      .command(entry.name)
      .description(entry.description)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .argument("[args...]")
      .action(() => {
        throw new CommandNotLoaded(entry);
      });
    listed.set(stub, entry);
  }
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

/** The command an argument list names (`plan --stack dev`, `help plan`), to load before parsing. */
function namedCommand(argv: readonly string[]): CommandEntry | undefined {
  const words = argv.filter((a) => !a.startsWith("-"));
  const name = words[0] === "help" ? words[1] : words[0];
  return COMMANDS.find((c) => c.name === name);
}

/** Runs the CLI and resolves to the exit code; errors become one line on stderr. */
export async function main(argv: string[], io: CommandIO = processIO()): Promise<number> {
  const loaded = new Map<string, RegisterCommand>();
  try {
    const named = namedCommand(argv);
    if (named) loaded.set(named.name, await named.load());
    for (;;) {
      try {
        await buildProgram(io, loaded).parseAsync(argv, { from: "user" });
        return io.exitCode;
      } catch (e) {
        // A command reached in a way namedCommand did not foresee: load it and parse again.
        if (!(e instanceof CommandNotLoaded) || loaded.has(e.entry.name)) throw e;
        loaded.set(e.entry.name, await e.entry.load());
      }
    }
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help") return 0;
      return e.exitCode === 0 ? 0 : 1;
    }
    io.err(`stackwarden: ${describeError(e)}`);
    return 1;
  }
}
