import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSharedInput, stacksAffected } from "../../../src/interfaces/gitops/changed-stacks";
import { listStacks } from "../../../src/interfaces/gitops/stack-listing";
import { git } from "../../helpers/git";
import { runCliWith } from "../cli/cli-harness";

/** `stackwarden stacks`: listing, --changed-since against real git repositories, the matrix JSON, errors. */
const SUB = "00000000-0000-0000-0000-000000000000";
const stack = (extra = "") => `config:\n  stackwarden:subscriptionId: ${SUB}\n${extra}`;

/** The CLI in `cwd`, with an empty environment. */
const cli = (cwd: string, ...argv: string[]) => runCliWith(argv, { cwd });

function write(dir: string, files: Record<string, string>): void {
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, ".."), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
}

/** A git repository whose project (Pulumi.yaml, stacks/) lives in `sub` (or at the root). */
function repo(sub = ""): { top: string; project: string; base: string } {
  const top = mkdtempSync(join(tmpdir(), "stackwarden-stacks-"));
  const project = join(top, sub);
  git(top, "init", "-q", "-b", "main");
  write(project, {
    "Pulumi.yaml": "name: stackwarden\n",
    "stacks/Pulumi.prod.yaml": stack(),
    "stacks/Pulumi.staging.yaml": stack("  stackwarden:engine: pulumi\n"),
    "stacks/Pulumi.old.yaml": stack(),
    "stacks/index.ts": "// program\n",
    "docs/notes.md": "notes\n",
  });
  if (sub) write(top, { "other/README.md": "not the project\n" });
  git(top, "add", "-A");
  git(top, "commit", "-q", "-m", "base");
  return { top, project, base: git(top, "rev-parse", "HEAD") };
}

function commitAll(top: string, message: string): void {
  git(top, "add", "-A");
  git(top, "commit", "-q", "-m", message);
}

describe("listing", () => {
  it("lists stacks/Pulumi.<name>.yaml sorted, with their engine; other files are not stacks; a broken file is still listed, with its problem", () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-list-"));
    write(dir, {
      "stacks/Pulumi.b.yaml": stack("  stackwarden:engine: pulumi\n"),
      "stacks/Pulumi.a.yaml": "config: [unclosed",
      "stacks/Pulumi.c.yaml": stack("  stackwarden:engine: bogus\n"),
      "stacks/dev.estate.yaml": "sql: {}\n",
      "stacks/index.ts": "",
      "stacks/Pulumi.bad name.yaml": stack(),
    });
    mkdirSync(join(dir, "stacks", "Pulumi.dir.yaml"));
    expect(listStacks(dir)).toEqual([
      {
        stack: "a",
        file: "stacks/Pulumi.a.yaml",
        engine: "native",
        problem: expect.stringMatching(/^stacks\/Pulumi\.a\.yaml:1:\d+: invalid YAML: /),
      },
      { stack: "b", file: "stacks/Pulumi.b.yaml", engine: "pulumi" },
      {
        stack: "c",
        file: "stacks/Pulumi.c.yaml",
        engine: "native",
        problem: "stacks/Pulumi.c.yaml:3:23: stackwarden:engine must be native or pulumi",
      },
    ]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints a table, or a GitHub Actions matrix whose only key is include", async () => {
    const { project } = repo();
    const t = await cli(project, "stacks");
    expect(t.code).toBe(0);
    expect(t.out.split("\n")).toEqual([
      "STACK    ENGINE  FILE",
      "old      native  stacks/Pulumi.old.yaml",
      "prod     native  stacks/Pulumi.prod.yaml",
      "staging  pulumi  stacks/Pulumi.staging.yaml",
    ]);
    const j = await cli(project, "stacks", "--output", "json");
    const doc = JSON.parse(j.out) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(["include"]);
    expect(doc.include).toEqual([
      { stack: "old", file: "stacks/Pulumi.old.yaml", engine: "native" },
      { stack: "prod", file: "stacks/Pulumi.prod.yaml", engine: "native" },
      { stack: "staging", file: "stacks/Pulumi.staging.yaml", engine: "pulumi" },
    ]);
  });

  it("outside a project: one line saying where to run it, exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-empty-"));
    const r = await cli(dir, "stacks");
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `stackwarden: SW_USAGE: no stacks/ folder in ${dir}: run in the project directory (where your stacks/ folder is), name the folder with --stacks-dir, or start one with \`stackwarden init\``,
    );
  });

  it("--help describes the flags; a bad --output is one line", async () => {
    const h = await cli(tmpdir(), "stacks", "--help");
    expect(h.code).toBe(0);
    expect(h.out).toContain("--changed-since <ref>");
    expect(h.out).toContain("usable as strategy.matrix");
    const bad = await cli(tmpdir(), "stacks", "--output", "yaml");
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(
      /^stackwarden stacks: SW_USAGE: option '--output <format>' argument 'yaml' is invalid\. expected one of table, json, got "yaml"/,
    );
  });
});

