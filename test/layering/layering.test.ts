import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The layering rules (.dependency-cruiser.cjs) hold on the tree, and they are not vacuous: a fixture
 * tree with an upward import, I/O in a rule, the domain naming the client set and a folder cycle is
 * refused, each by its rule.
 */
const ROOT = join(__dirname, "../..");
const CONFIG = join(ROOT, ".dependency-cruiser.cjs");
// The `depcruise` bin link npm makes, not a file inside the package (18.x renamed its bin script).
const DEPCRUISE = join(ROOT, "node_modules/.bin/depcruise");

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

  it("every rule bites: a fixture tree breaking each one is refused, naming the rule and the import", () => {
    const r = cruise(join(ROOT, "test/fixtures/layering"), ["src", "providers"]);
    expect(r.status).not.toBe(0);
    const expected: [string, RegExp][] = [
      ["core-never-imports-adapters", /src\/domain\/compliance\/upward\.ts → providers\/adapter\.ts/],
      ["platform-is-the-bottom", /src\/platform\/http\/upward\.ts → src\/services\/geo\/client\.ts/],
      ["services-sit-on-the-platform", /src\/services\/geo\/reaches-up\.ts → src\/domain\/stack\/loader\.ts/],
      ["clients-below-the-domain", /src\/clients\/knows-domain\.ts → src\/domain\/stack\/loader\.ts/],
      ["domain-never-imports-clients", /src\/domain\/facts\/names-client-set\.ts → src\/clients\/client-set\.ts/],
      ["domain-below-use-cases", /src\/domain\/reconcile\/calls-use-case\.ts → src\/usecases\/check\.ts/],
      ["use-cases-below-interfaces", /src\/usecases\/check\.ts → src\/interfaces\/cli\/render\.ts/],
      ["emulator-apart", /src\/emulator\/reaches-domain\.ts → src\/domain\/stack\/loader\.ts/],
      ["only-the-client-set-starts-the-emulator", /src\/usecases\/start\.ts → src\/emulator\/server\.ts/],
      ["one-place-builds-clients", /src\/domain\/reconcile\/builds-client\.ts → src\/services\/geo\/client\.ts/],
      ["commands-never-import-commands", /src\/interfaces\/cli\/commands\/a-command\.ts → src\/interfaces\/cli\/commands\/b-command\.ts/],
      ["compliance-is-pure", /src\/domain\/compliance\/upward\.ts → fs/],
      ["domain-touches-no-files", /src\/domain\/audit\/writes-its-file\.ts → fs/],
      ["no-folder-cycles-in-core", /src\/(interfaces\/cli|domain\/stack) →/],
      ["no-module-cycles", /src\/platform\/ping\.ts →/],
    ];
    for (const [rule, what] of expected) expect(r.out, rule).toMatch(new RegExp(`${rule}: ${what.source}`));
    // What the layers allow is not flagged: the client set building a client and starting the
    // emulator, and a type-only import of a client.
    expect(r.out).not.toMatch(/src\/clients\/client-set\.ts →/);
    expect(r.out).not.toMatch(/names-client-type\.ts →/);
    // Every rule of the configuration is proven here.
    const config = require(CONFIG) as { forbidden: { name: string }[] };
    expect(config.forbidden.map((f) => f.name).sort()).toEqual(expected.map(([rule]) => rule).sort());
  });
});
