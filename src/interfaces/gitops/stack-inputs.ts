import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { globMatches } from "../../platform/files/path-glob";

/**
 * Files that are inputs of one stack besides its stack file: the artifacts it ships and the rule
 * files they are scanned with (`stackwarden:artifacts`), so that a pull request that changes a job
 * script re-runs that stack's gate. Read leniently, like the listing: a broken file has no extra inputs
 * (its own job reports it).
 */
export function stackOwnInputs(projectDir: string, stackFile: string): (path: string) => boolean {
  let artifacts: { paths?: unknown; rules?: unknown } | undefined;
  try {
    const doc = parse(readFileSync(join(projectDir, stackFile), "utf8")) as { config?: Record<string, unknown> } | null;
    artifacts = doc?.config?.["stackwarden:artifacts"] as typeof artifacts;
  } catch {
    return () => false;
  }
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x.length > 0) : []);
  const paths = strings(artifacts?.paths);
  const rules = strings(artifacts?.rules).map((r) => r.replace(/^\.\//, "").replace(/\/+$/, ""));
  return (path) => paths.some((g) => globMatches(g, path)) || rules.some((r) => path === r || path.startsWith(`${r}/`));
}
