import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackConfigFromValues } from "../../src/domain/stack/stack-config";
import { SqlClient } from "../../src/services/sql/client";
import type { DatabaseRef } from "../../src/services/sql/types";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { resourcesRegisteredAtOnce } from "../helpers/program-resources";
import { PulumiProject, e2eCli, e2eRequired, explain } from "../helpers/pulumi-cli";

// The real Pulumi CLI drives the project (stacks/index.ts, providers/, policies/) against the
// emulator: init, preview with the policy pack, up, drift caught by preview --refresh, repair,
// a mandatory violation, destroy (onDelete: retain). The steps share one stack and run in order.

const cli = e2eCli();

const SUB = "00000000-0000-0000-0000-000000000000";
const STACK = "e2e";
const SEED = `
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 150
  servers:
    - name: sql-e2e
      resourceGroup: rg-e2e
      location: East US
      databases:
        - name: alpha
          transparentDataEncryption: Disabled      # the stack wants Enabled
          serviceObjective: S1
          serviceTierAdvisors:
            - name: Current
              currentServiceLevelObjective: S1
              usageBasedRecommendationServiceLevelObjective: S3
              overallRecommendationServiceLevelObjective: S3   # the stack intends S1: advisory drift
              confidence: 0.92
        - name: beta
          transparentDataEncryption: Enabled
          serviceObjective: S2
        - name: gamma
          transparentDataEncryption: Enabled
`;

const db = (database: string) => ({ resourceGroup: "rg-e2e", server: "sql-e2e", database });
const CONFIG = {
  "stackwarden:subscriptionId": SUB,
  "stackwarden:databases": [
    { ...db("alpha"), transparentDataEncryption: "Enabled", serviceObjective: "S1" },
    { ...db("beta"), transparentDataEncryption: "Enabled" },
    { ...db("gamma"), transparentDataEncryption: "Enabled" },
  ],
};
const ref = (database: string): DatabaseRef => ({ subscriptionId: SUB, ...db(database) });
/** The dynamic resources the program registers for CONFIG, derived from the registries (a new data source counts itself). */
const RESOURCES = resourcesRegisteredAtOnce(stackConfigFromValues(CONFIG, "e2e config"));
const urnName = (database: string) => `tde-rg-e2e-sql-e2e-${database}`;

if (!cli && e2eRequired()) {
  // This is what fails the run: the global setup only says so, so that the unit tier still reports.
  it("has a Pulumi CLI (STACKWARDEN_E2E=required)", () => {
    expect.fail(
      "STACKWARDEN_E2E=required but no Pulumi CLI was found on PATH or in the pulumi:install cache: run `npm run pulumi:install`",
    );
  });
}

