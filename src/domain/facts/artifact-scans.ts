import { resolve } from "node:path";
import {
  projectDirOf,
  resolveArtifacts,
  scanArtifacts,
  type ArtifactResult,
  type ArtifactScanReport,
  type ArtifactVerdict,
  type ScanArtifactsOptions,
} from "../artifacts/artifact-gate";
import { scanCacheFor } from "../artifacts/scan-cache";
import { scanCacheSettingsFromEnv } from "../../platform/settings/scan-cache-settings";
import { displayPath } from "../../platform/files/path-glob";
import { SettingsError } from "../../platform/settings/endpoints";
import { UNKNOWN, type Maybe } from "../../platform/unknown-value";
import type { FactOrigin } from "./model/compliance-facts";
import { carrierOf, resourcesOf } from "./carrier";
import { defineFactKind, type GatherContext, type ResourceContext } from "./fact-kind";
import type { SourceLocation } from "../../platform/yaml/source-location";

/** One signature rule that matched an artifact. */
export interface ArtifactMatchFacts {
  /** The signature (YARA) rule's name. */
  rule: string;
  /** The rule file declaring it, relative to the project directory. */
  ruleFile: string;
  tags: string[];
  /** Byte offset of the rule's first matched string; absent when it matched on its condition alone. */
  offset?: number;
  /** Length in bytes of that matched string, when known. */
  length?: number;
  /** Whether `offset` lies in the unpacked content of a packed file (then it is no place in the file itself). */
  inUnpackedContent: boolean;
}

export type { ArtifactVerdict };

/** What the binary analysis gate found about one file of `stackwarden:artifacts`. */
export interface ArtifactFacts extends FactOrigin {
  /** Relative to the project directory, `/` separators: the artifact's identity (resource id `artifact:<path>`). */
  path: string;
  /** The file as reports locate it (relative to the working directory, like the stack file); default `path`. */
  file?: string;
  /** sha-256 (hex) of the file that was scanned. */
  sha256: string;
  /** Digest of the rule set it was scanned with. */
  rulesDigest: string;
  /** UNKNOWN while a preview does not know the scan yet. */
  verdict: Maybe<ArtifactVerdict>;
  matches: ArtifactMatchFacts[];
  /** The packer recognised in the file (`UPX 3.94`, `ASPack`), if any. */
  packer?: string;
  /** Whether the rules ran on the unpacked content. */
  scannedUnpacked: boolean;
  /** Why a packed file could not be unpacked (it was then scanned as it is). */
  unpackError?: string;
  /** Why the file could not be scanned at all. */
  scanError?: string;
  /** Set when the scan's result came from the scan cache (the bytes were not scanned again): when they were scanned. */
  cached?: { scannedAt: string };
}

declare module "./model/compliance-facts" {
  interface FactMap {
    artifacts: ArtifactFacts;
  }
}

/**
 * One artifact the stack ships, scanned by its own provider (`ArtifactScan`,
 * providers/artifact-scan-provider.ts: the scan happens in check, so a preview judges the file as it is).
 */
export const artifactScanResource = carrierOf("artifacts:ArtifactScan");

/**
 * What the binary analysis gate finds in each file of the stack's `stackwarden:artifacts`: scanned
 * through the service the client set names (`STACKWARDEN_BINARY_ANALYSIS_ENDPOINT`, or `embedded`).
 */
