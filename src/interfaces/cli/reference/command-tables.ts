import { Command, type Option } from "commander";
import type { CommandIO } from "../command-io";
import { COMMANDS } from "../command-registry";
import { buildProgram } from "../main";
import { code, markdownTable } from "./markdown-table";

/** An IO that nothing is written to: declaring the commands runs none of them. */
function silentIO(): CommandIO {
  return { out: () => {}, err: () => {}, isTTY: false, env: {}, cwd: ".", exitCode: 0 };
}

/** Every command (and sub-command) as declared, loaded the way the CLI loads it: `stackwarden rules generate` after `stackwarden rules`. */
async function declaredCommands(): Promise<Command[]> {
  const out: Command[] = [];
  const walk = (cmd: Command) => {
    out.push(cmd);
    for (const sub of cmd.commands) walk(sub);
  };
  for (const entry of COMMANDS) {
    const program = new Command("stackwarden");
    (await entry.load())(program, silentIO());
    const declared = program.commands.find((c) => c.name() === entry.name);
    if (!declared) throw new Error(`command registry: ${entry.name} declares no command of that name`);
    walk(declared);
  }
  return out;
}

/** `stackwarden rules generate`: the names from the program down. */
function fullName(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

function defaultOf(opt: Option): string {
  if (opt.defaultValueDescription) return opt.defaultValueDescription;
  if (opt.defaultValue === undefined || opt.defaultValue === false) return "";
  return code(Array.isArray(opt.defaultValue) ? opt.defaultValue.join(",") : String(opt.defaultValue));
}

function optionRows(options: readonly Option[]): string[][] {
  return options.filter((o) => !o.hidden).map((o) => [code(o.flags), defaultOf(o), o.description]);
}

/** The commands table (name, arguments, what it does and its exit codes), then each command's flags. */
export async function commandTables(): Promise<string> {
  // A command with sub-commands is listed when it runs on its own too (`emulator` serves; `emulator change` changes).
  const commands = (await declaredCommands()).filter((c) => c.commands.length === 0 || c.options.some((o) => !o.hidden));
  const global = buildProgram(silentIO()).options;
  const listing = markdownTable(
    ["command", "what it does (exit codes)"],
    commands.map((c) => [code(`${fullName(c)} ${c.usage()}`.trim()), c.description()]),
  );
  const sections = commands
    .filter((c) => c.options.some((o) => !o.hidden))
    .map((c) => [`### \`${fullName(c)}\``, "", markdownTable(["flag", "default", "what"], optionRows(c.options))].join("\n"));
  return [
    listing,
    "",
    "### Global flags",
    "",
    markdownTable(["flag", "default", "what"], optionRows(global)),
    "",
    ...sections.flatMap((s) => [s, ""]),
  ]
    .join("\n")
    .trimEnd();
}