describe.skipIf(!cli)("Pulumi CLI end to end: the stack against the emulator", () => {
  let t: TestEmulator;
  let project: PulumiProject;
  let sql: SqlClient;
  const tde = async (database: string) => (await sql.getTransparentDataEncryption(ref(database))).properties?.status;

  beforeAll(async () => {
    t = await startTestEmulator({ seed: seedFromYaml(SEED) });
    sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
    project = new PulumiProject({ cli: cli!, emulatorUrl: t.url });
    project.writeStackConfig(STACK, CONFIG);
  });

  afterAll(async () => {
    project?.cleanup();
    await t?.close();
  });

  it("logs in to a file:// backend and inits the stack (encryptionsalt added, stackwarden: config kept)", async () => {
    const login = await project.pulumi(["login", project.backendUrl]);
    expect(login.code, explain(login)).toBe(0);
    const init = await project.pulumi(["stack", "init", STACK]);
    expect(init.code, explain(init)).toBe(0);
    const file = project.readStackFile(STACK);
    expect(file.encryptionsalt).toEqual(expect.any(String));
    expect(file.config).toEqual(CONFIG);
  });

  it("preview --policy-pack policies: shows the TDE resources to create with the desired state and the pack's verdict; changes nothing", async () => {
    const r = await project.pulumi(["preview", "--diff", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).toBe(0);
    // --diff shows each resource's inputs: the desired status of every database.
    for (const d of ["alpha", "beta", "gamma"]) {
      expect(r.stdout).toMatch(
        new RegExp(
          `\\+ pulumi-nodejs:dynamic/sql:TransparentDataEncryption: \\(create\\)\\s*\\[urn=[^\\]]*::${urnName(d)}\\]\\s*database\\s*: "${d}"[^+]*transparentDataEncryption: "Enabled"`,
        ),
      );
    }
    // The pack ran (its table) and found nothing: the desired states comply.
    expect(r.stdout).toMatch(/Policy Packs run:[\s\S]*stackwarden\|local\|policies\s+\d+\.\d+\.\d+/);
    expect(r.stdout).not.toMatch(/\[(mandatory|advisory)\]/);
    // Every resource the program registers for the stack (3 TDE + 3 advisors + 3 scan activities + 3 databases + the
    // server's TDE protector, today; counted from the registries), and the stack itself.
    expect(r.stdout).toMatch(new RegExp(`\\+ ${RESOURCES + 1} to create`));
    expect(await tde("alpha")).toBe("Disabled");
  });

  it("up --yes converges: the emulator shows Enabled; the outputs carry the live status", async () => {
    const r = await project.pulumi(["up", "--yes", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\+ ${RESOURCES + 1} created`)); // the protector is service-managed: no vault or key follows it
    for (const d of ["alpha", "beta", "gamma"]) expect(await tde(d)).toBe("Enabled");
    expect(await sql.listTransparentDataEncryptionActivities(ref("alpha"))).toEqual([]); // the scan has finished
    const out = await project.pulumi(["stack", "output", "--json"]);
    expect(out.code, explain(out)).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({
      transparentDataEncryption: { "rg-e2e/sql-e2e/alpha": "Enabled", "rg-e2e/sql-e2e/beta": "Enabled", "rg-e2e/sql-e2e/gamma": "Enabled" },
    });
  });

  it("the state is lean: each resource stores the provider text (no code) and where the program registered it (one frame in stacks/)", async () => {
    const r = await project.pulumi(["stack", "export"]);
    expect(r.code, explain(r)).toBe(0);
    const resources = (
      JSON.parse(r.stdout) as {
        deployment: { resources: { type: string; inputs?: Record<string, unknown>; sourcePosition?: string; stackTrace?: unknown[] }[] };
      }
    ).deployment.resources.filter((x) => x.type.startsWith("pulumi-nodejs:dynamic/"));
    expect(resources).toHaveLength(RESOURCES);
    for (const x of resources) {
      const provider = x.inputs?.__provider as string;
      expect(provider).toMatch(/^exports\.handler=.*dist\/providers\/provider-entry\.js/);
      expect(provider.length).toBeLessThan(256);
      expect(x.sourcePosition, x.type).toMatch(/stacks\/program\.ts#\d+,\d+$/);
      expect(x.stackTrace ?? [], x.type).toHaveLength(1);
    }
  });

  it("a converged stack: preview --refresh --expect-no-changes exits 0 and the advisory tier-drift verdict shows", async () => {
    const r = await project.pulumi(["preview", "--refresh", "--expect-no-changes", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(
      /\[advisory\]\s+sql-tier-advisor-drift\s+\(pulumi-nodejs:dynamic\/sql:ServiceTierAdvisors: advisors-rg-e2e-sql-e2e-alpha\)/,
    );
    expect(r.stdout).not.toMatch(/\[mandatory\]/);
  });

  it("an out-of-band PUT Disabled: preview --refresh --expect-no-changes exits non-zero and names the drifted database", async () => {
    await sql.putTransparentDataEncryption(ref("alpha"), "Disabled");
    expect(await tde("alpha")).toBe("Disabled");
    // Without --refresh Pulumi compares with its own state only, and sees nothing.
    const stale = await project.pulumi(["preview", "--expect-no-changes"]);
    expect(stale.code, explain(stale)).toBe(0);
    const r = await project.pulumi(["preview", "--refresh", "--expect-no-changes"]);
    expect(r.code, explain(r)).not.toBe(0);
    expect(r.output).toMatch(/no changes were expected/);
    expect(r.stdout).toMatch(
      new RegExp(
        `~\\s+pulumi-nodejs:dynamic/sql:TransparentDataEncryption ${urnName("alpha")} update \\[diff: ~transparentDataEncryption\\]`,
      ),
    );
    expect(r.stdout).toMatch(/~ 1 to update/);
    expect(await tde("alpha")).toBe("Disabled");
  });

  it("up --refresh --yes repairs it", async () => {
    const r = await project.pulumi(["up", "--refresh", "--yes", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/~ 1 updated/);
    expect(await tde("alpha")).toBe("Enabled");
    const again = await project.pulumi(["preview", "--refresh", "--expect-no-changes"]);
    expect(again.code, explain(again)).toBe(0);
  });

  it("a stack that wants TDE Disabled: up --policy-pack policies fails on the mandatory sql-tde-enabled policy and changes nothing", async () => {
    project.writeStackConfig(STACK, {
      ...CONFIG,
      "stackwarden:databases": CONFIG["stackwarden:databases"].map((d) =>
        d.database === "beta" ? { ...d, transparentDataEncryption: "Disabled" } : d,
      ),
    });
    try {
      const r = await project.pulumi(["up", "--yes", "--policy-pack", "policies"]);
      expect(r.code, explain(r)).not.toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(`\\[mandatory\\]\\s+sql-tde-enabled\\s+\\(pulumi-nodejs:dynamic/sql:TransparentDataEncryption: ${urnName("beta")}\\)`),
      );
      expect(r.stdout).toContain("Database rg-e2e/sql-e2e/beta must have transparent data encryption Enabled");
      expect(await tde("beta")).toBe("Enabled");
    } finally {
      project.writeStackConfig(STACK, CONFIG);
    }
  });

  it("destroy --yes removes the resources from the stack and leaves encryption as it is (onDelete: retain)", async () => {
    const r = await project.pulumi(["destroy", "--yes"]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`- ${RESOURCES + 1} deleted`));
    for (const d of ["alpha", "beta", "gamma"]) expect(await tde(d)).toBe("Enabled");
    const rm = await project.pulumi(["stack", "rm", "--yes", STACK]);
    expect(rm.code, explain(rm)).toBe(0);
  });
});
