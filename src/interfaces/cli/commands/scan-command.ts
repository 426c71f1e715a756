import type { Command } from "commander";
import { renderArtifactScanTable } from "../../../domain/reports/artifact-scan-report";
import { runScan, scanExitCode } from "../../../usecases/scan";
import { errorLine } from "../cli-error";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { serviceClients } from "../service-clients";

const FORMATS = ["table", "json"] as const;
type Format = (typeof FORMATS)[number];

interface ScanFlags extends StackFlags {
  rules?: string[];
  output: Format;
  format?: Format;
  concurrency: number;
}

export function registerScan(program: Command, io: CommandIO): void {
  withStackOptions(program.command("scan"))
    .description(
      "run the binary analysis gate on files: unpack when packed, apply the signature rules (STACKWARDEN_BINARY_ANALYSIS_ENDPOINT); without FILEs, --stack scans the stack's stackwarden:artifacts (exit 0 clean, 3 a match, 1 error)",
    )
    .argument("[files...]", "files to scan")
    .option("--rules <paths...>", "YARA rule files (.yar, .yara) or folders of them; default the stack's stackwarden:artifacts.rules")
    .option("--output <format>", FORMATS.join(", "), choiceOption(FORMATS), "table")
    .option("--format <format>", "alias of --output", choiceOption(FORMATS))
    .option("--concurrency <n>", "artifacts scanned at once", intOption(1, 64), 4)
    .action(async (files: string[], flags: ScanFlags) => {
      const format = flags.format ?? flags.output;
      const stack = flags.stack || flags.config ? loadStackFromFlags(flags, io).stack : undefined;
      const clients = await serviceClients(io);
      let report;
      try {
        report = await runScan({
          clients,
          cwd: io.cwd,
          files,
          rules: flags.rules,
          stack,
          concurrency: flags.concurrency,
          warn: (l) => io.err(`stackwarden scan: ${l}`),
        });
      } finally {
        await clients.close();
      }
      io.out(format === "json" ? JSON.stringify(report, null, 2) : renderArtifactScanTable(report));
      for (const e of report.artifacts.filter((a) => a.verdict === "error"))
        io.err(errorLine("stackwarden scan", "SW_ARTIFACT_NOT_SCANNED", `${e.path}: ${e.error}`));
      io.exitCode = scanExitCode(report);
    });
}
