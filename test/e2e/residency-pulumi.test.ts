import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackConfigFromValues } from "../../src/domain/stack/stack-config";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { resourcesRegisteredAtOnce } from "../helpers/program-resources";
import { PulumiProject, e2eCli, explain } from "../helpers/pulumi-cli";
import type { CommandResult } from "../helpers/cli-process";
import { filesUnder } from "../helpers/files-under";

// The data-residency policy with the real Pulumi CLI against the emulator: the program registers
// the TDE resource (whose outputs carry its configuration's location), the Batch AI data sources
// and the Residency resource; the pack, started by the engine, inherits its environment
// (STACKWARDEN_GEOCODING_ENDPOINT) and places them through the emulator's geocoding service.
// `stackwarden check` on the same stack file gives the same violations. The steps run in order.
// The geocoding service accepts one key only, planted in the engine's environment: every placement
// needs it, yet it is in no output, in no `pulumi stack export` and in no file of the backend.

const cli = e2eCli();

const SUB = "00000000-0000-0000-0000-000000000000";
const STACK = "residency";
const KEY = "gk-planted-residency-e2e-6a1d";
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
  apiKeys: [{ key: ${KEY} }]
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

/** Pulumi's output without the service-managed protector's advisory (sql-tde-customer-managed-key), which this stack always has. */
function withoutKeyCustody(stdout: string): string {
  return stdout.replace(/\[advisory\]\s+sql-tde-customer-managed-key[^\n]*/g, "");
}

describe.skipIf(!cli)("Pulumi CLI end to end: data residency", () => {
  let t: TestEmulator;
  let project: PulumiProject;
  const outputs: CommandResult[] = [];
  const geocodingRequests = () =>
    Object.entries(t.emu.stats.byRoute)
      .filter(([k]) => k.includes("/geocoding/"))
      .reduce((n, [, v]) => n + v, 0);

  beforeAll(async () => {
    t = await startTestEmulator({ seed: seedFromYaml(SEED) });
    project = new PulumiProject({ cli: cli!, emulatorUrl: t.url });
    // The engine's environment, which the policy pack inherits.
    project.env.STACKWARDEN_GEOCODING_ENDPOINT = `${t.url}/geocoding`;
    project.env.STACKWARDEN_GEOCODING_API_KEY = KEY;
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
    outputs.push(r);
    expect(r.code, explain(r)).toBe(0);
    // The pack placed the site through the geocoding service, which refuses any request without the key.
    expect(geocodingRequests()).toBeGreaterThan(0);
    // Every resource the program registers for the stack (TDE, advisors, scan activity, database, TDE protector,
    // workspace, cluster, Residency, today; counted from the registries), and the stack itself.
    const registered = resourcesRegisteredAtOnce(stackConfigFromValues(config(["US", "NL"]), "e2e config"));
    expect(r.stdout).toMatch(new RegExp(`\\+ ${registered + 1} created`));
    // The one verdict: the server's TDE protector is service-managed (advisory), nothing about residency.
    expect(r.stdout).toMatch(/\[advisory\]\s+sql-tde-customer-managed-key\s+\(pulumi-nodejs:dynamic\/sql:EncryptionProtector: /);
    expect(withoutKeyCustody(r.stdout)).not.toMatch(/\[(mandatory|advisory)\]/);
    // The TDE resource's outputs carry the configuration's location.
    const state = await project.pulumi(["stack", "export"]);
    outputs.push(state);
    expect(state.code, explain(state)).toBe(0);
    expect(state.stdout.includes(KEY), "the geocoding key is in the exported state").toBe(false);
    const tde = (
      JSON.parse(state.stdout) as { deployment: { resources: { type: string; outputs?: Record<string, unknown> }[] } }
    ).deployment.resources.find((x) => x.type === "pulumi-nodejs:dynamic/sql:TransparentDataEncryption");
    expect(tde?.outputs?.location).toBe("West Europe");
  });

  it("allowing only US: preview --policy-pack policies fails on data-residency from the resources' outputs, as check does", async () => {
    project.writeStackConfig(STACK, config(["US"]));
    const r = await project.pulumi(["preview", "--policy-pack", "policies"]);
    outputs.push(r);
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

    const env = { ...project.env, STACKWARDEN_GEOCODING_ENDPOINT: `${t.url}/geocoding`, STACKWARDEN_LOG: "debug" };
    const check = await project.stackwarden(["check", "--stack", STACK, "--output", "json"], env);
    outputs.push(check);
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
    outputs.push(r);
    expect(r.code, explain(r)).toBe(0);
    expect(withoutKeyCustody(r.stdout)).not.toMatch(/\[(mandatory|advisory)\]/);
    const d = await project.pulumi(["destroy", "--yes"]);
    outputs.push(d);
    expect(d.code, explain(d)).toBe(0);
    // Before `stack rm`: the checkpoint, its history and backups of every step so far.
    const state = filesUnder(join(project.root, "backend"));
    expect(state.some((f) => f.path.endsWith(`${STACK}.json`))).toBe(true);
    const haystack = [...outputs.map((o) => o.output), ...state.map((f) => `${f.path}\n${f.text}`)].join("\n");
    expect(haystack).toContain("api_key=REDACTED"); // check's debug log: the key was sent, redacted
    expect(haystack.includes(KEY), "the geocoding key leaked into an output or the backend").toBe(false);
    expect((await project.pulumi(["stack", "rm", "--yes", STACK])).code).toBe(0);
  });
});
