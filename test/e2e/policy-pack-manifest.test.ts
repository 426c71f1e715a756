import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pulumi-cli";

// The Pulumi CLI loads the pack from policies/: PolicyPack reads its version from the pack
// directory's package.json, and run-policy-pack requires the directory (its package.json main).
// These hold without a CLI, so they run in every `npm test`.
describe("policies/package.json (what the Pulumi CLI loads)", () => {
  const pack = JSON.parse(readFileSync(join(REPO_ROOT, "policies", "package.json"), "utf8")) as { version?: string; main?: string };
  const root = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };

  it("carries the project's version", () => {
    expect(pack.version).toBe(root.version);
  });

  it("main is the compiled pack (npm run build), which constructs the PolicyPack", () => {
    const main = resolve(REPO_ROOT, "policies", pack.main ?? "index.js");
    expect(main).toBe(join(REPO_ROOT, "dist", "policies", "index.js"));
    expect(existsSync(main), `${main} is missing: run npm run build`).toBe(true);
    expect(readFileSync(main, "utf8")).toMatch(/PolicyPack\)?\(\s*"stackwarden"/);
  });
});
