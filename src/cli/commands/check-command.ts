import { writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { evaluateCompliance, type ComplianceResult } from "../../compliance/evaluate";
import { gatherFacts } from "../../facts/gather-facts";
import { plannedFacts } from "../../facts/planned-facts";
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
    .option(
      "--report <format=file>",
      "also write the same evaluation in another format to a file (repeatable), e.g. --report markdown=summary.md",
      collectReport,
      [] as ExtraReport[],
    )
    .option(
      "--planned",
      "judge the state the stack asks for: a database the plan would change counts with its desired TDE status (the pull-request gate; as the policy pack does in pulumi preview)",
    )
    .option("--concurrency <n>", "databases read at once", intOption(1, 256), 16)
    .action(async (flags: CheckFlags) => {
      const format = flags.format ?? flags.output;
      const { stack, name } = loadStackFromFlags(flags, io);
      // The planned state (the pull-request gate) is not deployed yet: no probe has run against it.
      const probes = flags.planned ? { run: undefined, notes: [] } : lastProbeRunOf(stack, name, io, flags);
      const result = await runCheck(azureClientsFromEnv(io.env), stack, flags.concurrency, {
        planned: flags.planned,
        lastProbeRun: probes.run,
      });
      const input = { stackName: name, file: stack.file, result, generatedAt: new Date(), toolVersion: VERSION, notes: probes.notes };
      const report = renderReport(input, format);
      for (const extra of flags.report) {
        writeFileSync(resolve(io.cwd, extra.file), `${renderReport(input, extra.format)}\n`);
        io.err(`stackwarden check: wrote ${extra.format} report to ${extra.file}`);
      }
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

interface CheckFlags extends StackFlags, ProbeDirFlags {
  output: Format;
  format?: Format;
  out?: string;
  report: ExtraReport[];
  planned?: boolean;
  concurrency: number;
}

interface ExtraReport {
  format: Format;
  file: string;
}

/** Parses one `--report FORMAT=FILE` and adds it to the ones before. */
function collectReport(value: string, previous: ExtraReport[]): ExtraReport[] {
  const m = /^([a-z]+)=(.+)$/.exec(value);
  if (!m) throw new InvalidArgumentError(`expected FORMAT=FILE (e.g. markdown=summary.md), got "${value}"`);
  if (!(FORMATS as readonly string[]).includes(m[1]))
    throw new InvalidArgumentError(`expected a format of ${FORMATS.join(", ")} before "=", got "${m[1]}"`);
  return [...previous, { format: m[1] as Format, file: m[2] }];
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
 * Reads live state and evaluates every rule with the stack's settings and exemptions (on the
 * planned state with `planned`); the probes are judged by `lastProbeRun` (absent: not judged;
 * null: none kept).
 */
export async function runCheck(
  clients: Pick<AzureClients, "sql" | "batch">,
  stack: StackConfig,
  concurrency = 16,
  opts: { planned?: boolean; lastProbeRun?: StoredProbeRun | null } = {},
): Promise<ComplianceResult> {
  const live = await gatherFacts({ sql: clients.sql, batch: clients.batch, lastProbeRun: opts.lastProbeRun }, stack, { concurrency });
  const facts = opts.planned ? plannedFacts(live, stack) : live;
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
