import type { Command } from "commander";
import { renderPartialRule } from "../../../services/binary-analysis/partial-rule-text";
import { generatePartialRules } from "../../../usecases/rules";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";
import { serviceClients } from "../service-clients";

const FORMATS = ["yara", "json"] as const;
type Format = (typeof FORMATS)[number];

export function registerRules(program: Command, io: CommandIO): void {
  const rules = program
    .command("rules")
    .description("signature rule tools (binary analysis service: STACKWARDEN_BINARY_ANALYSIS_ENDPOINT)");
  rules
    .command("generate")
    .description(
      "print a partial YARA rule for a file: meta and its most distinctive strings, no condition (you write it) (exit 0, 1 error)",
    )
    .argument("<file>", "the file to describe")
    .option("--unpack", "unpack the file first when it is packed (UPX)", false)
    .option("--min-length <n>", "shortest string worth a rule, in characters (service default 6)", intOption(1, 200))
    .option("--ignore <strings...>", "strings to leave out")
    .option("--output <format>", FORMATS.join(", "), choiceOption(FORMATS), "yara")
    .option("--format <format>", "alias of --output", choiceOption(FORMATS))
    .action(async (file: string, flags: { unpack: boolean; minLength?: number; ignore?: string[]; output: Format; format?: Format }) => {
      const clients = await serviceClients(io);
      let rule;
      try {
        rule = await generatePartialRules(clients, file, {
          cwd: io.cwd,
          unpack: flags.unpack,
          minimumStringLength: flags.minLength,
          stringsToIgnore: flags.ignore,
        });
      } finally {
        await clients.close();
      }
      io.out((flags.format ?? flags.output) === "json" ? JSON.stringify({ rule }, null, 2) : renderPartialRule(rule));
    });
}
