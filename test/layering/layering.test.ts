import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The layering rules (.dependency-cruiser.cjs) hold on the tree, and they are not vacuous: a fixture
 * tree with an upward import, I/O in a rule and a folder cycle is refused, each by its rule.
 */
const ROOT = join(__dirname, "../..");
const CONFIG = join(ROOT, ".dependency-cruiser.cjs");
const DEPCRUISE = join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

function cruise(cwd: string, paths: string[]) {
  const r = spawnSync(process.execPath, [DEPCRUISE, ...paths, "--config", CONFIG], { cwd, encoding: "utf8" });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("layering", () => {
  it("the project keeps its layers", () => {
    const r = cruise(ROOT, ["src", "providers", "policies", "stacks"]);
    expect(r.out).toContain("no dependency violations found");
    expect(r.status).toBe(0);
  });

  it("a fixture with an upward import, I/O in compliance and a folder cycle fails, naming each rule", () => {
    const r = cruise(join(ROOT, "test/fixtures/layering"), ["src", "providers"]);
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/core-never-imports-adapters: src\/domain\/compliance\/upward\.ts → providers\/adapter\.ts/);
    expect(r.out).toMatch(/compliance-is-pure: src\/domain\/compliance\/upward\.ts → fs/);
    expect(r.out).toMatch(/no-folder-cycles-in-core: src\/(interfaces\/cli|domain\/stack) →/);
  });
});
