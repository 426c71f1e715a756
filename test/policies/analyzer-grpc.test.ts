import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { openStateStores } from "../../src/platform/state/open-state";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../../src/usecases/check";
import { allRules } from "../../src/domain/compliance/registry";
import { newClientSet } from "../../src/clients/client-set";
import { loadStackFile } from "../../src/usecases/stack-file";
import { silentLogger } from "../../src/platform/http";
import { BatchAiClient } from "../../src/services/batchai/client";
import { SqlClient } from "../../src/services/sql/client";
import { TYPES } from "../helpers/carrier-types";
import { PolicyAnalyzer, UNKNOWN_VALUE, urnOf, type AnalyzerResourceInput, type Level, type Violation } from "../helpers/analyzer";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { emulatorEnv, runCliWith } from "../interfaces/cli/cli-harness";

/**
 * The policy pack as the Pulumi engine runs it (a child process driven over gRPC), and its parity
 * with `check`: the same live state gives the same violations, levels and messages.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const dbId = (database: string) =>
  `/subscriptions/${SUB}/resourceGroups/rg-par/providers/Microsoft.Sql/servers/sql-par-1/databases/${database}`;

const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-par-1
      resourceGroup: rg-par
      databases:
        - name: orders                       # unencrypted; advisor says S3 at 0.9 over S0: both rules fail
          transparentDataEncryption: Disabled
          serviceObjective: S0
          serviceTierAdvisors:
            - { name: Current, observationPeriodEnd: now-2d, overallRecommendationServiceLevelObjective: S3, confidence: 0.9 }
        - name: customers                    # encrypted; advisor agrees
          transparentDataEncryption: Enabled
          serviceObjective: S2
          serviceTierAdvisors:
            - { name: Current, observationPeriodEnd: now-1d, overallRecommendationServiceLevelObjective: S2, confidence: 0.95 }
        - name: reports                      # intended S1 differs from the recommendation at exactly 0.8
          transparentDataEncryption: Enabled
          serviceObjective: S1
          serviceTierAdvisors:
            - { name: Current, observationPeriodEnd: now-3d, overallRecommendationServiceLevelObjective: S4, confidence: 0.8 }
        - name: weak                         # low confidence: passes
          transparentDataEncryption: Enabled
          serviceObjective: S0
          serviceTierAdvisors:
            - { name: Current, observationPeriodEnd: now-3d, overallRecommendationServiceLevelObjective: S4, confidence: 0.5 }
        - name: legacy                       # unencrypted but exempt; stale advisor
          transparentDataEncryption: Disabled
          serviceObjective: S0
          serviceTierAdvisors:
            - { name: Current, observationPeriodEnd: now-60d, overallRecommendationServiceLevelObjective: P1, confidence: 0.95 }
      # master exists on every server, its TDE always Disabled: never flagged
batchai:
  subscriptionId: ${SUB}
  usages:
    - location: eastus
      usages:
        - { name: cores, localizedName: Total Regional Cores, currentValue: 92, limit: 100 }
        - { name: clusters, localizedName: Clusters, currentValue: 2, limit: 20 }
    - location: westeurope
      usages:
        - { name: cores, localizedName: Total Regional Cores, currentValue: 80, limit: 100 }
        - { name: dedicatedCores, localizedName: Dedicated Cores, currentValue: 0, limit: 0 }
`;

const EXEMPTION = { resourceId: dbId("legacy"), rules: ["sql-tde-enabled"], reason: "decommissioned next month" };
const DATABASES = [
  { database: "orders", tde: "Enabled" },
  { database: "customers", tde: "Enabled", so: "S2" },
  { database: "reports", tde: "Enabled", so: "S1" },
  { database: "weak", tde: "Enabled" },
  { database: "legacy", tde: "Enabled" },
  { database: "master", tde: "Enabled" },
] as const;

const STACK = [
  "config:",
  `  stackwarden:subscriptionId: ${SUB}`,
  "  stackwarden:databases:",
  ...DATABASES.flatMap((d) => [
    "    - resourceGroup: rg-par",
    "      server: sql-par-1",
    `      database: ${d.database}`,
    `      transparentDataEncryption: ${d.tde}`,
    ...("so" in d ? [`      serviceObjective: ${d.so}`] : []),
  ]),
  "  stackwarden:batch:",
  "    locations: [eastus, westeurope]",
  "  stackwarden:exemptions:",
  `    - resourceId: ${EXEMPTION.resourceId}`,
  "      rules: [sql-tde-enabled]",
  `      reason: ${EXEMPTION.reason}`,
  "",
].join("\n");

let analyzer: PolicyAnalyzer;
let emu: TestEmulator;
let dir: string;
let stackFile: string;

beforeAll(async () => {
  // One at a time and each assigned as it starts, so afterAll stops whatever did start.
  const seed = seedFromYaml(SEED);
  emu = await startTestEmulator({ seed });
  analyzer = await PolicyAnalyzer.start();
  dir = mkdtempSync(join(tmpdir(), "sw-analyzer-"));
  mkdirSync(join(dir, "stacks"));
  stackFile = join(dir, "stacks", "Pulumi.parity.yaml");
  writeFileSync(stackFile, STACK);
});

afterAll(async () => {
  await analyzer?.stop();
  expect(analyzer?.exited ?? true).toBe(true);
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The engine's default configuration: every policy at its default level, optional properties. */
async function configure(
  levels: Partial<Record<string, Level>> = {},
  properties: Record<string, Record<string, unknown>> = {},
): Promise<void> {
  const defaults: Record<string, Level> = {
    "sql-tde-enabled": "mandatory",
    "sql-tier-advisor-drift": "advisory",
    "batch-quota-headroom": "advisory",
    "artifact-signature-clean": "mandatory",
    "artifact-packed": "advisory",
    "post-deploy-probes": "advisory",
  };
  await analyzer.configure(
    Object.fromEntries(
      Object.entries(defaults).map(([name, level]) => [
        name,
        { enforcementLevel: levels[name] ?? level, properties: properties[name] ?? {} },
      ]),
    ),
  );
}

