import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgePlacement } from "../../src/domain/compliance/rules/data-residency";
import { loadStackFile } from "../../src/usecases/stack-file";
import { silentLogger } from "../../src/platform/http";
import { findDataSource } from "../../src/domain/facts/data-source-registry";
import type { FactClients } from "../../src/domain/facts/fact-clients";
import { readDataSource } from "../../src/interfaces/pulumi/data-source-resource";
import { residencyOutputs } from "../../src/interfaces/pulumi/residency-resource";
import { applyTdeInputs } from "../../src/interfaces/pulumi/tde-resource";
import type { ClientSet } from "../../src/clients/client-set";
import { newClientSet } from "../../src/clients/client-set";
import { factsFromResources } from "../../src/domain/facts/gather";
import { known } from "../../policies/known";
import { ArmOperations } from "../../src/platform/arm/arm-operations";
import { ARM_READS } from "../../src/services/arm-reads";
import { SqlClient } from "../../src/services/sql/client";
import { TYPES } from "../helpers/carrier-types";
import { PolicyAnalyzer, UNKNOWN_VALUE, urnOf, type AnalyzerResourceInput, type Level } from "../helpers/analyzer";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { runCli, stackDir } from "../interfaces/cli/cli-harness";
import {
  RESIDENCY_ESTATE,
  RESIDENCY_GEOCODING_KEY as KEY,
  RESIDENCY_SITES as SITES,
  RESIDENCY_SUBSCRIPTION as SUB,
} from "../fixtures/estates/residency";

/**
 * The data-residency policy as the Pulumi engine runs it: the compiled pack in a child process,
 * driven over gRPC, fed the resources the Pulumi program registers with the outputs their
 * providers return (TDE resources with their configuration's location, Batch AI data sources with
 * the API's objects, the Residency resource), placing them through the emulator's geocoding
 * service from its environment. And its parity with `check` on the same estate and stack.
 */

const DATABASES = [
  { server: "sql-eu", database: "orders" },
  { server: "sql-us", database: "customers" },
  { server: "sql-lost", database: "legacy" },
];
const WORKSPACES = [
  { workspace: "ws-eu", clusters: ["cpu-d4"], fileServers: ["nfs"] },
  { workspace: "ws-us", clusters: [], fileServers: [] },
];

const STACK = (allowed: string[]) =>
  [
    "config:",
    `  stackwarden:subscriptionId: ${SUB}`,
    "  stackwarden:databases:",
    ...DATABASES.map(
      (d) => `    - { resourceGroup: rg-data, server: ${d.server}, database: ${d.database}, transparentDataEncryption: Enabled }`,
    ),
    "  stackwarden:batch:",
    "    resourceGroups: [rg-ml]",
    "    workspaces:",
    ...WORKSPACES.map(
      (w) =>
        `      - { resourceGroup: rg-ml, workspace: ${w.workspace}, clusters: [${w.clusters.join(", ")}], fileServers: [${w.fileServers.join(", ")}] }`,
    ),
    "  stackwarden:residency:",
    `    allowedCountries: [${allowed.join(", ")}]`,
    "    sites:",
    ...SITES.map((s) => `      - { name: ${s.name}, address: "${s.address}" }`),
    "",
  ].join("\n");

let emu: TestEmulator;
let analyzer: PolicyAnalyzer;
let clients: Pick<ClientSet, "sql" | "reads">;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: seedFromYaml(RESIDENCY_ESTATE) });
  analyzer = await PolicyAnalyzer.start({
    env: { STACKWARDEN_GEOCODING_ENDPOINT: `${emu.url}/geocoding`, STACKWARDEN_GEOCODING_API_KEY: KEY },
  });
  const opts = { endpoint: emu.url, credential: emu.credential, retry: FAST_RETRY, logger: silentLogger };
  clients = { sql: new SqlClient(opts), reads: new ArmOperations(opts, ARM_READS) };
  dir = stackDir({ "Pulumi.us.yaml": STACK(["US"]), "Pulumi.usnl.yaml": STACK(["US", "NL"]) });
});

