import { writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { Command } from "commander";
import { evaluateCompliance, type ComplianceResult } from "../../compliance/evaluate";
import { gatherFacts } from "../../facts/gather-facts";
import type { StackConfig } from "../../config/stack-config";
import {
  complianceDocument,
  renderComplianceMarkdown,
  renderComplianceTable,
  type ComplianceReportInput,
} from "../../report/compliance-report";
import { renderJunit } from "../../report/junit-report";
import { renderSarif } from "../../report/sarif-report";
import { azureClientsFromEnv, type AzureClients } from "../../runtime/azure-clients";
import { VERSION } from "../../version";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { readProbeRun, type StoredProbeRun } from "../../probes/probe-results-store";
import { probeResultsNote } from "../../report/probe-results-note";
import { stateDirs } from "../../settings/state-dirs";
import { withProbeDirOption, type ProbeDirFlags } from "../probe-dir-option";

/** Exit code of `check` when at least one mandatory rule is violated. */
export const EXIT_MANDATORY_VIOLATION = 3;

const FORMATS = ["table", "json", "sarif", "junit", "markdown"] as const;
type Format = (typeof FORMATS)[number];

export function registerCheck(program: Command, io: CommandIO): void {
  withProbeDirOption(withStackOptions(program.command("check")))
    .description("run every compliance rule against live state (exit 0 no mandatory violation, 3 at least one, 1 error)")
    .option("--output <format>", FORMATS.join(", "), choiceOption(FORMATS), "table")
    .option("--format <format>", "alias of --output", choiceOption(FORMATS))
    .option("--out <file>", "write the report to a file instead of stdout")
    .option("--concurrency <n>", "databases read at once", intOption(1, 256), 16)
    .action(async (flags: StackFlags & ProbeDirFlags & { output: Format; format?: Format; out?: string; concurrency: number }) => {
      const format = flags.format ?? flags.output;
      const { stack, name } = loadStackFromFlags(flags, io);
      const probes = lastProbeRunOf(stack, name, io, flags);
      const result = await runCheck(azureClientsFromEnv(io.env), stack, flags.concurrency, probes.run);
      const report = renderReport(
        { stackName: name, file: stack.file, result, generatedAt: new Date(), toolVersion: VERSION, notes: probes.notes },
        format,
      );
      if (flags.out) {
        // Relative to the command's cwd (io.cwd), not the process's: they differ when main() runs in-process.
        writeFileSync(resolve(io.cwd, flags.out), `${report}\n`);
        io.err(
          `stackwarden check: wrote ${format} report to ${flags.out} (${result.summary.mandatoryViolations} mandatory, ${result.summary.advisoryViolations} advisory)`,
        );
      } else {
        io.out(report);
      }
      io.exitCode = result.summary.mandatoryViolations > 0 ? EXIT_MANDATORY_VIOLATION : 0;
    });
}

/**
 * The stack's last probe run for `post-deploy-probes`, and the report's note on it. A stack without
 * probes (or with the rule disabled) has nothing to read. No file, or a damaged one, is no error:
 * the probes then have no result, and the note says why.
 */
export function lastProbeRunOf(
  stack: StackConfig,
  stackName: string,
  io: Pick<CommandIO, "cwd" | "env">,
  flags: ProbeDirFlags = {},
): { run: StoredProbeRun | null | undefined; notes: string[] } {
  if (!stack.probes?.length || stack.policies["post-deploy-probes"]?.enforcementLevel === "disabled") return { run: undefined, notes: [] };
  const lookup = readProbeRun(stateDirs(io.cwd, io.env, flags).probes, stackName);
  const shown = relative(io.cwd, lookup.path);
  const note = probeResultsNote(lookup, shown.startsWith("..") ? lookup.path : shown);
  return { run: lookup.found ? lookup.run : null, notes: [note] };
}

/**
 * Reads live state and evaluates every rule with the stack's settings and exemptions; the probes
 * are judged by `lastProbeRun` (absent: not judged; null: none kept).
 */
export async function runCheck(
  clients: Pick<AzureClients, "sql" | "batch">,
  stack: StackConfig,
  concurrency = 16,
  lastProbeRun?: StoredProbeRun | null,
): Promise<ComplianceResult> {
  const facts = await gatherFacts({ sql: clients.sql, batch: clients.batch, lastProbeRun }, stack, { concurrency });
  return evaluateCompliance(facts, stack.policies, stack.exemptions, Date.now());
}

export function renderReport(input: ComplianceReportInput, format: Format): string {
  switch (format) {
    case "json":
      return JSON.stringify(complianceDocument(input), null, 2);
    case "sarif":
      return renderSarif(input);
    case "junit":
      return renderJunit(input);
    case "markdown":
      return renderComplianceMarkdown(input);
    default:
      return renderComplianceTable(input);
  }
}
