import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { renderPartialRule } from "../../../services/binary-analysis/partial-rule-text";
import { binaryAnalysisServiceFromEnv } from "../../../clients/binary-analysis-service";
import { UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";

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
      const abs = resolve(io.cwd, file);
      let isFile: boolean;
      try {
        isFile = statSync(abs).isFile();
      } catch {
        throw new UsageError(`${file}: no such file`);
      }
      if (!isFile) throw new UsageError(`${file}: not a file`);
      const service = await binaryAnalysisServiceFromEnv(io.env);
      let rule;
      try {
        rule = await service.client.generatePartialYaraRules(abs, {
          unpack: flags.unpack,
          minimumStringLength: flags.minLength,
          stringsToIgnore: flags.ignore,
        });
      } finally {
        await service.close();
      }
      io.out((flags.format ?? flags.output) === "json" ? JSON.stringify({ rule }, null, 2) : renderPartialRule(rule));
    });
}