const tde = (database: string, props: Record<string, unknown>): AnalyzerResourceInput => ({
  type: TYPES.tde,
  name: `tde-${database}`,
  props: {
    subscriptionId: SUB,
    resourceGroup: "rg-par",
    server: "sql-par-1",
    database,
    transparentDataEncryption: "Enabled",
    databaseId: dbId(database),
    ...props,
  },
});

describe("GetAnalyzerInfo", () => {
  it("names the pack, its version, the policies with their levels and config schemas", async () => {
    const info = await analyzer.info();
    expect(info.name).toBe("stackwarden");
    expect(info.version).toBe("0.1.0");
    expect(info.supportsConfig).toBe(true);
    // One policy per registered rule, in registry order: its id, pack scope and default level.
    expect(info.policies.map((p) => [p.name, p.type, p.enforcementLevel])).toEqual(
      allRules().map((r) => [r.id, r.packScope, r.defaultLevel]),
    );
    const policy = (name: string) => info.policies.find((p) => p.name === name)!;
    expect(policy("sql-tde-enabled")).toMatchObject({ type: "resource", enforcementLevel: "mandatory" });
    const [tdeP, drift, quota] = ["sql-tde-enabled", "sql-tier-advisor-drift", "batch-quota-headroom"].map(policy);
    expect(Object.keys(tdeP.configSchema ?? {})).toEqual(["exemptions"]);
    expect(drift.configSchema).toMatchObject({
      minConfidence: { type: "number", minimum: 0, maximum: 1, default: 0.8 },
      maxObservationAgeDays: { default: 30 },
      exemptions: { type: "array" },
    });
    expect(quota.configSchema).toMatchObject({ threshold: { type: "number", default: 0.8 } });
    for (const p of info.policies) expect(p.configSchema).not.toHaveProperty("enforcementLevel");
  });
});

