import { Command, CommanderError, Help } from "commander";
import { EMULATOR_FLAG, EMULATOR_FLAG_MARK, EMULATOR_VAR } from "../../platform/settings/emulator-settings";
import { VERSION } from "../../platform/version";
import { ERROR_CODES } from "../../platform/errors/error-codes";
import { StackwardenError, swCodeOf } from "../../platform/errors/stackwarden-error";
import { errorDocument, errorLine, reportError } from "./cli-error";
import { type CommandIO, processIO } from "./command-io";
import { COMMANDS, commandTerm, type CommandEntry, type RegisterCommand } from "./command-registry";

/** Thrown by a command that is listed but not loaded, when it is dispatched: main loads it and parses again. */
class CommandNotLoaded extends Error {
  constructor(readonly entry: CommandEntry) {
    super(`command ${entry.name} is not loaded`);
  }
}

/** The command a run reached (its action, or the parse that failed in it), and a usage error's message: for `--output json`. */
interface Reached {
  command?: Command;
  usage?: string;
}

/**
 * Builds the command tree; `io` receives all output. Commands in `loaded` are declared in full
 * (options, action); the others are listed by name and description only, so that `--help` and
 * `--version` load no command module (see command-registry.ts). `reached` learns which command
 * ran or failed to parse, so that its error can be reported in the format it was asked for.
 */
export function buildProgram(io: CommandIO, loaded: ReadonlyMap<string, RegisterCommand> = new Map(), reached: Reached = {}): Command {
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
      outputError: (s, write) => write(`${usageLine(reached, "stackwarden", s, "see --help")}\n`),
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
  addEmulatorOption(program, io, (c) => listed.has(c));
  // Every command, subcommands too (`audit verify`), reports a usage error as `stackwarden audit verify: SW_USAGE: …`.
  const configure = (c: Command, path: string) => {
    c.exitOverride().configureOutput({
      writeOut: (s) => io.out(s.replace(/\n$/, "")),
      writeErr: (s) => io.err(s.replace(/\n$/, "")),
      outputError: (s, write) => {
        reached.command = c;
        write(`${usageLine(reached, `stackwarden ${path}`, s, `see stackwarden ${path} --help`)}\n`);
      },
    });
    for (const sub of c.commands) configure(sub, `${path} ${sub.name()}`);
  };
  for (const c of program.commands) configure(c, c.name());
  // The command whose action runs, or whose arguments failed to parse (the deepest one dispatched to).
  const follow = (cmd: Command) => {
    if (cmd.commands.length) cmd.hook("preSubcommand", (_parent, sub) => void (reached.command = sub));
    cmd.commands.forEach(follow);
  };
  follow(program);
  program.hook("preAction", (_program, action) => void (reached.command = action));
  return program;
}

/** Commander's own error (unknown option, bad value) as one line with its code: `stackwarden plan: SW_USAGE: … (see …)`. */
function usageLine(reached: Reached, prefix: string, said: string, see: string): string {
  reached.usage = `${said.replace(/^error: /, "").trim()} (${see})`;
  return errorLine(prefix, "SW_USAGE", reached.usage);
}

/**
 * Whether the run asked for JSON (`--output json`, or `--format json` where that is its alias):
 * from what the command parsed, or from the arguments themselves, since a parse that fails stops
 * at the flag it failed on and a `--output json` after it is never parsed.
 */
function wantsJson(command: Command | undefined, argv: readonly string[]): boolean {
  const opts = command?.opts() as { output?: unknown; format?: unknown } | undefined;
  return opts?.output === "json" || opts?.format === "json" || jsonAskedIn(argv);
}

/** Whether the arguments (up to `--`) hold `--output json` or `--format json`, in either of commander's spellings. */
export function jsonAskedIn(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") return false;
    if ((a === "--output" || a === "--format") && argv[i + 1] === "json") return true;
    if (a === "--output=json" || a === "--format=json") return true;
  }
  return false;
}

/** Commands that serve an emulator of their own: `--emulator` would mean nothing to them. */
const SERVES_ITS_OWN_EMULATOR = new Set(["emulator", "start"]);

/**
 * `--emulator URL` on the program and on every command that reaches a service: it sets
 * STACKWARDEN_EMULATOR in the command's environment (marked as the flag's, so messages name the
 * flag), before the command's action reads it. A per-service variable still overrides it.
 */
function addEmulatorOption(program: Command, io: CommandIO, listedOnly: (c: Command) => boolean): void {
  const describe = `point every service at the emulator at URL (sets ${EMULATOR_VAR}; a per-service variable still overrides it)`;
  program.option(`${EMULATOR_FLAG} <url>`, describe);
  const add = (cmd: Command) => {
    if (!cmd.options.some((o) => o.long === EMULATOR_FLAG)) cmd.option(`${EMULATOR_FLAG} <url>`, describe);
    cmd.commands.forEach(add);
  };
  for (const c of program.commands) if (!listedOnly(c) && !SERVES_ITS_OWN_EMULATOR.has(c.name())) add(c);
  program.hook("preAction", (_program, action) => {
    let url: string | undefined;
    for (let c: Command | null = action; c && url === undefined; c = c.parent) url = (c.opts() as { emulator?: string }).emulator;
    if (url !== undefined) io.env = { ...io.env, [EMULATOR_VAR]: url, [EMULATOR_FLAG_MARK]: "1" };
  });
}

/** The command an argument list names (`plan --stack dev`, `help plan`), to load before parsing. */
function namedCommand(argv: readonly string[]): CommandEntry | undefined {
  const words = argv.filter((a, i) => !a.startsWith("-") && argv[i - 1] !== EMULATOR_FLAG);
  const name = words[0] === "help" ? words[1] : words[0];
  return COMMANDS.find((c) => c.name === name);
}

/**
 * Runs the CLI and resolves to the exit code; an error becomes one line on stderr,
 * `stackwarden: SW_CODE: message` (plus `{"error":…}` on stdout with `--output json`), and its exit
 * code is the catalogue's.
 */
export async function main(argv: string[], io: CommandIO = processIO()): Promise<number> {
  const loaded = new Map<string, RegisterCommand>();
  const reached: Reached = {};
  try {
    const named = namedCommand(argv);
    if (named) loaded.set(named.name, await named.load());
    for (;;) {
      try {
        await buildProgram(io, loaded, reached).parseAsync(argv, { from: "user" });
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
      if (e.exitCode === 0) return 0;
      // Its line is written (usageLine); JSON, when asked for, repeats it.
      if (wantsJson(reached.command, argv) && reached.usage !== undefined) io.out(errorDocument("SW_USAGE", reached.usage));
      return ERROR_CODES.SW_USAGE.exit;
    }
    return reportError(io, await withEmulatorHint(e, io.env), { json: wantsJson(reached.command, argv) });
  }
}

/**
 * A credential failure of a command that nothing pointed anywhere, with the hint that an emulator
 * answers on the README's port when one does (src/clients/emulator-hint.ts); any other error as it
 * is. Loaded only then: main.ts stays light for `--version`.
 */
async function withEmulatorHint(e: unknown, env: NodeJS.ProcessEnv): Promise<unknown> {
  if (swCodeOf(e) !== "SW_CREDENTIAL_UNAVAILABLE") return e;
  const { emulatorHint } = await import("../../clients/emulator-hint");
  const hint = await emulatorHint(env).catch(() => undefined);
  return hint ? new StackwardenError("SW_CREDENTIAL_UNAVAILABLE", `${(e as Error).message}; ${hint}`, { cause: e }) : e;
}
