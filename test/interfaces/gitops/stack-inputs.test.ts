import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { globMatches } from "../../../src/platform/files/path-glob";
import { expandGlobs } from "../../../src/platform/files/glob-expansion";
import { isSharedInput } from "../../../src/interfaces/gitops/changed-stacks";
import { stackOwnInputs } from "../../../src/interfaces/gitops/stack-inputs";
import { listStacks } from "../../../src/interfaces/gitops/stack-listing";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { git } from "../../helpers/git";
import { runCliWith } from "../cli/cli-harness";

/**
 * A stack's own inputs besides its file: the artifacts and rules of its `stackwarden:artifacts`.
 * `stacks --changed-since` lists a stack whose job script changed, so its gate runs again.
 */

function write(dir: string, files: Record<string, string>): void {
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, ".."), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
}

const SUB = "00000000-0000-0000-0000-000000000000";

/** A project (Pulumi.yaml plus `files`) in a fresh git repository, committed on `main`. */
function committedProject(prefix: string, files: Record<string, string>): string {
  const top = mkdtempSync(join(tmpdir(), prefix));
  write(top, { "Pulumi.yaml": "name: stackwarden\n", ...files });
  git(top, "init", "-q", "-b", "main");
  git(top, "add", "-A");
  git(top, "commit", "-q", "-m", "base");
  return top;
}

/** `stacks --changed-since main` in the project: each stack listed, with the changed files it names. */
async function changedSinceMain(top: string): Promise<[string, string[]][]> {
  const r = await runCliWith(["stacks", "--output", "json", "--changed-since", "main"], { cwd: top });
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { include: { stack: string; changedFiles: string[] }[] }).include.map((s) => [s.stack, s.changedFiles]);
}

