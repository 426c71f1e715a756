import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { ClientSet } from "../clients/client-set";
import { projectDirOf, resolveArtifacts, scanArtifacts, type ArtifactScanReport } from "../domain/artifacts/artifact-gate";
import { loadRuleSet, type RuleSet } from "../domain/artifacts/rule-set";
import { localArtifactFiles, localScanCache, warnOnStderr } from "./local-artifact-gate";
import type { StackConfig } from "../domain/stack/stack-config";
import { UsageError } from "../platform/usage-error";

/** Exit code of `scan` when an artifact matches a signature rule. */
export const EXIT_SIGNATURE_MATCH = 3;

/** What to scan: files (with rules), or a stack's `stackwarden:artifacts` (with its rules unless others are named). */
export interface ScanRequest {
  clients: ClientSet;
  cwd: string;
  /** Files to scan, relative to `cwd`; none: the stack's artifacts. */
  files: readonly string[];
  /** Rule files or folders, relative to `cwd`; default the stack's `stackwarden:artifacts.rules`. */
  rules?: readonly string[];
  stack?: StackConfig;
  concurrency?: number;
  /** Where warnings go (a glob matching no file). */
  warn?: (line: string) => void;
}

/**
 * The binary analysis gate on files: each is unpacked when packed and matched against the rules
 * by the binary analysis service. Files that cannot be read or rules that cannot be loaded are
 * refused up front (one line naming the file or the rule); a file the service could not scan is
 * an `error` verdict in the report.
 */
export async function runScan(req: ScanRequest): Promise<ArtifactScanReport> {
  const { stack, files, cwd } = req;
  const baseDir = stack ? projectDirOf(localArtifactFiles, resolve(cwd, stack.file)) : cwd;
  if (files.length === 0 && !stack)
    throw new UsageError("what to scan? give FILEs, or --stack NAME to scan the stack's stackwarden:artifacts");
  if (!req.rules?.length && !stack?.artifacts) {
    throw new UsageError(
      stack
        ? `the stack ${stack.file} has no stackwarden:artifacts: give --rules PATH`
        : "which rules? give --rules PATH (a .yar file or a folder of them)",
    );
  }
  let targets: string[];
  let unmatchedPaths: string[] = [];
  let ruleSet: RuleSet | undefined;
  let shownBase = baseDir;
  if (files.length > 0) {
    targets = files.map((f) => {
      const abs = resolve(cwd, f);
      let isFile: boolean;
      try {
        isFile = statSync(abs).isFile();
      } catch {
        throw new UsageError(`${f}: no such file`);
      }
      if (!isFile) throw new UsageError(`${f}: not a file (give files; a stack's globs are scanned with --stack and no FILEs)`);
      return abs;
    });
    shownBase = cwd;
  } else {
    const resolved = resolveArtifacts(localArtifactFiles, stack!.artifacts ?? { paths: [], rules: [] }, baseDir);
    targets = resolved.files;
    unmatchedPaths = resolved.unmatchedPaths;
    ruleSet = resolved.ruleSet;
  }
  // --rules is relative to the working directory; the stack's rules to the project directory.
  ruleSet = req.rules?.length
    ? loadRuleSet(localArtifactFiles, cwd, [...req.rules], "--rules")
    : (ruleSet ?? loadRuleSet(localArtifactFiles, baseDir, stack!.artifacts!.rules, "stackwarden:artifacts.rules"));
  for (const p of unmatchedPaths) req.warn?.(`warning: stackwarden:artifacts.paths "${p}" matches no file`);

  const service = await req.clients.binaryAnalysis();
  return scanArtifacts({
    client: service.client,
    artifactFiles: localArtifactFiles,
    cache: localScanCache(),
    warn: warnOnStderr,
    ruleSet,
    files: targets,
    baseDir: shownBase,
    concurrency: req.concurrency,
    unmatchedPaths,
  });
}

/** The exit code of a scan: 1 when a file could not be scanned, 3 when one matched a rule, else 0. */
export function scanExitCode(report: ArtifactScanReport): number {
  if (report.artifacts.some((a) => a.verdict === "error")) return 1;
  return report.artifacts.some((a) => a.verdict === "matched") ? EXIT_SIGNATURE_MATCH : 0;
}
