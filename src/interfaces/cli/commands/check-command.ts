import { writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { evaluateCompliance, type ComplianceResult } from "../../../domain/compliance/evaluate";
import { gatherArtifactFacts } from "../../../domain/facts/artifact-facts";
import { gatherLiveFacts } from "../../../domain/facts/live-facts";
import { plannedFacts } from "../../../domain/facts/planned-facts";
import type { StackConfig } from "../../../domain/stack/stack-config";
import { artifactSignatureClean } from "../../../domain/compliance/rules/artifact-signature-clean";
import { artifactPacked } from "../../../domain/compliance/rules/artifact-packed";
import { binaryAnalysisServiceFromEnv, type BinaryAnalysisService } from "../../../clients/binary-analysis-service";
import type { BinaryAnalysisClient } from "../../../services/binary-analysis/client";
import { SettingsError } from "../../../platform/settings/endpoints";
import {
  complianceDocument,
  renderComplianceMarkdown,
  renderComplianceTable,
  type ComplianceReportInput,
} from "../../../domain/reports/compliance-report";
import { renderJunit } from "../../../domain/reports/junit-report";
import { renderSarif } from "../../../domain/reports/sarif-report";
import type { ResidencySources } from "../../../domain/residency/place-stack";
import { azureClientsFromEnv, type AzureClients } from "../../../clients/azure-clients";
import { geocodingClientFromEnv } from "../../../clients/geocoding-client";
import { VERSION } from "../../../platform/version";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { readProbeRun, type StoredProbeRun } from "../../../domain/probes/probe-results-store";
import { probeResultsNote } from "../../../domain/reports/probe-results-note";
import { stateDirs } from "../../../platform/settings/state-dirs";
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
      // Settings first: nothing is scanned or read when the binary analysis service is not named.
      const gate = await openArtifactGate(stack, io.env);
      let result: CheckResult;
      try {
        // The geocoding client only when the stack sets residency: no other rule needs it.
        const clients = { ...azureClientsFromEnv(io.env), geocoding: stack.residency ? geocodingClientFromEnv(io.env) : undefined };
        result = await runCheck(clients, stack, flags.concurrency, {
          planned: flags.planned,
          lastProbeRun: probes.run,
          artifacts: gate && { client: gate.client, cwd: io.cwd, warn: (l) => io.err(`stackwarden check: ${l}`) },
        });
      } finally {
        await gate?.close();
      }
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
      // An artifact that could not be scanned is not known to be clean: the check is incomplete.
      for (const e of result.scanErrors) io.err(`stackwarden check: artifact ${e.path} could not be scanned: ${e.error}`);
      io.exitCode = result.scanErrors.length > 0 ? 1 : result.summary.mandatoryViolations > 0 ? EXIT_MANDATORY_VIOLATION : 0;
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

/** Where `runCheck` scans the stack's artifacts: the service's client, the directory reports are relative to, and where warnings go. */
export interface ArtifactGate {
  client: BinaryAnalysisClient;
  cwd: string;
  warn(line: string): void;
}

/** A check's findings, plus the artifacts that could not be scanned (each also a not-applicable finding). */
export type CheckResult = ComplianceResult & { scanErrors: { path: string; error: string }[] };

/** Whether `check` must scan the stack's artifacts: it names some, and an artifact rule is enabled. */
export function needsArtifactScan(stack: StackConfig): boolean {
  if (!stack.artifacts) return false;
  return [artifactSignatureClean.id, artifactPacked.id].some((id) => stack.policies[id]?.enforcementLevel !== "disabled");
}

/**
 * The binary analysis service for a stack whose artifacts must be scanned (STACKWARDEN_BINARY_ANALYSIS_ENDPOINT,
 * or `embedded`); undefined when there is nothing to scan. A missing or bad variable is one line naming it and the stack's key.
 */
export async function openArtifactGate(stack: StackConfig, env: NodeJS.ProcessEnv): Promise<BinaryAnalysisService | undefined> {
  if (!needsArtifactScan(stack)) return undefined;
  try {
    return await binaryAnalysisServiceFromEnv(env);
  } catch (e) {
    if (!(e instanceof SettingsError)) throw e;
    const at = stack.artifacts?.source ? ` (${stack.artifacts.source.file}:${stack.artifacts.source.line})` : "";
    throw new SettingsError(`the stack names artifacts to scan in stackwarden:artifacts${at}, but ${e.message}`);
  }
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
 * Scans the stack's artifacts (with `artifacts`, when the stack names them), reads live state and
 * evaluates every rule with the stack's settings and exemptions (on the planned state with
 * `planned`); the probes are judged by `lastProbeRun` (absent: not judged; null: none kept). With
 * `stackwarden:residency` set it also places the stack's resources and sites, for which
 * `clients.geocoding` is required.
 */
export async function runCheck(
  clients: Pick<AzureClients, "sql" | "batch"> & { geocoding?: ResidencySources["geocoding"] },
  stack: StackConfig,
  concurrency = 16,
  opts: { planned?: boolean; lastProbeRun?: StoredProbeRun | null; artifacts?: ArtifactGate } = {},
): Promise<CheckResult> {
  const { artifacts } = opts;
  const scanned = artifacts && stack.artifacts ? await gatherArtifactFacts(artifacts.client, stack, { cwd: artifacts.cwd }) : undefined;
  for (const p of scanned?.report.unmatchedPaths ?? []) artifacts?.warn(`warning: stackwarden:artifacts.paths "${p}" matches no file`);
  const live = await gatherLiveFacts(
    { sql: clients.sql, batch: clients.batch, lastProbeRun: opts.lastProbeRun, geocoding: () => requireGeocoding(clients.geocoding) },
    stack,
    { concurrency },
  );
  // Where resources are does not change with the plan: placements are judged as they are live.
  const facts = { ...(opts.planned ? plannedFacts(live, stack) : live), artifacts: scanned?.facts ?? [] };
  const scanErrors = facts.artifacts.filter((a) => a.scanError).map((a) => ({ path: a.path, error: a.scanError! }));
  return { ...evaluateCompliance(facts, stack.policies, stack.exemptions, Date.now()), scanErrors };
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

function requireGeocoding(g: ResidencySources["geocoding"] | undefined): ResidencySources["geocoding"] {
  // A programming error, not a user's: every caller passes a client when the stack sets residency.
  if (!g) throw new Error("runCheck: the stack sets stackwarden:residency, so a geocoding client is required");
  return g;
}
