import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { artifactVerdict } from "../compliance/artifact-verdict";
import { mapBounded } from "../../platform/bounded-map";
import type { ArtifactsTarget } from "../stack/stack-config";
import { withFileSource } from "../../platform/executables/byte-source";
import { readExecutable } from "../../platform/executables/executable-format";
import { detectPacker, type DetectedPacker } from "../../platform/executables/packer-detection";
import { ApiError } from "../../platform/http/api-error";
import type { BinaryAnalysisClient } from "../../services/binary-analysis/client";
import { ERROR_CODE, type YaraScanResult } from "../../services/binary-analysis/types";
import { sha256File } from "./file-digest";
import { displayPath, expandGlobs } from "./path-glob";
import { loadRuleSet, ruleSources, type RuleSet } from "./rule-set";

/**
 * The binary analysis gate's summary of one artifact (error > matched > packed-not-unpackable >
 * clean), computed by `artifactVerdict` only.
 */
export type ArtifactVerdict = "clean" | "matched" | "packed-not-unpackable" | "error";

/** One rule that matched an artifact. */
export interface ArtifactMatch {
  rule: string;
  /** The rule file that declares it (as shown). */
  ruleFile: string;
  tags: string[];
  meta: Record<string, string | number | boolean>;
  /** Every matched string: identifier, offset and length. */
  strings: { identifier: string; offset: number; length?: number }[];
  /** Offset of the first matched string (for a SARIF region), when the rule matched strings. */
  offset?: number;
  /** Length of the first matched string. */
  length?: number;
}

/** What the gate found about one artifact: plain data that the rules judge. */
export interface ArtifactResult {
  /** As reports show it: relative to the project directory. */
  path: string;
  absolutePath: string;
  sha256: string;
  size: number;
  /** The packer recognised in the file, if any. */
  packer?: Pick<DetectedPacker, "name" | "version" | "evidence">;
  /** Whether the scan ran on the unpacked content (offsets then refer to it, not to the file). */
  scannedUnpacked: boolean;
  /** Why a packed file could not be unpacked (it was then scanned as it is). */
  unpackError?: string;
  matches: ArtifactMatch[];
  /** Why the artifact could not be scanned at all. */
  error?: string;
  /**
   * `error` (not scanned) > `matched` (a rule matched) > `packed-not-unpackable` (packed, and
   * unpacking failed or is not possible) > `clean`: `artifactVerdict` of src/domain/compliance, the one
   * definition the rules and the ArtifactScan data source share.
   */
  verdict: ArtifactVerdict;
}

/** The gate's findings for a set of artifacts. */
export interface ArtifactScanReport {
  /** Digest of the rule set the artifacts were scanned with (see RuleSet.digest). */
  rulesDigest: string;
  ruleFiles: string[];
  artifacts: ArtifactResult[];
  /** Globs that matched no file (worth a warning: a typo ships unscanned files). */
  unmatchedPaths: string[];
}

/** The files and rules of a stack's `stackwarden:artifacts`, resolved on disk. */
export interface ResolvedArtifacts {
  baseDir: string;
  files: string[];
  /** For each file, the index of the first glob of `paths` that matched it. */
  patternIndex: number[];
  unmatchedPaths: string[];
  ruleSet: RuleSet;
}

/** The project directory of a stack file: the nearest directory above it holding Pulumi.yaml, else the stack file's own directory. */
export function projectDirOf(stackFile: string): string {
  return findProjectDir(dirname(resolve(stackFile)));
}

/** The nearest directory at or above `start` holding Pulumi.yaml, else `start` (the Pulumi program and its providers run there). */
export function findProjectDir(start: string): string {
  const from = resolve(start);
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "Pulumi.yaml"))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

/** Expands the stack's artifact globs and loads its rule files, relative to `baseDir`. Throws RuleSetError for unusable rules. */
export function resolveArtifacts(target: ArtifactsTarget, baseDir: string): ResolvedArtifacts {
  const ruleSet = loadRuleSet(baseDir, target.rules, "stackwarden:artifacts.rules");
  const { files, unmatched, patternIndex } = expandGlobs(baseDir, target.paths);
  return { baseDir, files, patternIndex, unmatchedPaths: unmatched, ruleSet };
}

export interface ScanArtifactsOptions {
  client: BinaryAnalysisClient;
  ruleSet: RuleSet;
  files: readonly string[];
  /** Base directory for the paths reports show. */
  baseDir: string;
  /** Artifacts scanned at once. Default 4. */
  concurrency?: number;
  unmatchedPaths?: string[];
  signal?: AbortSignal;
}