describe("--changed-since", () => {
  it("lists only the stacks whose file changed, from the merge base, and names the files", async () => {
    const { top, project, base } = repo();
    git(top, "checkout", "-q", "-b", "feature");
    write(project, { "stacks/Pulumi.prod.yaml": stack("  stackwarden:databases: []\n"), "docs/notes.md": "more\n" });
    commitAll(top, "prod");
    // main moves on after the branch: its changes are not the branch's.
    git(top, "checkout", "-q", "main");
    write(project, { "stacks/Pulumi.staging.yaml": stack() });
    commitAll(top, "staging on main");
    git(top, "checkout", "-q", "feature");

    const r = await cli(project, "stacks", "--output", "json", "--changed-since", "main");
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      include: [
        {
          stack: "prod",
          file: "stacks/Pulumi.prod.yaml",
          engine: "native",
          changedFiles: ["stacks/Pulumi.prod.yaml"],
          changedFileCount: 1,
        },
      ],
    });
    const t = await cli(project, "stacks", "--changed-since", base);
    expect(t.out).toContain("CHANGED SINCE");
    expect(t.out).toMatch(/prod\s+native\s+stacks\/Pulumi\.prod\.yaml\s+stacks\/Pulumi\.prod\.yaml$/m);
  });

  it("a change to a file every stack depends on lists every stack; uncommitted and untracked edits count", async () => {
    const { project, base } = repo();
    write(project, { "stacks/index.ts": "// changed program\n", "stacks/Pulumi.new.yaml": stack() });
    const r = await cli(project, "stacks", "--output", "json", "--changed-since", base);
    const include = (JSON.parse(r.out) as { include: { stack: string; changedFiles: string[] }[] }).include;
    expect(include.map((s) => s.stack)).toEqual(["new", "old", "prod", "staging"]);
    expect(include[0].changedFiles).toEqual(["stacks/Pulumi.new.yaml", "stacks/index.ts"]);
    expect(include[2].changedFiles).toEqual(["stacks/index.ts"]);
  });

  it("a removed stack is named on stderr and not listed; nothing changed gives an empty matrix", async () => {
    const { top, project, base } = repo();
    rmSync(join(project, "stacks", "Pulumi.old.yaml"));
    commitAll(top, "drop old");
    const r = await cli(project, "stacks", "--output", "json", "--changed-since", base);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ include: [] });
    expect(r.err).toBe(
      `stackwarden stacks: stack old was removed since ${base}; removing a stack file changes nothing live, so it is not listed`,
    );
    const t = await cli(project, "stacks", "--changed-since", "HEAD");
    expect(t.out).toBe("No stack changed since HEAD.");
  });

  it("works for a project in a subfolder of the repository: paths are the project's", async () => {
    const { top, project, base } = repo("infra");
    write(top, { "other/README.md": "changed outside the project\n", "package.json": "{}\n" });
    write(project, { "package.json": "{}\n" });
    const r = await cli(project, "stacks", "--output", "json", "--changed-since", base);
    const include = (JSON.parse(r.out) as { include: { changedFiles: string[] }[] }).include;
    expect(include).toHaveLength(3);
    expect(include[0].changedFiles).toEqual(["package.json"]); // the project's, not the repository root's
  });

  it("an all-zero SHA (a push that created the branch) lists every stack and says why", async () => {
    const { project } = repo();
    const zero = "0".repeat(40);
    const r = await cli(project, "stacks", "--output", "json", "--changed-since", zero);
    expect((JSON.parse(r.out) as { include: unknown[] }).include).toHaveLength(3);
    expect(r.err).toBe(`stackwarden stacks: ${zero} is no commit (a push that created the branch): every stack counts as changed`);
  });

  it("an unknown ref, an empty ref and a folder outside git are one-line errors that say what to do", async () => {
    const { project, top } = repo();
    const unknown = await cli(project, "stacks", "--changed-since", "origin/main");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe(
      `stackwarden: SW_USAGE: unknown git ref "origin/main" in ${top}: fetch it first (in GitHub Actions, actions/checkout with fetch-depth: 0) or name an existing commit`,
    );
    expect((await cli(project, "stacks", "--changed-since", " ")).err).toBe(
      "stackwarden: SW_USAGE: --changed-since needs a git ref (a branch, tag or commit)",
    );
    const loose = mkdtempSync(join(tmpdir(), "stackwarden-nogit-"));
    write(loose, { "stacks/Pulumi.x.yaml": stack() });
    const nogit = await cli(loose, "stacks", "--changed-since", "main");
    expect(nogit.code).toBe(1);
    expect(nogit.err).toMatch(
      new RegExp(`^stackwarden: SW_USAGE: ${loose} is not in a git repository \\(.*\\): --changed-since needs the project's git history$`),
    );
  });
});

describe("stacksAffected and the shared inputs", () => {
  it("counts every changed shared input but names at most ten", () => {
    const files = Array.from({ length: 12 }, (_, i) => `src/f${String(i).padStart(2, "0")}.ts`);
    const { changed } = stacksAffected([{ stack: "a", file: "stacks/Pulumi.a.yaml", engine: "native" }], { base: "x", files });
    expect(changed[0].changedFileCount).toBe(12);
    expect(changed[0].changedFiles).toHaveLength(10);
  });

  it.each([
    ["Pulumi.yaml", true],
    ["package-lock.json", true],
    ["stacks/index.ts", true],
    ["policies/index.ts", true],
    ["src/interfaces/cli/main.ts", true],
    ["stacks/Pulumi.dev.yaml", false],
    ["stacks/dev.estate.yaml", false],
    ["docs/scale-out.md", false],
    [".github/workflows/drift.yml", false],
    ["test/x.test.ts", false],
  ])("%s is a shared input: %s", (path, shared) => {
    expect(isSharedInput(path)).toBe(shared);
  });
});
