import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { policyPackFor } from "../../../src/platform/programs/pulumi-engine";
import { PROJECT_ROOT } from "../../../src/platform/version";

// `apply --engine pulumi` gates `pulumi up` with a policy pack: the project's own policies/ in a clone
// of stackwarden, else the pack the installed package ships (a user's repository has none of its own).
describe("policyPackFor", () => {
  it("a project with its own policies/PulumiPolicy.yaml gets that pack", () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-pack-"));
    mkdirSync(join(dir, "policies"));
    writeFileSync(join(dir, "policies", "PulumiPolicy.yaml"), "runtime: nodejs\n");
    expect(policyPackFor(dir)).toEqual([join(dir, "policies")]);
  });

  it("a project without one (stackwarden installed from npm) gets the pack stackwarden ships", () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-pack-"));
    expect(policyPackFor(dir)).toEqual([join(PROJECT_ROOT, "policies")]);
  });
});