afterAll(async () => {
  await analyzer?.stop();
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function configure(level: Level = "mandatory"): Promise<void> {
  await analyzer.configure({
    "sql-tde-enabled": { enforcementLevel: "mandatory" },
    "sql-tier-advisor-drift": { enforcementLevel: "advisory" },
    "batch-quota-headroom": { enforcementLevel: "advisory" },
    "data-residency": { enforcementLevel: level },
  });
}

/** The stack's resources as the Pulumi program registers them, each with the outputs its provider returned. */
async function programResources(allowedCountries: string[]): Promise<AnalyzerResourceInput[]> {
  const out: AnalyzerResourceInput[] = [];
  for (const d of DATABASES) {
    const inputs = { subscriptionId: SUB, resourceGroup: "rg-data", ...d, transparentDataEncryption: "Enabled" as const };
    // What the TDE provider's create returns (the databases are encrypted already: no PUT).
    out.push({ type: TYPES.tde, name: `tde-rg-data-${d.server}-${d.database}`, props: { ...(await applyTdeInputs(clients.sql, inputs)) } });
  }
  const source = async (token: string, name: string, inputs: Record<string, string>) =>
    out.push({
      type: `pulumi-nodejs:dynamic/${token}`,
      name,
      props: (await readDataSource(clients as unknown as FactClients, findDataSource(token)!, inputs)).outs,
    });
  for (const w of WORKSPACES) {
    const ref = { subscriptionId: SUB, resourceGroup: "rg-ml", workspace: w.workspace };
    await source("batchai:Workspace", `batchai-workspace-rg-ml-${w.workspace}`, ref);
    for (const c of w.clusters) await source("batchai:Cluster", `batchai-cluster-rg-ml-${w.workspace}-${c}`, { ...ref, cluster: c });
    for (const f of w.fileServers)
      await source("batchai:FileServer", `batchai-fileserver-rg-ml-${w.workspace}-${f}`, { ...ref, fileServer: f });
  }
  out.push({ type: TYPES.residency, name: "residency", props: { ...residencyOutputs({ allowedCountries, sites: SITES }) } });
  return out;
}

async function checkFindings(file: string) {
  const { code, out, err } = await runCli(["check", "--config", file, "--output", "json"], emu.url, dir, {
    STACKWARDEN_GEOCODING_ENDPOINT: `${emu.url}/geocoding`,
    STACKWARDEN_GEOCODING_API_KEY: KEY,
  });
  const doc = JSON.parse(out) as {
    findings: { ruleId: string; resourceId: string; verdict: string; level: string; message: string }[];
  };
  return { code, err, findings: doc.findings };
}

describe("AnalyzeStack: data-residency", () => {
  it("flags each resource and site outside the allowed countries, on its own URN, at the configured level", async () => {
    await configure();
    const resources = await programResources(["US"]);
    const v = await analyzer.analyzeStack(resources);
    expect(v.every((x) => x.policyName === "data-residency" && x.enforcementLevel === "mandatory")).toBe(true);
    const byUrn = Object.fromEntries(v.map((x) => [x.urn, x.detail]));
    expect(byUrn).toEqual({
      [urnOf(TYPES.tde, "tde-rg-data-sql-eu-orders")]:
        "SQL database sql-eu/orders must keep its data in US; it is in NL (region westeurope)",
      [urnOf(TYPES.workspace, "batchai-workspace-rg-ml-ws-eu")]:
        "Batch AI workspace rg-ml/ws-eu must keep its data in US; it is in NL (region westeurope)",
      [urnOf(TYPES.cluster, "batchai-cluster-rg-ml-ws-eu-cpu-d4")]:
        "Batch AI cluster rg-ml/ws-eu/cpu-d4 must keep its data in US; it is in NL (region westeurope)",
      [urnOf(TYPES.fileServer, "batchai-fileserver-rg-ml-ws-eu-nfs")]:
        "Batch AI file server rg-ml/ws-eu/nfs must keep its data in US; it is in NL (region westeurope)",
      [urnOf(TYPES.residency, "residency")]: 'site backup-dc must keep its data in US; it is in NL (address "Dam 1, 1012 JS Amsterdam")',
    });
    // The TDE resource's location output is what placed the database.
    expect(resources.find((r) => r.name === "tde-rg-data-sql-eu-orders")!.props.location).toBe("West Europe");
  });

  it("allowing US and NL: nothing flagged (what cannot be placed is not applicable, not a violation)", async () => {
    await configure();
    expect(await analyzer.analyzeStack(await programResources(["US", "NL"]))).toEqual([]);
  });

  it("advisory or disabled as configured", async () => {
    const resources = await programResources(["US"]);
    await configure("advisory");
    expect(new Set((await analyzer.analyzeStack(resources)).map((x) => x.enforcementLevel))).toEqual(new Set(["advisory"]));
    await configure("disabled");
    expect(await analyzer.analyzeStack(resources)).toEqual([]);
    await configure();
  });

  it("a stack without a Residency resource (no stackwarden:residency) has nothing to judge", async () => {
    await configure();
    const resources = (await programResources(["US"])).filter((r) => r.type !== TYPES.residency);
    expect(await analyzer.analyzeStack(resources)).toEqual([]);
  });

  it("during a preview, locations not known yet are not judged; the sites are", async () => {
    await configure();
    const resources = (await programResources(["US"])).map((r) =>
      r.type === TYPES.tde
        ? { ...r, props: { ...r.props, location: UNKNOWN_VALUE } }
        : r.type === TYPES.workspace
          ? { ...r, props: { ...r.props, workspaceResource: UNKNOWN_VALUE } }
          : r,
    );
    const v = await analyzer.analyzeStack(resources);
    // The cluster and file server carry no location of their own: they wait for their workspace.
    expect(v.map((x) => x.detail)).toEqual(['site backup-dc must keep its data in US; it is in NL (address "Dam 1, 1012 JS Amsterdam")']);
  });

  it("a key the geocoding service refuses fails the analysis with the service's error, the key nowhere", async () => {
    const wrong = "gk-pack-wrong-key-3e11";
    const other = await PolicyAnalyzer.start({
      env: { STACKWARDEN_GEOCODING_ENDPOINT: `${emu.url}/geocoding`, STACKWARDEN_GEOCODING_API_KEY: wrong },
    });
    try {
      const err = await other.analyzeStack(await programResources(["US"])).then(
        () => undefined,
        (e: Error) => e,
      );
      // It fails the data-residency policy, the one that reads placements, not the others.
      expect(err?.message).toMatch(/policy .data-residency./);
      expect(err?.message).toMatch(/GeocodingUnauthorized/);
      expect(err?.message).not.toContain(wrong);
    } finally {
      await other.stop();
    }
  });
});

describe("parity: check and the pack judge residency alike", () => {
  for (const [file, allowed] of [
    ["Pulumi.us.yaml", ["US"]],
    ["Pulumi.usnl.yaml", ["US", "NL"]],
  ] as const) {
    it(`${file}: the same violations and messages over gRPC, and the same verdict for every placement`, async () => {
      const check = await checkFindings(file);
      expect(check.code, check.err).toBe(allowed.length === 1 ? 3 : 0);
      const fromCheck = check.findings.filter((f) => f.ruleId === "data-residency");
      const resources = await programResources([...allowed]);

      await configure();
      const fromPack = (await analyzer.analyzeStack(resources)).map((v) => `${v.policyName} ${v.enforcementLevel}: ${v.detail}`);
      const violations = fromCheck.filter((f) => f.verdict === "fail").map((f) => `${f.ruleId} ${f.level}: ${f.message}`);
      expect(fromPack.sort()).toEqual(violations.sort());

      // Every verdict (pass and not applicable too, which the pack does not report), from the pack's own facts.
      const env = { STACKWARDEN_GEOCODING_ENDPOINT: `${emu.url}/geocoding`, STACKWARDEN_GEOCODING_API_KEY: KEY };
      const packFacts = await factsFromResources(["placements"], resources, { known, clients: newClientSet(env) });
      const packVerdicts = packFacts.placements.map((p) => {
        const j = judgePlacement(p);
        return `${p.id.toLowerCase()} ${j.verdict}: ${j.message}`;
      });
      const checkVerdicts = fromCheck.map((f) => `${f.resourceId.toLowerCase()} ${f.verdict}: ${f.message}`);
      expect(packVerdicts.sort()).toEqual(checkVerdicts.sort());
      expect(checkVerdicts.filter((x) => / not-applicable: /.test(x))).toHaveLength(2); // legacy (Atlantis Central) and moon-base
      // The stack file check read is the one the pack's resources came from.
      expect(loadStackFile(`${dir}/${file}`, {}, dir).residency?.allowedCountries).toEqual([...allowed]);
    });
  }
});