describe("Analyze: sql-tde-enabled on TDE resources", () => {
  beforeAll(() => configure());

  it("a live Disabled status is a mandatory violation with the rule's message", async () => {
    const v = await analyzer.analyze(tde("orders", { status: "Disabled" }));
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({
      policyName: "sql-tde-enabled",
      enforcementLevel: "mandatory",
      detail: "Database rg-par/sql-par-1/orders must have transparent data encryption Enabled; its live status is Disabled",
    });
  });

  it("Enabled, master and other resource types give nothing", async () => {
    expect(await analyzer.analyze(tde("orders", { status: "Enabled" }))).toEqual([]);
    expect(await analyzer.analyze(tde("master", { status: "Disabled", transparentDataEncryption: "Disabled" }))).toEqual([]);
    expect(await analyzer.analyze({ type: "pulumi-nodejs:dynamic/sql:Other", props: { status: "Disabled" } })).toEqual([]);
  });

  it("during a preview an unknown status is no violation (and no 'can't run during preview' diagnostic)", async () => {
    expect(await analyzer.analyze(tde("orders", { status: UNKNOWN_VALUE, transparentDataEncryption: UNKNOWN_VALUE }))).toEqual([]);
    expect(await analyzer.analyze(tde("orders", { status: UNKNOWN_VALUE }))).toEqual([]);
  });

  it("during a preview a stack that sets Disabled is flagged from the desired value", async () => {
    const v = await analyzer.analyze(tde("orders", { status: UNKNOWN_VALUE, transparentDataEncryption: "Disabled" }));
    expect(v.map((x) => x.detail)).toEqual([
      "Database rg-par/sql-par-1/orders must have transparent data encryption Enabled; the stack sets it to Disabled",
    ]);
  });

  it("an exemption in the policy config silences it; an expired one does not", async () => {
    await configure({}, { "sql-tde-enabled": { exemptions: [{ resourceId: dbId("orders"), reason: "rotation" }] } });
    expect(await analyzer.analyze(tde("orders", { status: "Disabled" }))).toEqual([]);
    await configure({}, { "sql-tde-enabled": { exemptions: [{ resourceId: dbId("orders"), reason: "rotation", expires: "2020-01-31" }] } });
    expect(await analyzer.analyze(tde("orders", { status: "Disabled" }))).toHaveLength(1);
    await configure(
      {},
      { "sql-tde-enabled": { exemptions: [{ resourceId: dbId("orders"), rules: ["sql-tier-advisor-drift"], reason: "other rule" }] } },
    );
    expect(await analyzer.analyze(tde("orders", { status: "Disabled" }))).toHaveLength(1);
    await configure();
  });

  it("the configured level is the violation's level: advisory, or none when disabled", async () => {
    await configure({ "sql-tde-enabled": "advisory" });
    expect((await analyzer.analyze(tde("orders", { status: "Disabled" }))).map((x) => x.enforcementLevel)).toEqual(["advisory"]);
    await configure({ "sql-tde-enabled": "disabled" });
    expect(await analyzer.analyze(tde("orders", { status: "Disabled" }))).toEqual([]);
    await configure();
  });
});

