import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { starterFiles } from "../../../src/interfaces/gitops/starter-files";
import { stackwardenRepository } from "../../../src/interfaces/gitops/stackwarden-repository";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli, runCliWith } from "./cli-harness";

// `stackwarden init` in an empty directory: a starter stack that `check` runs against the emulator's
// example estate at once, the three workflows calling stackwarden's by reference (actionlint clean),
// .stackwarden/ in .gitignore; a second init refuses (SW_FILE_EXISTS, nothing written), --force overwrites.

const empty = () => mkdtempSync(join(tmpdir(), "stackwarden-init-"));
const WRITTEN = Object.keys(starterFiles("dev", stackwardenRepository()));

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ seed: seedFromYaml(readFileSync(join(PROJECT_ROOT, "stacks", "dev.estate.yaml"), "utf8")) });
});
afterAll(async () => {
  await emu?.close();
});

describe("stackwarden init", () => {
  it("in an empty directory writes the starter stack, the workflows and the .gitignore line; check then judges the stack against the emulator (exit 3, not 1)", async () => {
    const dir = empty();
    const r = await runCliWith(["init"], { cwd: dir });
    expect(r.code, r.err).toBe(0);
    for (const f of WRITTEN) expect(r.out).toContain(`wrote ${f}`);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(".stackwarden/\n");
    const stack = parse(readFileSync(join(dir, "stacks", "Pulumi.dev.yaml"), "utf8")) as { config: Record<string, unknown> };
    expect(stack.config["stackwarden:engine"]).toBe("native");

    const check = await runCli(["check", "--stack", "dev", "--output", "json"], emu.url, dir);
    expect(check.code, check.err).toBe(3); // the example estate's orders is unencrypted: the stack's first database
    const report = JSON.parse(check.out) as { findings: { ruleId: string; verdict: string; level: string; label: string }[] };
    expect(report.findings.filter((f) => f.verdict === "fail" && f.level === "mandatory").map((f) => `${f.ruleId} ${f.label}`)).toEqual([
      "sql-tde-enabled rg-data/sql-prod-1/orders",
    ]);
    const stacks = await runCliWith(["stacks", "--output", "json"], { cwd: dir });
    expect(JSON.parse(stacks.out)).toEqual({ include: [{ stack: "dev", engine: "native", file: "stacks/Pulumi.dev.yaml" }] });
  });

  it("a second init refuses with SW_FILE_EXISTS naming every file, and writes nothing", async () => {
    const dir = empty();
    expect((await runCliWith(["init"], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, "stacks", "Pulumi.dev.yaml"), "config: {} # mine\n");
    const again = await runCliWith(["init"], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.out).toBe("");
    expect(again.err).toBe(`stackwarden: SW_FILE_EXISTS: ${WRITTEN.join(", ")} exist already: nothing written; pass --force to overwrite`);
    expect(readFileSync(join(dir, "stacks", "Pulumi.dev.yaml"), "utf8")).toBe("config: {} # mine\n");
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(".stackwarden/\n");
  });

  it("one file of its own is enough to refuse, and no other file is written", async () => {
    const dir = empty();
    mkdirSync(join(dir, ".github", "workflows"), { recursive: true });
    writeFileSync(join(dir, ".github", "workflows", "stackwarden-merge.yml"), "name: mine\n");
    const r = await runCliWith(["init"], { cwd: dir });
    expect(r.err).toBe(
      "stackwarden: SW_FILE_EXISTS: .github/workflows/stackwarden-merge.yml exists already: nothing written; pass --force to overwrite",
    );
    expect(existsSync(join(dir, "stacks"))).toBe(false);
    expect(existsSync(join(dir, ".gitignore"))).toBe(false);
  });

  it("--force overwrites; a .gitignore of the user's keeps its lines and gets the state line once", async () => {
    const dir = empty();
    writeFileSync(join(dir, ".gitignore"), "node_modules");
    expect((await runCliWith(["init", "--stack", "prod"], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, "stacks", "Pulumi.prod.yaml"), "config: {}\n");
    const forced = await runCliWith(["init", "--stack", "prod", "--force"], { cwd: dir });
    expect(forced.code, forced.err).toBe(0);
    expect(forced.out).toContain("overwrote stacks/Pulumi.prod.yaml");
    expect(forced.out).not.toContain(".gitignore");
    expect(readFileSync(join(dir, "stacks", "Pulumi.prod.yaml"), "utf8")).toContain("stackwarden:databases:");
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("node_modules\n.stackwarden/\n");
  });

  it("a stack name that cannot be a file name is SW_USAGE; --help says what it writes and how it refuses", async () => {
    const dir = empty();
    const bad = await runCliWith(["init", "--stack", "../x"], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/SW_USAGE: --stack "\.\.\/x": a stack name may only hold/);
    const help = await runCliWith(["init", "--help"], { cwd: dir });
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/--force\s+overwrite files that exist/);
    expect(help.out).toContain("SW_FILE_EXISTS");
  });

  it("the workflows call stackwarden's reusable workflows at this version, and actionlint finds nothing in them", async () => {
    const dir = empty();
    await runCliWith(["init"], { cwd: dir });
    const { repository, ref } = stackwardenRepository();
    for (const [f, name] of [
      ["stackwarden-pull-request.yml", "pull-request.yml"],
      ["stackwarden-merge.yml", "merge.yml"],
      ["stackwarden-drift.yml", "drift.yml"],
    ]) {
      const wf = parse(readFileSync(join(dir, ".github", "workflows", f), "utf8")) as { jobs: Record<string, { uses: string }> };
      expect(wf.jobs.stackwarden.uses).toBe(`${repository}/.github/workflows/${name}@${ref}`);
    }
    const files = WRITTEN.filter((f) => f.startsWith(".github/")).map((f) => join(dir, f));
    const lint = spawnSync("bash", [join(PROJECT_ROOT, "scripts", "actionlint.sh"), ...files], { encoding: "utf8" });
    expect(lint.status, `${lint.stdout}${lint.stderr}`).toBe(0);
    expect(lint.stdout).toBe("");
    if (/SKIPPED/.test(lint.stderr)) console.log(lint.stderr.trim());
  }, 120_000);
});
