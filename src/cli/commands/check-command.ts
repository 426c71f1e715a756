import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
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

/** Exit code of `check` when at least one mandatory rule is violated. */
export const EXIT_MANDATORY_VIOLATION = 3;

const FORMATS = ["table", "json", "sarif", "junit", "markdown"] as const;
type Format = (typeof FORMATS)[number];

export function registerCheck(program: Command, io: CommandIO): void {
  withStackOptions(program.command("check"))
    .description("run every compliance rule against live state (exit 0 no mandatory violation, 3 at least one, 1 error)")
    .option("--output <format>", FORMATS.join(", "), choiceOption(FORMATS), "table")
    .option("--format <format>", "alias of --output", choiceOption(FORMATS))
    .option("--out <file>", "write the report to a file instead of stdout")
    .option("--concurrency <n>", "databases read at once", intOption(1, 256), 16)
    .action(async (flags: StackFlags & { output: Format; format?: Format; out?: string; concurrency: number }) => {
      const format = flags.format ?? flags.output;
      const { stack, name } = loadStackFromFlags(flags, io);
      const result = await runCheck(azureClientsFromEnv(io.env), stack, flags.concurrency);
      const report = renderReport({ stackName: name, file: stack.file, result, generatedAt: new Date(), toolVersion: VERSION }, format);
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

/** Reads live state and evaluates every rule with the stack's settings and exemptions. */
export async function runCheck(
  clients: Pick<AzureClients, "sql" | "batch">,
  stack: StackConfig,
  concurrency = 16,
): Promise<ComplianceResult> {
  const facts = await gatherFacts(clients, stack, { concurrency });
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