describe("AnalyzeStack: advisors and usages", () => {
  const advisors = (database: string, advisorsList: unknown, serviceObjective?: string): AnalyzerResourceInput => ({
    type: TYPES.advisors,
    name: `advisors-${database}`,
    props: { subscriptionId: SUB, resourceGroup: "rg-par", server: "sql-par-1", database, serviceObjective, advisors: advisorsList },
  });
  const apiAdvisor = (p: Record<string, unknown>) => ({
    id: `${dbId("orders")}/serviceTierAdvisors/Current`,
    name: "Current",
    type: "Microsoft.Sql/servers/databases/serviceTierAdvisors",
    properties: p,
  });
  const fresh = () => new Date(Date.now() - 2 * 86_400_000).toISOString();

  it("advisory by default; mandatory when configured so; urn of the advisors resource", async () => {
    await configure();
    const r = advisors("orders", [
      apiAdvisor({
        observationPeriodEnd: fresh(),
        currentServiceLevelObjective: "S0",
        overallRecommendationServiceLevelObjective: "S3",
        confidence: 0.9,
      }),
    ]);
    const v = await analyzer.analyzeStack([r]);
    expect(v).toEqual([
      expect.objectContaining({
        policyName: "sql-tier-advisor-drift",
        enforcementLevel: "advisory",
        urn: urnOf(TYPES.advisors, "advisors-orders"),
      }),
    ]);
    expect(v[0].detail).toBe(
      "Database rg-par/sql-par-1/orders should run at the advisor's tier: the advisor recommends S3 but the current service objective is S0 (confidence 0.9)",
    );
    await configure({ "sql-tier-advisor-drift": "mandatory" });
    expect((await analyzer.analyzeStack([r])).map((x) => x.enforcementLevel)).toEqual(["mandatory"]);
    await configure({}, { "sql-tier-advisor-drift": { minConfidence: 0.95 } });
    expect(await analyzer.analyzeStack([r])).toEqual([]);
    await configure();
  });

  it("unknown advisors or usages during a preview give no violation", async () => {
    await configure();
    const v = await analyzer.analyzeStack([
      advisors("orders", UNKNOWN_VALUE, "S0"),
      { type: TYPES.usages, name: "usages-eastus", props: { subscriptionId: SUB, location: "eastus", usages: UNKNOWN_VALUE } },
    ]);
    expect(v).toEqual([]);
    // An intended tier not known yet is not compared with the current one.
    const recommendsS3 = [
      apiAdvisor({
        observationPeriodEnd: fresh(),
        currentServiceLevelObjective: "S0",
        overallRecommendationServiceLevelObjective: "S3",
        confidence: 0.9,
      }),
    ];
    expect(await analyzer.analyzeStack([advisors("orders", recommendsS3, UNKNOWN_VALUE)])).toEqual([]);
    expect(await analyzer.analyzeStack([advisors("orders", recommendsS3, "S3")])).toEqual([]);
  });

  it("a usage at the threshold is flagged, with a custom threshold from the config", async () => {
    const usages = {
      type: TYPES.usages,
      name: "usages-eastus",
      props: {
        subscriptionId: SUB,
        location: "eastus",
        usages: [{ name: { value: "cores", localizedValue: "Total Regional Cores" }, currentValue: 60, limit: 100, unit: "Count" }],
      },
    };
    await configure();
    expect(await analyzer.analyzeStack([usages])).toEqual([]);
    await configure({}, { "batch-quota-headroom": { threshold: 0.6 } });
    const v = await analyzer.analyzeStack([usages]);
    expect(v.map((x) => [x.policyName, x.enforcementLevel, x.detail])).toEqual([
      [
        "batch-quota-headroom",
        "advisory",
        "Batch AI quota must keep headroom: Total Regional Cores in eastus uses 60 of 100 (60%), at or above the 60% threshold",
      ],
    ]);
    await configure();
  });
});

