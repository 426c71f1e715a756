import { join } from "node:path";
import type { ArtifactFiles } from "./artifact-files";
import type { ArtifactScanService } from "./scan-service";

/**
 * Which engine a binary analysis service scans with, as far as it says: the one thing besides the
 * bytes and the rules that a cached result depends on. The service says it only in the
 * `yara_command` of an `/apply-yara-rules` answer. stackwarden's own service (the emulator and the
 * embedded engine) answers `@litko/yara-x 0.3.0: scanFile(upload) with rules[0..4]`: the engine and
 * its version. restful4up answers the command line it ran (`yara --print-strings ... /tmp/...`):
 * the program without a version, so the endpoint stands in for the version there (a cache entry of
 * one such service is never used for another).
 */

/** The engine identity in a `yara_command`, for cache keys: `@litko/yara-x 0.3.0`, or `yara at <endpoint>` when no version is given. */
export function engineIdentity(endpoint: string, yaraCommand: string): string {
  const said = yaraCommand.trim();
  const named = /^([^:]*?\d+\.\d+[^:\s]*):\s/.exec(said);
  if (named) return named[1].trim();
  const program = said.split(/\s+/)[0]?.split(/[\\/]/).pop() ?? "";
  return `${program || "an unnamed engine"} at ${endpoint}`;
}

/** The rule the probe sends: it compiles on every YARA and matches nothing. */
const PROBE_RULE = { name: "stackwarden-engine-probe", source: "rule stackwarden_engine_probe { condition: false }\n" };

/**
 * Asks the service which engine it runs: an `/apply-yara-rules` of an empty file with one rule that
 * matches nothing (a request of a few hundred bytes). `dir` holds the empty file (made through
 * `files`). Undefined when the service says nothing about its engine (then no cached result is
 * used); the request's failure (a CallFailure, after the client's retries) is thrown.
 */
export async function probeEngine(
  client: ArtifactScanService,
  files: Pick<ArtifactFiles, "ensureEmptyFile">,
  dir: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const file = join(dir, "engine-probe.bin");
  await files.ensureEmptyFile(file);
  const result = await client.applyYaraRules(file, [PROBE_RULE], { signal });
  const said = result.yaraCommands[0];
  return said ? engineIdentity(client.endpoint, said) : undefined;
}
