import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { evaluateCompliance, type ComplianceResult } from "../../compliance/evaluate";
import { gatherFacts } from "../../facts/gather-facts";
import { gatherArtifactFacts } from "../../facts/artifact-facts";
import type { StackConfig } from "../../config/stack-config";
import { artifactSignatureClean } from "../../compliance/rules/artifact-signature-clean";
import { artifactPacked } from "../../compliance/rules/artifact-packed";
import { binaryAnalysisServiceFromEnv, type BinaryAnalysisService } from "../../runtime/binary-analysis-service";
import type { BinaryAnalysisClient } from "../../services/binary-analysis/client";
import { SettingsError } from "../../settings/endpoints";
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
      // Settings first: nothing is scanned or read when the binary analysis service is not named.
      const gate = await openArtifactGate(stack, io.env);
      let result: CheckResult;
      try {
        result = await runCheck(
          azureClientsFromEnv(io.env),
          stack,
          flags.concurrency,
          gate && { client: gate.client, cwd: io.cwd, warn: (l) => io.err(`stackwarden check: ${l}`) },
        );
      } finally {
        await gate?.close();
      }
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
      // An artifact that could not be scanned is not known to be clean: the check is incomplete.
      for (const e of result.scanErrors) io.err(`stackwarden check: artifact ${e.path} could not be scanned: ${e.error}`);
      io.exitCode = result.scanErrors.length > 0 ? 1 : result.summary.mandatoryViolations > 0 ? EXIT_MANDATORY_VIOLATION : 0;
    });
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
 * Scans the stack's artifacts (with `artifacts`, when the stack names them), reads live state and
 * evaluates every rule with the stack's settings and exemptions.
 */
export async function runCheck(
  clients: Pick<AzureClients, "sql" | "batch">,
  stack: StackConfig,
  concurrency = 16,
  artifacts?: ArtifactGate,
): Promise<CheckResult> {
  const scanned = artifacts && stack.artifacts ? await gatherArtifactFacts(artifacts.client, stack, { cwd: artifacts.cwd }) : undefined;
  for (const p of scanned?.report.unmatchedPaths ?? []) artifacts?.warn(`warning: stackwarden:artifacts.paths "${p}" matches no file`);
  const facts = await gatherFacts(clients, stack, { concurrency });
  facts.artifacts = scanned?.facts ?? [];
  const scanErrors = (scanned?.facts ?? []).filter((a) => a.scanError).map((a) => ({ path: a.path, error: a.scanError! }));
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