describe("globMatches: the globs of stackwarden:artifacts.paths on paths that need not exist", () => {
  it.each([
    ["jobs/**/*.py", "jobs/a.py", true],
    ["jobs/**/*.py", "jobs/x/y/a.py", true],
    ["jobs/**/*.py", "jobs/.hidden/a.py", false],
    ["jobs/**/*.py", "jobs/a.sh", false],
    ["jobs/**", "jobs/x/a.sh", true],
    ["jobs/**", "jobs", false],
    ["tools/bin/*", "tools/bin/agent", true],
    ["tools/bin/*", "tools/bin/.secret", false],
    ["tools/bin/*", "tools/bin/x/agent", false],
    ["{jobs,tools}/*.{sh,py}", "tools/a.py", true],
    ["./jobs/a?.sh", "jobs/ab.sh", true],
    ["jobs/[ab].sh", "jobs/c.sh", false],
  ])("%s ~ %s: %s", (pattern, path, expected) => {
    expect(globMatches(pattern, path)).toBe(expected);
  });

  it("agrees with the walk over a real tree", () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-glob-"));
    try {
      const files = [
        "jobs/a.py",
        "jobs/x/b.py",
        "jobs/x/.h/c.py",
        "jobs/.d/e.py",
        "jobs/x/y/f.sh",
        "tools/bin/agent",
        "tools/bin/.k",
        "top.py",
      ];
      write(dir, Object.fromEntries(files.map((f) => [f, "x"])));
      for (const pattern of ["jobs/**/*.py", "**/*.py", "jobs/**", "tools/*/*", "*.py", "jobs/*/{b,f}.*", "**"]) {
        const walked = expandGlobs(dir, [pattern]).files.map((f) => f.slice(dir.length + 1));
        expect(files.filter((f) => globMatches(pattern, f)).sort(), pattern).toEqual(walked);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("stackOwnInputs", () => {
  it("the artifacts' globs and the rules (files or folders) of the stack; a stack without artifacts or a broken file has none", () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-inputs-"));
    try {
      write(dir, {
        "stacks/Pulumi.a.yaml": "config:\n  stackwarden:artifacts:\n    paths: [jobs/**/*.py]\n    rules: [rules/, extra/one.yar]\n",
        "stacks/Pulumi.b.yaml": "config:\n  stackwarden:subscriptionId: x\n",
        "stacks/Pulumi.c.yaml": "config: [unclosed\n",
      });
      const a = stackOwnInputs(dir, "stacks/Pulumi.a.yaml");
      expect(["jobs/t/train.py", "rules/x.yar", "extra/one.yar", "extra/two.yar", "rulesets/x.yar", "jobs/t/run.sh"].map(a)).toEqual([
        true,
        true,
        true,
        false,
        false,
        false,
      ]);
      expect(stackOwnInputs(dir, "stacks/Pulumi.b.yaml")("jobs/t/train.py")).toBe(false);
      expect(stackOwnInputs(dir, "stacks/Pulumi.c.yaml")("jobs/t/train.py")).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("stacks --changed-since and artifacts", () => {
  it("a changed job script or rule file lists the stacks that ship or apply it, naming the file", async () => {
    const top = committedProject("stackwarden-stacks-artifacts-", {
      "stacks/Pulumi.ml.yaml": `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:artifacts:\n    paths: [jobs/**/*.py]\n    rules: [rules]\n`,
      "stacks/Pulumi.db.yaml": `config:\n  stackwarden:subscriptionId: ${SUB}\n`,
      "jobs/train.py": "print('v1')\n",
      "rules/a.yar": "rule a { condition: false }\n",
      "docs/notes.md": "notes\n",
    });
    try {
      write(top, { "jobs/train.py": "print('v2')\n", "docs/notes.md": "more\n" });
      const first = await runCliWith(["stacks", "--output", "json", "--changed-since", "main"], { cwd: top });
      expect(first.code).toBe(0);
      expect(JSON.parse(first.out)).toEqual({
        include: [{ stack: "ml", file: "stacks/Pulumi.ml.yaml", engine: "native", changedFiles: ["jobs/train.py"], changedFileCount: 1 }],
      });
      git(top, "checkout", "-q", "--", ".");
      write(top, { "rules/b.yar": "rule b { condition: false }\n" });
      expect(await changedSinceMain(top)).toEqual([["ml", ["rules/b.yar"]]]);
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });
});

describe("a stack's own folder (stacks/<stack>/)", () => {
  it("this repository: the dev stack's job scripts and signature rules are its own inputs, not every stack's; policies/ holds only the pack, an input of every stack", () => {
    const dev = stackOwnInputs(PROJECT_ROOT, "stacks/Pulumi.dev.yaml");
    for (const f of ["stacks/dev/jobs/resnet50/train.py", "stacks/dev/jobs/resnet50/submit.sh", "stacks/dev/signatures/test-markers.yar"]) {
      expect(dev(f), f).toBe(true);
      expect(isSharedInput(f), f).toBe(false);
    }
    expect(isSharedInput("policies/index.ts")).toBe(true);
    // The folder beside the stack files is no stack of its own.
    expect(listStacks(PROJECT_ROOT).map((s) => s.stack)).toEqual(["dev"]);
  });

  it("stacks --changed-since: a changed signature rule in stacks/dev/ lists only the stack that names it; a change to the pack lists every stack", async () => {
    const top = committedProject("stackwarden-stack-folder-", {
      "stacks/Pulumi.dev.yaml": `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:artifacts:\n    paths: [stacks/dev/jobs/**/*.py]\n    rules: [stacks/dev/signatures]\n`,
      "stacks/Pulumi.prod.yaml": `config:\n  stackwarden:subscriptionId: ${SUB}\n`,
      "stacks/dev/jobs/resnet50/train.py": "print('v1')\n",
      "stacks/dev/signatures/a.yar": "rule a { condition: false }\n",
      "policies/index.ts": "// the pack\n",
    });
    try {
      write(top, { "stacks/dev/signatures/a.yar": "rule a { condition: true }\n" });
      expect(await changedSinceMain(top)).toEqual([["dev", ["stacks/dev/signatures/a.yar"]]]);
      git(top, "checkout", "-q", "--", ".");
      write(top, { "policies/index.ts": "// the pack, changed\n" });
      expect(await changedSinceMain(top)).toEqual([
        ["dev", ["policies/index.ts"]],
        ["prod", ["policies/index.ts"]],
      ]);
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });
});
