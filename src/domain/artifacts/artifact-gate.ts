import { dirname, join, resolve } from "node:path";
import { artifactVerdict } from "../compliance/artifact-verdict";
import { mapBounded } from "../../platform/bounded-map";
import { CallFailure } from "../../platform/errors/call-failure";
import type { DetectedPacker } from "../../platform/executables/packer-detection";
import { displayPath } from "../../platform/files/path-glob";
import { VERSION } from "../../platform/version";
import type { ArtifactsTarget } from "../stack/stack-config";
import { ERROR_CODE, type RuleSource, type YaraScanResult } from "../../services/binary-analysis/types";
import type { ArtifactDigest, ArtifactFiles } from "./artifact-files";
import { engineIdentity } from "./engine-identity";
import { loadRuleSet, ruleSources, type RuleSet } from "./rule-set";
import type { ScanCache } from "./scan-cache";
import { scanCacheKey, type ScanCacheInput } from "./scan-cache-entry";
import type { ArtifactScanService } from "./scan-service";
import type { ArtifactMatch, ArtifactVerdict } from "./scan-outcome";

/**
 * The artifact gate: a stack's artifacts and rules resolved, each artifact scanned through the
 * binary analysis service (unpacked when packed) and its result cached. Pure over its ports: the
 * files it reads (ArtifactFiles), the service (ArtifactScanService) and the scan cache's storage
 * are handed over by the use cases and interfaces (src/usecases/local-artifact-gate.ts on this machine).
 */

export type { ArtifactMatch, ArtifactVerdict } from "./scan-outcome";

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
  /** Present when the result came from the scan cache (scan-cache.ts): the file was neither uploaded nor scanned this time. */
  cached?: { scannedAt: string };
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
export function projectDirOf(files: Pick<ArtifactFiles, "exists">, stackFile: string): string {
  return findProjectDir(files, dirname(resolve(stackFile)));
}