/**
 * Scans each artifact through the binary analysis service: a file packed with UPX is scanned
 * unpacked (`is_unpacking_required=true`); when it cannot be unpacked (or its packer is not UPX)
 * it is scanned as it is and the reason is kept. A rule set that does not compile stops the whole
 * scan (an ApiError naming the rule file); any other failure is that artifact's `error`.
 */
export async function scanArtifacts(opts: ScanArtifactsOptions): Promise<ArtifactScanReport> {
  const sources = ruleSources(opts.ruleSet);
  const artifacts = await mapBounded(opts.files, opts.concurrency ?? 4, (file) => scanOne(file, opts, sources));
  return {
    rulesDigest: opts.ruleSet.digest,
    ruleFiles: opts.ruleSet.files.map((f) => f.path),
    artifacts,
    unmatchedPaths: opts.unmatchedPaths ?? [],
  };
}

async function scanOne(file: string, opts: ScanArtifactsOptions, sources: ReturnType<typeof ruleSources>): Promise<ArtifactResult> {
  const path = displayPath(opts.baseDir, file);
  let packer: DetectedPacker | undefined;
  // Hashing reads the whole file; it runs while the service scans it.
  const hashing = sha256File(file);
  hashing.catch(() => undefined);
  try {
    packer = await withFileSource(file, async (src) => detectPacker(src, await readExecutable(src)));
    const scanning = scan(file, packer, opts, sources);
    scanning.catch(() => undefined);
    const digest = await hashing;
    const { result, unpackError } = await scanning;
    const matches = toMatches(result);
    const scannedUnpacked = result.unpacking?.status === "unpacked" || (packer?.unpackable === true && unpackError === undefined);
    return {
      path,
      absolutePath: file,
      ...digest,
      packer: packer && { name: packer.name, version: packer.version, evidence: packer.evidence },
      scannedUnpacked,
      unpackError,
      matches,
      verdict: artifactVerdict({ packer: packer?.name, scannedUnpacked, matches }),
    };
  } catch (e) {
    if (isRuleSetFailure(e)) throw e;
    const d = await hashing.catch(() => ({ sha256: "", size: 0 }));
    return {
      path,
      absolutePath: file,
      ...d,
      packer: packer && { name: packer.name, version: packer.version, evidence: packer.evidence },
      scannedUnpacked: false,
      matches: [],
      error: e instanceof ApiError ? e.message : `${(e as Error).message}`,
      verdict: "error",
    };
  }
}

async function scan(
  file: string,
  packer: DetectedPacker | undefined,
  opts: ScanArtifactsOptions,
  sources: ReturnType<typeof ruleSources>,
): Promise<{ result: YaraScanResult; unpackError?: string }> {
  if (packer && !packer.unpackable) {
    const result = await opts.client.applyYaraRules(file, sources, { signal: opts.signal });
    return { result, unpackError: `${packer.name} cannot be unpacked here (only UPX can)` };
  }
  if (!packer) return { result: await opts.client.applyYaraRules(file, sources, { signal: opts.signal }) };
  try {
    return { result: await opts.client.applyYaraRules(file, sources, { unpack: true, signal: opts.signal }) };
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== ERROR_CODE.unpackFailed) throw e;
    // Packed but not unpackable: the packed bytes are still scanned, and the reason is kept.
    const result = await opts.client.applyYaraRules(file, sources, { signal: opts.signal });
    return { result, unpackError: e.detail };
  }
}

function toMatches(result: YaraScanResult): ArtifactMatch[] {
  return result.sources.flatMap((s) =>
    s.matches.map((m) => {
      const strings = m.strings.filter((x) => x.offset >= 0).map((x) => ({ identifier: x.identifier, offset: x.offset, length: x.length }));
      return {
        rule: m.rule,
        ruleFile: s.source,
        tags: m.tags,
        meta: m.meta,
        strings,
        offset: strings[0]?.offset,
        length: strings[0]?.length,
      };
    }),
  );
}

/** Failures of the rule set itself (every artifact would fail alike): they stop the scan. */
function isRuleSetFailure(e: unknown): boolean {
  return e instanceof ApiError && (e.code === ERROR_CODE.ruleCompile || e.code === ERROR_CODE.tooManyRules);
}
