import { resolve } from "node:path";
import { projectDirOf, resolveArtifacts, scanArtifacts, type ArtifactResult, type ArtifactScanReport } from "../artifacts/artifact-scan";
import { displayPath } from "../artifacts/path-glob";
import type { ArtifactFacts } from "../compliance/facts";
import type { SourceLocation } from "../compliance/source-location";
import type { StackConfig } from "../stack/stack-config";
import type { BinaryAnalysisClient } from "../../services/binary-analysis/client";

/** One artifact of the gate's report in the rules' terms (plain data: no file contents, no meta). */
export function artifactFactsOf(
  a: ArtifactResult,
  rulesDigest: string,
  where: { file?: string; source?: SourceLocation } = {},
): ArtifactFacts {
  return {
    path: a.path,
    ...(where.file && where.file !== a.path ? { file: where.file } : {}),
    sha256: a.sha256,
    rulesDigest,
    verdict: a.verdict,
    matches: a.matches.map((m) => ({
      rule: m.rule,
      ruleFile: m.ruleFile,
      tags: [...m.tags],
      ...(m.offset !== undefined ? { offset: m.offset } : {}),
      ...(m.length !== undefined ? { length: m.length } : {}),
      inUnpackedContent: a.scannedUnpacked,
    })),
    ...(a.packer ? { packer: `${a.packer.name}${a.packer.version ? ` ${a.packer.version}` : ""}` } : {}),
    scannedUnpacked: a.scannedUnpacked,
    ...(a.unpackError ? { unpackError: a.unpackError } : {}),
    ...(a.error ? { scanError: a.error } : {}),
    ...(where.source ? { source: where.source } : {}),
  };
}

/** What `gatherArtifactFacts` found: the facts, and the gate's report (for warnings and errors). */
export interface GatheredArtifacts {
  facts: ArtifactFacts[];
  report: ArtifactScanReport;
}

/**
 * Scans the files of the stack's `stackwarden:artifacts` (globs and rules relative to its project
 * directory) through the binary analysis service. Each fact's `source` is the stack-file line of
 * the first glob that matched it; `file` is the artifact as `cwd`-relative reports show it. An
 * unusable rule set (a missing file, a rule that does not compile) throws; a file the service
 * could not scan is that artifact's `scanError`.
 */
export async function gatherArtifactFacts(
  client: BinaryAnalysisClient,
  stack: StackConfig,
  opts: { cwd: string; concurrency?: number; signal?: AbortSignal },
): Promise<GatheredArtifacts> {
  const target = stack.artifacts;
  if (!target) return { facts: [], report: { rulesDigest: "", ruleFiles: [], artifacts: [], unmatchedPaths: [] } };
  const baseDir = projectDirOf(resolve(opts.cwd, stack.file));
  const resolved = resolveArtifacts(target, baseDir);
  const report = await scanArtifacts({
    client,
    ruleSet: resolved.ruleSet,
    files: resolved.files,
    baseDir,
    concurrency: opts.concurrency,
    unmatchedPaths: resolved.unmatchedPaths,
    signal: opts.signal,
  });
  const facts = report.artifacts.map((a, i) =>
    artifactFactsOf(a, report.rulesDigest, {
      file: displayPath(opts.cwd, a.absolutePath),
      source: target.pathSources?.[resolved.patternIndex[i]] ?? target.source,
    }),
  );
  return { facts, report };
}