/** The nearest directory at or above `start` holding Pulumi.yaml, else `start` (the Pulumi program and its providers run there). */
export function findProjectDir(files: Pick<ArtifactFiles, "exists">, start: string): string {
  const from = resolve(start);
  for (let dir = from; ; dir = dirname(dir)) {
    if (files.exists(join(dir, "Pulumi.yaml"))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

/** Expands the stack's artifact globs and loads its rule files, relative to `baseDir`. Throws RuleSetError for unusable rules. */
export function resolveArtifacts(files: ArtifactFiles, target: ArtifactsTarget, baseDir: string): ResolvedArtifacts {
  const ruleSet = loadRuleSet(files, baseDir, target.rules, "stackwarden:artifacts.rules");
  const found = files.expandGlobs(baseDir, target.paths);
  return { baseDir, files: found.files, patternIndex: found.patternIndex, unmatchedPaths: found.unmatched, ruleSet };
}

export interface ScanArtifactsOptions {
  client: ArtifactScanService;
  /** The artifacts' bytes: their stamps, digests and packers. */
  artifactFiles: ArtifactFiles;
  ruleSet: RuleSet;
  files: readonly string[];
  /** Base directory for the paths reports show. */
  baseDir: string;
  /** Artifacts scanned at once. Default 4. */
  concurrency?: number;
  unmatchedPaths?: string[];
  signal?: AbortSignal;
  /**
   * Where results are kept between scans (the process's cache for the environment's
   * `STACKWARDEN_SCAN_CACHE`, `STACKWARDEN_CACHE_DIR`, `STACKWARDEN_SCAN_CACHE_MAX_BYTES`: scanCacheFor);
   * none scans everything again.
   */
  cache?: ScanCache;
  /** Where the cache's warnings go (a damaged entry, a directory it cannot write). */
  warn: (line: string) => void;
}

/**
 * Scans each artifact through the binary analysis service: a file packed with UPX is scanned
 * unpacked (`is_unpacking_required=true`); when it cannot be unpacked (or its packer is not UPX)
 * it is scanned as it is and the reason is kept. A rule set that does not compile stops the whole
 * scan (a CallFailure naming the rule file); any other failure is that artifact's `error`. With a
 * scan cache (on unless `STACKWARDEN_SCAN_CACHE=off`), an artifact whose bytes were scanned before
 * with the same rules on the same engine is neither uploaded nor scanned again (`cached`), and
 * concurrent scans of one file in this process share one request.
 */
export async function scanArtifacts(opts: ScanArtifactsOptions): Promise<ArtifactScanReport> {
  const sources = ruleSources(opts.ruleSet);
  const cache = opts.cache;
  const run: ScanRun = { opts, sources, cache, warn: opts.warn, stored: 0 };
  const artifacts = await mapBounded(opts.files, opts.concurrency ?? 4, (file) => scanOne(file, run));
  // Bounded after the run's writes, not during them: one pass over the directory a run.
  if (cache && run.stored > 0) await cache.sweep();
  return {
    rulesDigest: opts.ruleSet.digest,
    ruleFiles: opts.ruleSet.files.map((f) => f.path),
    artifacts,
    unmatchedPaths: opts.unmatchedPaths ?? [],
  };
}

/** What the scans of one `scanArtifacts` call share. */
interface ScanRun {
  opts: ScanArtifactsOptions;
  sources: RuleSource[];
  cache: ScanCache | undefined;
  warn: (line: string) => void;
  /** Entries this run wrote (the cache is swept after a run that wrote some). */
  stored: number;
}

/** An artifact's result without its path (what the scans of one file share, whatever path named it). */
type ScanCore = Omit<ArtifactResult, "path" | "absolutePath">;

async function scanOne(file: string, run: ScanRun): Promise<ArtifactResult> {
  const where = { path: displayPath(run.opts.baseDir, file), absolutePath: file };
  const cache = run.cache;
  const bytes = run.opts.artifactFiles;
  if (!cache) return { ...where, ...(await scanFresh(file, run, bytes.digest(file))).core };
  const stamp = await bytes.stamp(file);
  // Not there (any more): the scan says so as this artifact's error.
  if (stamp === undefined) return { ...where, ...(await scanFresh(file, run, bytes.digest(file))).core };
  // Several stacks or globs naming one file, scanned at once in this process: one scan.
  const id = [run.opts.client.endpoint, run.opts.ruleSet.digest, file, stamp].join("\0");
  return { ...where, ...(await cache.shared(id, () => scanThroughCache(file, stamp, run, cache))) };
}

/**
 * One file through the cache. When the file's hash is known from its stamp and an entry exists for
 * it on this engine, the file is hashed first and the entry used, so nothing is sent. Otherwise the
 * upload starts at once and the file is hashed while the service scans it (a first scan pays no
 * hashing time unless the scan is quicker than the hash), and what it finds is stored unless the
 * file changed while it was read.
 */
async function scanThroughCache(file: string, stamp: string, run: ScanRun, cache: ScanCache): Promise<ScanCore> {
  const { client, ruleSet, signal, artifactFiles } = run.opts;
  const digest = artifactFiles.digest(file);
  const hint = await cache.hashHint(file, stamp);
  if (hint) {
    digest.start();
    let engine: string | undefined;
    try {
      engine = await cache.engine(client, signal);
    } catch (e) {
      // The service cannot be reached (after the client's retries): asking again to scan would only wait as long again.
      if (e instanceof CallFailure && e.status === 0) return failed(e, await digest.result().catch(() => ({ sha256: "", size: 0 })));
      // Anything else (a service that will not scan an empty file): no cached result this time; the scan says the rest.
    }
    const input = (digest: { sha256: string; size: number }): ScanCacheInput => ({
      ...digest,
      rulesDigest: ruleSet.digest,
      engine: engine!,
      version: VERSION,
    });
    if (engine && (await cache.has(scanCacheKey(input(hint))))) {
      const known = await digest.result().catch(() => undefined);
      const entry = known && (await cache.lookup(input(known), run.warn));
      if (known && entry) return { ...known, ...entry.outcome, cached: { scannedAt: entry.scannedAt } };
    }
  }
  const fresh = await scanFresh(file, run, digest);
  if (fresh.core.error === undefined && fresh.yaraCommand !== undefined) {
    if ((await artifactFiles.stamp(file)) === stamp) {
      const { sha256, size, cached: _, error: __, ...outcome } = fresh.core;
      const input = {
        sha256,
        size,
        rulesDigest: ruleSet.digest,
        engine: engineIdentity(client.endpoint, fresh.yaraCommand),
        version: VERSION,
      };
      await cache.store(input, outcome, new Date().toISOString(), run.warn);
      await cache.rememberHash(file, stamp, sha256, size, run.warn);
      run.stored += 1;
    }
  }
  return fresh.core;
}

/** Scans a file through the service: its result, and the engine's `yara_command` (absent on failure). */
async function scanFresh(file: string, run: ScanRun, digest: ArtifactDigest): Promise<{ core: ScanCore; yaraCommand?: string }> {
  let packer: DetectedPacker | undefined;
  try {
    packer = await run.opts.artifactFiles.detectPacker(file);
    const { result, unpackError } = await scan(file, packer, run.opts, run.sources, digest.start);
    const known = await digest.result();
    const matches = toMatches(result);
    const scannedUnpacked = result.unpacking?.status === "unpacked" || (packer?.unpackable === true && unpackError === undefined);
    return {
      core: {
        ...known,
        packer: packer && { name: packer.name, version: packer.version, evidence: packer.evidence },
        scannedUnpacked,
        unpackError,
        matches,
        verdict: artifactVerdict({ packer: packer?.name, scannedUnpacked, matches }),
      },
      yaraCommand: result.yaraCommands[0] ?? "",
    };
  } catch (e) {
    if (isRuleSetFailure(e)) throw e;
    return { core: failed(e, await digest.result().catch(() => ({ sha256: "", size: 0 })), packer) };
  }
}

/** The result of an artifact that could not be scanned. */
function failed(e: unknown, digest: { sha256: string; size: number }, packer?: DetectedPacker): ScanCore {
  return {
    ...digest,
    packer: packer && { name: packer.name, version: packer.version, evidence: packer.evidence },
    scannedUnpacked: false,
    matches: [],
    error: e instanceof CallFailure ? e.message : `${(e as Error).message}`,
    verdict: "error",
  };
}

async function scan(
  file: string,
  packer: DetectedPacker | undefined,
  opts: ScanArtifactsOptions,
  sources: readonly RuleSource[],
  onFileRead: () => void,
): Promise<{ result: YaraScanResult; unpackError?: string }> {
  const sending = { signal: opts.signal, onFileRead };
  if (packer && !packer.unpackable) {
    const result = await opts.client.applyYaraRules(file, sources, sending);
    return { result, unpackError: `${packer.name} cannot be unpacked here (only UPX can)` };
  }
  if (!packer) return { result: await opts.client.applyYaraRules(file, sources, sending) };
  try {
    return { result: await opts.client.applyYaraRules(file, sources, { ...sending, unpack: true }) };
  } catch (e) {
    if (!(e instanceof CallFailure) || e.code !== ERROR_CODE.unpackFailed) throw e;
    // Packed but not unpackable: the packed bytes are still scanned, and the reason is kept.
    const result = await opts.client.applyYaraRules(file, sources, sending);
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
  return e instanceof CallFailure && (e.code === ERROR_CODE.ruleCompile || e.code === ERROR_CODE.tooManyRules);
}
