import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { PulumiProject, e2eCli, explain } from "../helpers/pulumi-cli";

// The data-residency policy with the real Pulumi CLI against the emulator: the program registers
// the TDE resource (whose outputs carry its configuration's location), the Batch AI data sources
// and the Residency resource; the pack, started by the engine, inherits its environment
// (STACKWARDEN_GEOCODING_ENDPOINT) and places them through the emulator's geocoding service.
// `stackwarden check` on the same stack file gives the same violations. The steps run in order.

const cli = e2eCli();

const SUB = "00000000-0000-0000-0000-000000000000";
const STACK = "residency";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-res
      resourceGroup: rg-res
      location: West Europe
      databases: [{ name: orders, transparentDataEncryption: Enabled }]
batchai:
  subscriptionId: ${SUB}
  workspaces:
    - resourceGroup: rg-res-ml
      name: ws-eu
      location: westeurope
      clusters: [{ name: cpu-d4, vmSize: STANDARD_D4_V2 }]
geocoding:
  streets:
    - { name: Dam, city: Amsterdam, countryCode: NL, lat: 52.3731, lng: 4.89322, zipCodes: [1012 JS], houseNumbers: [{ number: "1", lat: 52.37299, lng: 4.8941 }] }
`;

const config = (allowedCountries: string[]) => ({
  "stackwarden:subscriptionId": SUB,
  "stackwarden:databases": [{ resourceGroup: "rg-res", server: "sql-res", database: "orders", transparentDataEncryption: "Enabled" }],
  "stackwarden:batch": {
    resourceGroups: ["rg-res-ml"],
    workspaces: [{ resourceGroup: "rg-res-ml", workspace: "ws-eu", clusters: ["cpu-d4"] }],
  },
  "stackwarden:residency": { allowedCountries, sites: [{ name: "backup-dc", address: "Dam 1, 1012 JS Amsterdam" }] },
});

const VIOLATIONS = [
  "SQL database sql-res/orders must keep its data in US; it is in NL (region westeurope)",
  "Batch AI workspace rg-res-ml/ws-eu must keep its data in US; it is in NL (region westeurope)",
  "Batch AI cluster rg-res-ml/ws-eu/cpu-d4 must keep its data in US; it is in NL (region westeurope)",
  'site backup-dc must keep its data in US; it is in NL (address "Dam 1, 1012 JS Amsterdam")',
];

describe.skipIf(!cli)("Pulumi CLI end to end: data residency", () => {
  let t: TestEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    t = await startTestEmulator({ seed: seedFromYaml(SEED) });
    project = new PulumiProject({ cli: cli!, emulatorUrl: t.url });
    // The engine's environment, which the policy pack inherits.
    project.env.STACKWARDEN_GEOCODING_ENDPOINT = `${t.url}/geocoding`;
    project.writeStackConfig(STACK, config(["US", "NL"]));
  });

  afterAll(async () => {
    project?.cleanup();
    await t?.close();
  });

  it("up --policy-pack policies allowing US and NL: everything is created and complies", async () => {
    expect((await project.pulumi(["login", project.backendUrl])).code).toBe(0);
    const init = await project.pulumi(["stack", "init", STACK]);
    expect(init.code, explain(init)).toBe(0);
    const r = await project.pulumi(["up", "--yes", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/\+ 7 created/); // TDE, advisors, scan activity, workspace, cluster, Residency, the stack
    expect(r.stdout).not.toMatch(/\[(mandatory|advisory)\]/);
    // The TDE resource's outputs carry the configuration's location.
    const state = await project.pulumi(["stack", "export"]);
    const tde = (
      JSON.parse(state.stdout) as { deployment: { resources: { type: string; outputs?: Record<string, unknown> }[] } }
    ).deployment.resources.find((x) => x.type === "pulumi-nodejs:dynamic/sql:TransparentDataEncryption");
    expect(tde?.outputs?.location).toBe("West Europe");
  });

  it("allowing only US: preview --policy-pack policies fails on data-residency from the resources' outputs, as check does", async () => {
    project.writeStackConfig(STACK, config(["US"]));
    const r = await project.pulumi(["preview", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).not.toBe(0);
    for (const [type, name] of [
      ["sql:TransparentDataEncryption", "tde-rg-res-sql-res-orders"],
      ["batchai:Workspace", "batchai-workspace-rg-res-ml-ws-eu"],
      ["batchai:Cluster", "batchai-cluster-rg-res-ml-ws-eu-cpu-d4"],
      ["residency:Residency", "residency"],
    ]) {
      expect(r.stdout).toMatch(new RegExp(`\\[mandatory\\]\\s+data-residency\\s+\\(pulumi-nodejs:dynamic/${type}: ${name}\\)`));
    }
    for (const v of VIOLATIONS) expect(r.stdout).toContain(v);

    const env = { ...project.env, STACKWARDEN_GEOCODING_ENDPOINT: `${t.url}/geocoding` };
    const check = await project.stackwarden(["check", "--stack", STACK, "--output", "json"], env);
    expect(check.code, explain(check)).toBe(3);
    const findings = (JSON.parse(check.stdout) as { findings: { ruleId: string; verdict: string; message: string }[] }).findings;
    expect(
      findings
        .filter((f) => f.ruleId === "data-residency" && f.verdict === "fail")
        .map((f) => f.message)
        .sort(),
    ).toEqual([...VIOLATIONS].sort());
  });

  it("allowed again: preview --refresh --expect-no-changes passes; destroy leaves the cloud as it is", async () => {
    project.writeStackConfig(STACK, config(["US", "NL"]));
    const r = await project.pulumi(["preview", "--refresh", "--expect-no-changes", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).not.toMatch(/\[(mandatory|advisory)\]/);
    const d = await project.pulumi(["destroy", "--yes"]);
    expect(d.code, explain(d)).toBe(0);
    expect((await project.pulumi(["stack", "rm", "--yes", STACK])).code).toBe(0);
  });
});
