// TEMPORARY (issue 41, item 6): the artifact gate wired to this machine's disk and the user's scan
// cache, for the one caller that cannot hand it its ports yet: the fact kind
// src/domain/facts/artifact-scans.ts, which the `reads` branch is refactoring (it reads through
// FactClients, which will carry the gate's ports). Every other caller hands the ports to the gate
// itself (src/usecases/local-artifact-gate.ts). When that kind passes its ports to artifact-gate.ts,
// this file goes, and with it the exclusion that names it in .dependency-cruiser.cjs
// (domain-touches-no-files).
import { localArtifactFiles, localScanCacheStorage } from "../../platform/files/artifact-files";
import { scanCacheSettingsFromEnv } from "../../platform/settings/scan-cache-settings";
import type { ArtifactsTarget } from "../stack/stack-config";
import * as gate from "./artifact-gate";
import { scanCacheFor } from "./scan-cache";

export type { ArtifactMatch, ArtifactResult, ArtifactScanReport, ArtifactVerdict, ResolvedArtifacts } from "./artifact-gate";

/** artifact-gate.ts's projectDirOf, on this machine's disk. */
export function projectDirOf(stackFile: string): string {
  return gate.projectDirOf(localArtifactFiles, stackFile);
}

/** artifact-gate.ts's resolveArtifacts, on this machine's disk. */
export function resolveArtifacts(target: ArtifactsTarget, baseDir: string): gate.ResolvedArtifacts {
  return gate.resolveArtifacts(localArtifactFiles, target, baseDir);
}

/** artifact-gate.ts's scanArtifacts on this machine's disk, with the process's scan cache for the environment and warnings on stderr. */
export function scanArtifacts(opts: Omit<gate.ScanArtifactsOptions, "artifactFiles" | "cache" | "warn">): Promise<gate.ArtifactScanReport> {
  return gate.scanArtifacts({
    ...opts,
    artifactFiles: localArtifactFiles,
    cache: scanCacheFor(scanCacheSettingsFromEnv(process.env), localScanCacheStorage),
    warn: (line) => process.stderr.write(`stackwarden: warning: ${line}\n`),
  });
}
