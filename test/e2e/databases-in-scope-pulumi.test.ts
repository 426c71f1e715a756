import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlTdeEnabled } from "../../src/domain/compliance/rules/sql-tde-enabled";
import { DEFAULT_ESTATE } from "../../src/emulator/default-estate";
import { loadSeedFile } from "../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../src/emulator/services";
import { TYPES } from "../helpers/carrier-types";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { PulumiProject, e2eCli, explain } from "../helpers/pulumi-cli";

// Issue 42, "the pack in `pulumi preview` reports the same discovered violation as `check`", with the
// real Pulumi CLI over the default estate: a stack whose scope finds rg-data/sql-prod-2/billing (no
// stack lists it, TDE off). The engine hands a resource policy the resource's inputs only, and a
// preview never creates the data source, so the pack reads the scope itself from the data source's
// inputs (databases-in-scope.ts). The steps run in order and share one stack.

const cli = e2eCli();
const STACK = "scoped";
const SUB = "00000000-0000-0000-0000-000000000000";
const SHARED = "11111111-1111-1111-1111-111111111111";
const billingId = `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-prod-2/databases/billing`;
const listed = (server: string, database: string) => ({ resourceGroup: "rg-data", server, database, transparentDataEncryption: "Enabled" });
const config = {
  "stackwarden:subscriptionId": SUB,
  "stackwarden:databases": [
    listed("sql-prod-1", "orders"),
    listed("sql-prod-1", "customers"),
    listed("sql-prod-1", "analytics"),
    listed("sql-prod-2", "inventory"),
    listed("sql-prod-2", "audit"),
  ],
  // The dev stack's scope, without remediation: the Pulumi program never writes a discovered database.
  "stackwarden:scope": {
    subscriptions: [SUB, SHARED],
    tags: { exclude: { lifecycle: "ephemeral" } },
    exemptions: [{ tag: "lifecycle=sandbox", reason: "sandbox data only", expires: "2099-12-31" }],
  },
};

interface CheckFinding {
  ruleId: string;
  verdict: string;
  resourceId: string;
  message: string;
  properties?: { discovered?: boolean };
}

describe.skipIf(!cli)("Pulumi CLI end to end: the databases of a stack's scope it does not list", () => {
  let t: TestEmulator;
  let project: PulumiProject;
  const writes = () => Object.entries(t.emu.stats.byRoute).filter(([k]) => !k.startsWith("GET ") && !k.includes("/metadata/"));

  /** The failures `check --stack` reports about databases it discovered: [rule, resource id, message]. */
  async function discoveredFailures(): Promise<string[][]> {
    const r = await project.stackwarden(["check", "--stack", STACK, "--output", "json"]);
    expect([0, 3], explain(r)).toContain(r.code);
    return (JSON.parse(r.stdout) as { findings: CheckFinding[] }).findings
      .filter((f) => f.verdict === "fail" && f.properties?.discovered)
      .map((f) => [f.ruleId, f.resourceId, f.message]);
  }

  beforeAll(async () => {
    t = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
    project = new PulumiProject({ cli: cli!, emulatorUrl: t.url });
    expect((await project.pulumi(["login", project.backendUrl])).code).toBe(0);
    expect((await project.pulumi(["stack", "init", STACK])).code).toBe(0);
    project.writeStackConfig(STACK, config);
    // Quoted, as in stacks/Pulumi.dev.yaml: Pulumi reads an unquoted YAML date as a timestamp.
    const file = project.stackFile(STACK);
    writeFileSync(file, readFileSync(file, "utf8").replace("expires: 2099-12-31", 'expires: "2099-12-31"'));
  });

  afterAll(async () => {
    project?.cleanup();
    await t?.close();
  });

  it("preview of the new stack fails naming billing, with check's rule and message; nothing is written", async () => {
    const fromCheck = await discoveredFailures();
    expect(fromCheck.map(([rule, id]) => [rule, id])).toEqual([[sqlTdeEnabled.id, billingId]]);

    const r = await project.pulumi(["preview", "--policy-pack", "policies"]);
    // 1: the exit docs/pulumi.md's "Pulumi by hand" promises for the dev stack's first preview.
    expect(r.code, explain(r)).toBe(1);
    // Reported on the scope's data source, the one resource that carries the discovered databases.
    const violations = [...r.stdout.matchAll(/\[(mandatory|advisory)\]\s+(\S+)\s+\(([^)]+)\)\s*\n\s*(.+)\n\s*(.+)/g)].map((m) => ({
      level: m[1],
      rule: m[2],
      on: m[3],
      text: `${m[4]} ${m[5]}`,
    }));
    expect(violations.filter((v) => v.level === "mandatory").map((v) => [v.rule, v.on])).toEqual([
      [sqlTdeEnabled.id, `${TYPES.databasesInScope}: databases-in-scope`],
    ]);
    const [, , message] = fromCheck[0];
    expect(r.stdout.replace(/\s+/g, " ")).toContain(message);
    expect(writes()).toEqual([]);
  });

  it("up runs the same resource policy before the data source's step: it fails naming billing, and billing is never written", async () => {
    const r = await project.pulumi(["up", "--yes", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).not.toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\[mandatory\\]\\s+${sqlTdeEnabled.id}\\s+\\(${TYPES.databasesInScope}: databases-in-scope\\)`));
    // The listed databases' TDE resources may have been written; billing was not: check still fails it.
    expect((await discoveredFailures()).map(([rule, id]) => [rule, id])).toEqual([[sqlTdeEnabled.id, billingId]]);
  });

  it("once billing is encrypted (emulator change), check discovers no failure and the preview passes", async () => {
    const change = await project.stackwarden([
      "emulator",
      "change",
      "--database",
      "rg-data/sql-prod-2/billing",
      "--tde",
      "Enabled",
      "--emulator",
      t.url,
    ]);
    expect(change.code, explain(change)).toBe(0);
    expect(await discoveredFailures()).toEqual([]);

    const r = await project.pulumi(["preview", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).not.toMatch(/\[mandatory\]/);
  });
});
