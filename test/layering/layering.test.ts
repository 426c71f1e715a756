import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The layering rules (.dependency-cruiser.cjs) hold on the tree, and they are not vacuous: a fixture
 * tree with an upward import, I/O in a rule, the domain naming the client set, reading a file,
 * starting a process, opening a connection, asking the machine, naming a service client, the HTTP
 * layer's error or a state adapter, and a folder cycle is refused, each by its rule.
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
      ["domain-touches-no-files", /src\/domain\/artifacts\/reads-through-platform\.ts → src\/platform\/files\/local-files\.ts/],
      // The facts' temporary exclusion (until the `reads` branch is merged) is from the client and HTTP rules only.
      ["domain-touches-no-files", /src\/domain\/facts\/reads-a-file\.ts → fs/],
      ["domain-starts-no-processes", /src\/domain\/reconcile\/runs-git\.ts → child_process/],
      ["domain-starts-no-processes", /src\/domain\/reconcile\/runs-git\.ts → src\/platform\/programs\/git-checkout\.ts/],
      ["domain-opens-no-connections", /src\/domain\/probes\/calls-out\.ts → https/],
      ["domain-opens-no-connections", /src\/domain\/probes\/calls-out\.ts → \S*node_modules\/undici\//],
      ["domain-asks-no-machine", /src\/domain\/reconcile\/asks-hostname\.ts → os/],
      ["domain-names-no-service-client", /src\/domain\/reconcile\/names-client-type\.ts → src\/services\/geo\/client\.ts/],
      ["domain-knows-no-http", /src\/domain\/reconcile\/classifies-http\.ts → src\/platform\/http\/api-error\.ts/],
      ["domain-knows-no-state-adapter", /src\/domain\/state\/names-file-adapter\.ts → src\/platform\/state\/files\/file-lock-store\.ts/],
      ["no-folder-cycles-in-core", /src\/(interfaces\/cli|domain\/stack) →/],
      ["no-module-cycles", /src\/platform\/ping\.ts →/],
    ];
    for (const [rule, what] of expected) expect(r.out, rule).toMatch(new RegExp(`${rule}: ${what.source}`));
    // What the layers allow is not flagged: the client set building a client and starting the
    // emulator, a type-only import of a client above the domain, and the domain's pure helpers from
    // the platform's file and HTTP folders (path math, scrubbing text).
    expect(r.out).not.toMatch(/src\/clients\/client-set\.ts →/);
    expect(r.out).not.toMatch(/src\/usecases\/names-client-type\.ts →/);
    expect(r.out).not.toMatch(/→ src\/platform\/files\/path-glob\.ts/);
    expect(r.out).not.toMatch(/→ src\/platform\/http\/redaction\.ts/);
    // The fact kinds too: they read through the port the domain owns (fact-reads.ts), never a client.
    expect(r.out).toMatch(/domain-names-no-service-client: src\/domain\/facts\/names-service-client\.ts →/);
    // Every rule of the configuration is proven here.
    const config = require(CONFIG) as { forbidden: { name: string }[] };
    expect(config.forbidden.map((f) => f.name).sort()).toEqual([...new Set(expected.map(([rule]) => rule))].sort());
  });
});