describe("parity: the analyzer and check judge the same live state alike", () => {
  it("same violations, levels and messages", async () => {
    const env = emulatorEnv(emu.url);
    // check, in-process, against the emulator.
    const r = await runCliWith(["check", "--config", stackFile, "--format", "json"], { cwd: dir, env });
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.out) as { findings: { ruleId: string; verdict: string; level: string; message: string }[] };
    const fromCheck = doc.findings
      .filter((f) => f.verdict === "fail")
      .map((f) => `${f.ruleId} ${f.level}: ${f.message}`)
      .sort();

    // The same through the check use case (the library path).
    const opts = { endpoint: emu.url, credential: emu.credential, retry: FAST_RETRY, logger: silentLogger };
    const sql = new SqlClient(opts);
    const batch = new BatchAiClient(opts);
    const stack = loadStackFile(stackFile, env, dir);
    const lib = await runCheck({
      stack,
      stackName: "parity",
      clients: newClientSet(env),
      cwd: dir,
      state: await openStateStores({ cwd: dir, env }),
    });
    expect(
      lib.findings
        .filter((f) => f.verdict === "fail")
        .map((f) => `${f.ruleId} ${f.level}: ${f.message}`)
        .sort(),
    ).toEqual(fromCheck);

    // The analyzer, fed the resources the Pulumi program registers, with their outputs as the API returned them.
    const exemptions = stack.exemptions.map(({ source: _s, ...e }) => e);
    await configure(
      {},
      { "sql-tde-enabled": { exemptions }, "sql-tier-advisor-drift": { exemptions }, "batch-quota-headroom": { exemptions } },
    );
    const violations: Violation[] = [];
    const stackResources: AnalyzerResourceInput[] = [];
    for (const d of stack.databases) {
      const ref = { subscriptionId: SUB, resourceGroup: d.resourceGroup, server: d.server, database: d.database };
      const live = await sql.getTransparentDataEncryption(ref);
      const tdeRes = tde(d.database, { transparentDataEncryption: d.transparentDataEncryption, status: live.properties?.status });
      violations.push(...(await analyzer.analyze(tdeRes)));
      stackResources.push(tdeRes, {
        type: TYPES.advisors,
        name: `advisors-${d.database}`,
        props: { ...ref, serviceObjective: d.serviceObjective, advisors: await sql.listServiceTierAdvisors(ref) },
      });
    }
    // The server's TDE protector data source (service-managed here: the key-custody advisory).
    const server = { subscriptionId: SUB, resourceGroup: "rg-par", server: "sql-par-1" };
    stackResources.push({
      type: TYPES.protector,
      name: "tde-protector-rg-par-sql-par-1",
      props: { ...server, protector: await sql.getEncryptionProtector(server) },
    });
    for (const location of stack.batch.locations) {
      stackResources.push({
        type: TYPES.usages,
        name: `usages-${location}`,
        props: { subscriptionId: SUB, location, usages: await batch.listUsages(SUB, location) },
      });
    }
    violations.push(...(await analyzer.analyzeStack(stackResources)));
    const fromAnalyzer = violations.map((v) => `${v.policyName} ${v.enforcementLevel}: ${v.detail}`).sort();

    expect(fromAnalyzer).toEqual(fromCheck);
    // And the state is the interesting one: both rules on orders, reports at exactly 0.8, two quotas, the server's
    // service-managed protector; legacy exempt, master never.
    expect(fromCheck).toEqual([
      "batch-quota-headroom advisory: Batch AI quota must keep headroom: Total Regional Cores in eastus uses 92 of 100 (92%), at or above the 80% threshold",
      "batch-quota-headroom advisory: Batch AI quota must keep headroom: Total Regional Cores in westeurope uses 80 of 100 (80%), at or above the 80% threshold",
      "sql-tde-customer-managed-key advisory: SQL server rg-par/sql-par-1 must protect transparent data encryption with a customer-managed key in Azure Key Vault; its TDE protector is service-managed (ServiceManaged)",
      "sql-tde-enabled mandatory: Database rg-par/sql-par-1/orders must have transparent data encryption Enabled; its live status is Disabled",
      "sql-tier-advisor-drift advisory: Database rg-par/sql-par-1/orders should run at the advisor's tier: the advisor recommends S3 but the current service objective is S0 (confidence 0.9)",
      "sql-tier-advisor-drift advisory: Database rg-par/sql-par-1/reports should run at the advisor's tier: the advisor recommends S4 but the intended service objective is S1 (confidence 0.8)",
    ]);
    // Without the exemption in its config, the analyzer flags legacy as check would without it in the stack.
    await configure();
    expect((await analyzer.analyze(tde("legacy", { status: "Disabled" }))).map((v) => v.detail)).toEqual([
      "Database rg-par/sql-par-1/legacy must have transparent data encryption Enabled; its live status is Disabled",
    ]);
  });
});
