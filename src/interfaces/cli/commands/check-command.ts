import { writeFileSync } from "node:fs";
import { stateStoresFor } from "../state-stores";
import { resolve } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { COMPLIANCE_FORMATS, renderComplianceReport, type ComplianceFormat } from "../../../domain/reports/compliance-formats";
import { scanErrorLine, unreadErrorLine } from "../failure-lines";
import { VERSION } from "../../../platform/version";
import { checkExitCode, runCheck } from "../../../usecases/check";
import type { CommandIO } from "../command-io";
import { choiceListOption, choiceOption, intOption } from "../option-parsers";
import type { ReportDetail } from "../../../domain/reports/finding-outline";
import { withProbeDirOption, type ProbeDirFlags } from "../probe-dir-option";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { serviceClients } from "../service-clients";
import { coverageCounts } from "../../../domain/discovery/scope-coverage";

const FORMATS = COMPLIANCE_FORMATS;
type Format = ComplianceFormat;

export function registerCheck(program: Command, io: CommandIO): void {
  withProbeDirOption(withStackOptions(program.command("check")))
    .description(
      "run every compliance rule against live state (exit 0 no mandatory violation, 3 at least one, 1 error: also an artifact not scanned or a database that could not be read, the others still judged)",
    )
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
    .option(
      "--sarif-passes",
      "SARIF also records passing results (kind pass, level none): evidence that each rule was checked; leave it off for GitHub code scanning, which shows every result as an alert",
    )
    .option(
      "--show <kinds>",
      `the table and markdown also list these, comma-separated: ${SHOWN.join(", ")} (by default they count them; failures, exempt and unknown findings are always listed)`,
      choiceListOption(SHOWN),
      [] as Shown[],
    )
    .option(
      "--verbose",
      "the table and markdown list each pass with its evidence (and, with --show not-applicable, each not-applicable finding)",
    )
    .option("--concurrency <n>", "databases read at once", intOption(1, 256), 16)
    .action(async (flags: CheckFlags) => {
      const format = flags.format ?? flags.output;
      const { stack, name } = loadStackFromFlags(flags, io);
      const clients = await serviceClients(io);
      let result;
      try {
        result = await runCheck({
          stack,
          stackName: name,
          clients,
          cwd: io.cwd,
          state: await stateStoresFor(io, flags),
          planned: flags.planned,
          concurrency: flags.concurrency,
          warn: (l) => io.err(`stackwarden check: ${l}`),
        });
      } finally {
        await clients.close();
      }
      const input = {
        stackName: name,
        file: stack.file,
        result,
        generatedAt: new Date(),
        toolVersion: VERSION,
        notes: result.notes,
        sarifPasses: !!flags.sarifPasses,
        show: reportDetail(flags),
        ...(result.coverage ? { coverage: coverageCounts(result.coverage, result.findings) } : {}),
      };
      const report = renderComplianceReport(input, format);
      for (const extra of flags.report) {
        writeFileSync(resolve(io.cwd, extra.file), `${renderComplianceReport(input, extra.format)}\n`);
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
      // An artifact that could not be scanned is not known to be clean: the check is incomplete.
      for (const e of result.scanErrors) io.err(scanErrorLine("stackwarden check", e));
      // A database the cloud does not have is not known to be compliant either: at its stack-file line, exit 1.
      for (const u of result.unread) io.err(unreadErrorLine("stackwarden check", u));
      io.exitCode = checkExitCode(result);
    });
}

interface CheckFlags extends StackFlags, ProbeDirFlags {
  output: Format;
  format?: Format;
  out?: string;
  report: ExtraReport[];
  planned?: boolean;
  sarifPasses?: boolean;
  show: Shown[];
  verbose?: boolean;
  concurrency: number;
}

/** What `--show` may name. */
const SHOWN = ["passed", "not-applicable"] as const;
type Shown = (typeof SHOWN)[number];

/** What the people's formats list beyond failures, from `--show` and `--verbose`. */
function reportDetail(flags: Pick<CheckFlags, "show" | "verbose">): ReportDetail {
  return { passed: flags.show.includes("passed"), notApplicable: flags.show.includes("not-applicable"), verbose: !!flags.verbose };
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
