import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { projectDirOf, resolveArtifacts, scanArtifacts } from "../../../domain/artifacts/artifact-scan";
import { loadRuleSet } from "../../../domain/artifacts/rule-set";
import { binaryAnalysisServiceFromEnv } from "../../../clients/binary-analysis-service";
import { renderArtifactScanTable } from "../../../domain/reports/artifact-scan-report";
import { UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";

/** Exit code of `scan` when an artifact matches a signature rule. */
export const EXIT_SIGNATURE_MATCH = 3;

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
      const baseDir = stack ? projectDirOf(resolve(io.cwd, stack.file)) : io.cwd;
      if (files.length === 0 && !stack)
        throw new UsageError("what to scan? give FILEs, or --stack NAME to scan the stack's stackwarden:artifacts");
      if (!flags.rules?.length && !stack?.artifacts) {
        throw new UsageError(
          stack
            ? `the stack ${stack.file} has no stackwarden:artifacts: give --rules PATH`
            : "which rules? give --rules PATH (a .yar file or a folder of them)",
        );
      }
      let targets: string[];
      let unmatchedPaths: string[] = [];
      let ruleSet;
      let shownBase = baseDir;
      if (files.length > 0) {
        targets = files.map((f) => {
          const abs = resolve(io.cwd, f);
          let isFile: boolean;
          try {
            isFile = statSync(abs).isFile();
          } catch {
            throw new UsageError(`${f}: no such file`);
          }
          if (!isFile) throw new UsageError(`${f}: not a file (give files; a stack's globs are scanned with --stack and no FILEs)`);
          return abs;
        });
        shownBase = io.cwd;
      } else {
        const resolved = resolveArtifacts(stack!.artifacts ?? { paths: [], rules: [] }, baseDir);
        targets = resolved.files;
        unmatchedPaths = resolved.unmatchedPaths;
        ruleSet = resolved.ruleSet;
      }
      // --rules is relative to the working directory; the stack's rules to the project directory.
      ruleSet = flags.rules?.length
        ? loadRuleSet(io.cwd, flags.rules, "--rules")
        : (ruleSet ?? loadRuleSet(baseDir, stack!.artifacts!.rules, "stackwarden:artifacts.rules"));
      for (const p of unmatchedPaths) io.err(`stackwarden scan: warning: stackwarden:artifacts.paths "${p}" matches no file`);

      const service = await binaryAnalysisServiceFromEnv(io.env);
      let report;
      try {
        report = await scanArtifacts({
          client: service.client,
          ruleSet,
          files: targets,
          baseDir: shownBase,
          concurrency: flags.concurrency,
          unmatchedPaths,
        });
      } finally {
        await service.close();
      }
      io.out(format === "json" ? JSON.stringify(report, null, 2) : renderArtifactScanTable(report));
      const errors = report.artifacts.filter((a) => a.verdict === "error");
      for (const e of errors) io.err(`stackwarden scan: ${e.path}: ${e.error}`);
      io.exitCode = errors.length > 0 ? 1 : report.artifacts.some((a) => a.verdict === "matched") ? EXIT_SIGNATURE_MATCH : 0;
    });
}
