import { scanCacheFor, type ScanCache } from "../domain/artifacts/scan-cache";
import { localScanCacheStorage } from "../platform/files/artifact-files";
import { scanCacheSettingsFromEnv } from "../platform/settings/scan-cache-settings";

export { localArtifactFiles } from "../platform/files/artifact-files";

/**
 * The artifact gate's ports on this machine, handed to the domain's gate (src/domain/artifacts):
 * its files are the disk's (localArtifactFiles), its results are kept in the process's scan cache
 * for the environment, and its warnings are lines on stderr.
 */

/**
 * The process's scan cache as the environment sets it (`STACKWARDEN_SCAN_CACHE`,
 * `STACKWARDEN_CACHE_DIR`, `STACKWARDEN_SCAN_CACHE_MAX_BYTES`; one instance per directory), or
 * undefined when it is off. A setting that cannot be read is a SettingsError naming its variable.
 */
export function localScanCache(env: NodeJS.ProcessEnv = process.env): ScanCache | undefined {
  return scanCacheFor(scanCacheSettingsFromEnv(env), localScanCacheStorage);
}

/** A warning of the gate (a damaged cache entry, a cache directory it cannot write), as a line on stderr. */
export function warnOnStderr(line: string): void {
  process.stderr.write(`stackwarden: warning: ${line}\n`);
}
