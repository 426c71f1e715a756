import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { RuleSource } from "../../services/binary-analysis/types";
import { StackwardenError } from "../../platform/errors/stackwarden-error";
import { displayPath } from "../../platform/files/path-glob";
import type { ArtifactFiles } from "./artifact-files";

/** One rule file of a rule set. */
export interface RuleFile {
  /** As reports show it (relative to the base directory). */
  path: string;
  absolutePath: string;
  sha256: string;
  source: string;
}

/** The signature rules a gate applies, and one digest that changes whenever any of them does. */
export interface RuleSet {
  files: RuleFile[];
  /** sha-256 over each file's shown path and content hash, in order: the rule set's identity. */
  digest: string;
}

/** A rule reference that cannot be used: the message names it and says what to do (`SW_CONFIG_INVALID`). */
export class RuleSetError extends StackwardenError {
  constructor(message: string) {
    super("SW_CONFIG_INVALID", message);
    this.name = "RuleSetError";
  }
}

const RULE_FILE = /\.(yar|yara)$/i;

/**
 * Loads rule files from `.yar`/`.yara` files and folders of them (searched recursively, sorted),
 * relative to `base`, read through `files`. A path that does not exist, a folder without rule
 * files, or an empty list is an error.
 */
export function loadRuleSet(
  files: Pick<ArtifactFiles, "kind" | "filesUnder" | "readText">,
  base: string,
  refs: readonly string[],
  where = "rules",
): RuleSet {
  if (refs.length === 0) throw new RuleSetError(`${where}: no rule files given; name .yar files or folders of them`);
  const seen = new Set<string>();
  const loaded: RuleFile[] = [];
  refs.forEach((ref, i) => {
    const abs = resolve(base, ref);
    const kind = files.kind(abs);
    if (kind === "missing") throw new RuleSetError(`${where}[${i}]: ${ref} does not exist (relative to ${base})`);
    const paths = kind === "directory" ? files.filesUnder(abs, (name) => RULE_FILE.test(name)) : [abs];
    if (paths.length === 0) throw new RuleSetError(`${where}[${i}]: the folder ${ref} holds no .yar or .yara files`);
    for (const p of paths) {
      if (seen.has(p)) continue;
      seen.add(p);
      let source: string;
      try {
        source = files.readText(p);
      } catch (e) {
        throw new RuleSetError(
          `${where}[${i}]: cannot read ${displayPath(base, p)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        );
      }
      loaded.push({ path: displayPath(base, p), absolutePath: p, sha256: createHash("sha256").update(source).digest("hex"), source });
    }
  });
  const h = createHash("sha256");
  for (const f of loaded) h.update(`${f.path}\0${f.sha256}\n`);
  return { files: loaded, digest: h.digest("hex") };
}

/** The rule set as the client sends it: one rule source per file, named by its shown path. */
export function ruleSources(set: RuleSet): RuleSource[] {
  return set.files.map((f) => ({ name: f.path, source: f.source }));
}