export const artifactScans = defineFactKind<ArtifactFacts>({
  key: "artifacts",
  title: "binary analysis of each artifact the stack ships",
  scope: "artifact",
  carrier: artifactScanResource,
  // Settings first: nothing is scanned or read when the binary analysis service is not named.
  prepare: async (ctx) => {
    if (ctx.stack.artifacts) await binaryAnalysisOf(ctx);
  },
  gather: async (ctx) => {
    if (!ctx.stack.artifacts) return [];
    const service = await binaryAnalysisOf(ctx);
    const scanned = await scanStackArtifacts(service, ctx, { cwd: ctx.cwd, signal: ctx.signal });
    for (const p of scanned.report.unmatchedPaths) ctx.warn(`warning: stackwarden:artifacts.paths "${p}" matches no file`);
    return scanned.facts;
  },
  fromResources: (resources, ctx) => resourcesOf(artifactScanResource, resources).map((r) => artifactFactsFromProps(r.props, ctx, r.urn)),
  resourceTypes: [artifactScanResource.type],
  // An artifact the service could not scan is not known to be clean: the check is incomplete.
  incompleteReads: (artifacts) => artifacts.flatMap((a) => (a.scanError ? [{ path: a.path, error: a.scanError }] : [])),
});

/** The binary analysis service's client; a missing or bad variable is one line naming it and the stack's key. */
async function binaryAnalysisOf(ctx: GatherContext): Promise<ScanArtifactsOptions["client"]> {
  try {
    return (await ctx.clients.binaryAnalysis()).client;
  } catch (e) {
    if (!(e instanceof SettingsError)) throw e;
    const src = ctx.stack.artifacts?.source;
    const at = src ? ` (${src.file}:${src.line})` : "";
    throw new SettingsError(`the stack names artifacts to scan in stackwarden:artifacts${at}, but ${e.message}`);
  }
}

/** An artifact's facts from an ArtifactScan: its verdict as the provider's scan gave it (UNKNOWN while not known). */
export function artifactFactsFromProps(
  props: Record<string, unknown>,
  ctx: Pick<ResourceContext, "known">,
  origin?: string,
): ArtifactFacts {
  const verdict = ctx.known(() => props.verdict as ArtifactVerdict | undefined);
  const scanned = verdict !== UNKNOWN && verdict !== undefined;
  const text = (k: string) => {
    const v = ctx.known(() => props[k]);
    return typeof v === "string" ? v : undefined;
  };
  const matches = scanned ? ctx.known(() => props.matches) : undefined;
  return {
    path: text("path") ?? "(a path not known yet)",
    sha256: text("sha256") ?? "",
    rulesDigest: text("rulesDigest") ?? "",
    verdict: scanned ? verdict : UNKNOWN,
    matches: Array.isArray(matches) ? (matches as ArtifactMatchFacts[]) : [],
    ...(scanned && text("packer") ? { packer: text("packer") } : {}),
    scannedUnpacked: scanned && ctx.known(() => props.scannedUnpacked) === true,
    ...(scanned && text("unpackError") ? { unpackError: text("unpackError") } : {}),
    // The provider fails rather than record an unscanned file; a state that says otherwise is not judged clean.
    ...(verdict === "error" ? { scanError: text("scanError") ?? "the file was not scanned" } : {}),
    origin,
  };
}

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
    ...(a.cached ? { cached: { ...a.cached } } : {}),
    ...(where.source ? { source: where.source } : {}),
  };
}

/** What `scanStackArtifacts` found: the facts, and the gate's report (for warnings and errors). */
interface GatheredArtifacts {
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
async function scanStackArtifacts(
  client: ScanArtifactsOptions["client"],
  ctx: Pick<GatherContext, "stack" | "clients" | "warn">,
  opts: { cwd: string; concurrency?: number; signal?: AbortSignal },
): Promise<GatheredArtifacts> {
  const { stack, clients } = ctx;
  const target = stack.artifacts;
  if (!target) return { facts: [], report: { rulesDigest: "", ruleFiles: [], artifacts: [], unmatchedPaths: [] } };
  const files = clients.artifactFiles;
  const baseDir = projectDirOf(files, resolve(opts.cwd, stack.file));
  const resolved = resolveArtifacts(files, target, baseDir);
  const report = await scanArtifacts({
    client,
    artifactFiles: files,
    cache: scanCacheFor(scanCacheSettingsFromEnv(clients.env), clients.scanCacheStorage),
    warn: (line) => ctx.warn(`warning: ${line}`),
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
