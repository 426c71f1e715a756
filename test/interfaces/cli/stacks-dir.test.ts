import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stacksAffected } from "../../../src/interfaces/gitops/changed-stacks";
import { listStacks } from "../../../src/interfaces/gitops/stack-listing";
import { runCliWith } from "./cli-harness";

// A project that keeps its stack files elsewhere than stacks/ names the folder with --stacks-dir,
// and `--stack NAME` then reads that folder only.

const SUB = "00000000-0000-0000-0000-000000000000";
const stack = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases: []\n`;

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-stacks-dir-"));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, ".."), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
  return dir;
}

describe("--stacks-dir", () => {
  it("`stacks` lists the named folder's stack files with their project-relative paths", async () => {
    const dir = project({ "infra/azure/Pulumi.prod.yaml": stack, "infra/azure/Pulumi.test.yaml": stack });
    const r = await runCliWith(["stacks", "--output", "json", "--stacks-dir", "infra/azure/"], { cwd: dir });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      include: [
        { stack: "prod", engine: "native", file: "infra/azure/Pulumi.prod.yaml" },
        { stack: "test", engine: "native", file: "infra/azure/Pulumi.test.yaml" },
      ],
    });
    expect(listStacks(dir, "./infra/azure").map((s) => s.file)).toEqual(["infra/azure/Pulumi.prod.yaml", "infra/azure/Pulumi.test.yaml"]);
  });

  it("`--stack NAME` reads NAME's file in that folder, and only there; with no such folder the error names it and the flag", async () => {
    const dir = project({ "infra/Pulumi.prod.yaml": "config: [unclosed" });
    const broken = await runCliWith(["plan", "--stack", "prod", "--stacks-dir", "infra"], { cwd: dir });
    expect(broken.code).toBe(1);
    expect(broken.err).toMatch(/^stackwarden: SW_CONFIG_INVALID: infra\/Pulumi\.prod\.yaml:1:\d+: invalid YAML/);
    // Not stackwarden's own example stack either, as a stack not found in the default stacks/ may be.
    const dev = await runCliWith(["plan", "--stack", "dev", "--stacks-dir", "infra"], { cwd: dir });
    expect(dev.err).toBe("stackwarden: SW_STACK_NOT_FOUND: infra/Pulumi.dev.yaml: stack file not found (stacks here: prod)");
    const none = await runCliWith(["stacks", "--stacks-dir", "nowhere"], { cwd: dir });
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/no nowhere\/ folder in .*--stacks-dir/);
  });

  it("goes with --stack, not with --config", async () => {
    const dir = project({ "infra/Pulumi.prod.yaml": stack });
    const r = await runCliWith(["plan", "--config", "infra/Pulumi.prod.yaml", "--stacks-dir", "infra"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/SW_USAGE.*--stacks-dir goes with --stack NAME, not with --config FILE/);
  });

  it("a removed stack file is told apart in the named folder", () => {
    const changes = { base: "abc", files: ["infra/Pulumi.gone.yaml", "stacks/Pulumi.other.yaml"] };
    expect(stacksAffected([], changes, undefined, "infra").removed).toEqual(["gone"]);
  });
});
