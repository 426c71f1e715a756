import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ArtifactFiles } from "../../../src/domain/artifacts/artifact-files";
import { findProjectDir, projectDirOf, resolveArtifacts } from "../../../src/domain/artifacts/artifact-gate";
import { loadRuleSet, RuleSetError } from "../../../src/domain/artifacts/rule-set";
import { globMatches } from "../../../src/platform/files/path-glob";

/**
 * The artifact gate reads only through its port (ArtifactFiles): a project that exists in memory
 * alone, under a root no disk has, is resolved as the disk's would be. The disk's answers are
 * proven in artifact-gate.test.ts and test/platform/files.
 */
const ROOT = "/nowhere-on-disk/project";

/** A project held in memory: a path is a file when `files` names it, a directory when a file lies below it. */
function memoryFiles(files: Record<string, string>): ArtifactFiles {
  const paths = Object.keys(files);
  const isDir = (p: string) => paths.some((f) => f.startsWith(`${p}/`));
  const unused = (what: string) => () => {
    throw new Error(`resolving read ${what}`);
  };
  return {
    exists: (p) => p in files || isDir(p),
    kind: (p) => (p in files ? "file" : isDir(p) ? "directory" : "missing"),
    filesUnder: (dir, accept) => paths.filter((f) => f.startsWith(`${dir}/`) && accept(f.slice(f.lastIndexOf("/") + 1))).sort(),
    readText: (p) => {
      if (!(p in files)) throw Object.assign(new Error(`ENOENT: ${p}`), { code: "ENOENT" });
      return files[p];
    },
    expandGlobs: (base, patterns) => {
      const found = new Map<string, number>();
      const unmatched: string[] = [];
      patterns.forEach((pattern, i) => {
        const hits = paths.filter((f) => f.startsWith(`${base}/`) && globMatches(pattern, f.slice(base.length + 1)));
        for (const h of hits) if (!found.has(h)) found.set(h, i);
        if (hits.length === 0) unmatched.push(pattern);
      });
      const sorted = [...found.keys()].sort();
      return { files: sorted, patternIndex: sorted.map((f) => found.get(f)!), unmatched };
    },
    stamp: unused("a stamp"),
    digest: unused("a digest"),
    detectPacker: unused("a packer"),
    ensureEmptyFile: unused("an empty file"),
  };
}

const RULE = 'rule marker { strings: $a = "x" condition: $a }\n';
const project = memoryFiles({
  [`${ROOT}/Pulumi.yaml`]: "name: p\n",
  [`${ROOT}/stacks/Pulumi.dev.yaml`]: "config: {}\n",
  [`${ROOT}/rules/a.yar`]: RULE,
  [`${ROOT}/rules/notes.txt`]: "not a rule",
  [`${ROOT}/jobs/deploy.sh`]: "#!/bin/sh\n",
  [`${ROOT}/jobs/nightly/clean.sh`]: "#!/bin/sh\n",
});

describe("the artifact gate through its port", () => {
  it("finds the project directory by its Pulumi.yaml, from the stack file or any directory below it", () => {
    expect(projectDirOf(project, `${ROOT}/stacks/Pulumi.dev.yaml`)).toBe(ROOT);
    expect(findProjectDir(project, `${ROOT}/jobs/nightly`)).toBe(ROOT);
    expect(findProjectDir(memoryFiles({}), "/elsewhere/dir")).toBe("/elsewhere/dir");
  });

  it("resolves a stack's globs and rules: the files each glob matched, the globs that matched nothing, the rule set's digest", () => {
    const r = resolveArtifacts(project, { paths: ["jobs/**", "missing/*.bin"], rules: ["rules"] }, ROOT);
    expect(r.files).toEqual([`${ROOT}/jobs/deploy.sh`, `${ROOT}/jobs/nightly/clean.sh`]);
    expect(r.patternIndex).toEqual([0, 0]);
    expect(r.unmatchedPaths).toEqual(["missing/*.bin"]);
    const sha = createHash("sha256").update(RULE).digest("hex");
    expect(r.ruleSet.files).toEqual([{ path: "rules/a.yar", absolutePath: `${ROOT}/rules/a.yar`, sha256: sha, source: RULE }]);
    expect(r.ruleSet.digest).toBe(createHash("sha256").update(`rules/a.yar\0${sha}\n`).digest("hex"));
  });

  it("says which rule reference cannot be used, as the disk's would", () => {
    expect(() => loadRuleSet(project, ROOT, ["nope.yar"], "stackwarden:artifacts.rules")).toThrow(
      new RuleSetError(`stackwarden:artifacts.rules[0]: nope.yar does not exist (relative to ${ROOT})`),
    );
    expect(() => loadRuleSet(project, ROOT, ["jobs"])).toThrow("rules[0]: the folder jobs holds no .yar or .yara files");
  });
});
