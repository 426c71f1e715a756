import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { parse } from "yaml";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadRuleSet } from "../../src/domain/artifacts/rule-set";
import { localArtifactFiles } from "../../src/platform/files/artifact-files";
import { followingSourceTypes, resourcesRegisteredAtOnce } from "../helpers/program-resources";

/**
 * The Pulumi program under `pulumi.runtime.setMocks`: the config comes from stacks/Pulumi.dev.yaml
 * exactly as the language host would hand it over (strings as is, structured values as JSON text),
 * and every registered resource is recorded by the mocks.
 * In @pulumi/pulumi 3.248 `setMocks` takes no config and does not reset it: the program's
 * `pulumi.runtime.allConfig()` reads what `pulumi.runtime.setAllConfig` stored (PULUMI_CONFIG).
 */

const ROOT = join(__dirname, "../..");
const DEV_STACK = join(ROOT, "stacks/Pulumi.dev.yaml");
const TDE = "pulumi-nodejs:dynamic/sql:TransparentDataEncryption";
const ARTIFACT_SCAN = "pulumi-nodejs:dynamic/artifacts:ArtifactScan";

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, any>;
  id?: string;
}

/** The `config:` block of a stack file as Pulumi's language host passes it (PULUMI_CONFIG). */
function pulumiConfigOf(file: string): Record<string, string> {
  const doc = parse(readFileSync(file, "utf8")) as { config: Record<string, unknown> };
  return Object.fromEntries(Object.entries(doc.config).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
}

// `waitForRPCs` is internal to @pulumi/pulumi but exported; it resolves once every registration has settled.
const settings = require("@pulumi/pulumi/runtime/settings") as { waitForRPCs(): Promise<void> };

let registered: Registered[];
/** What the mocked EncryptionProtector data sources read, by server name (as the provider returns it under `protector`). */
let protectorOutputs: Record<string, Record<string, unknown>> = {};
const PROTECTOR = "pulumi-nodejs:dynamic/sql:EncryptionProtector";

beforeEach(async () => {
  registered = [];
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.push({ type: args.type, name: args.name, inputs: args.inputs, ...(args.id ? { id: args.id } : {}) });
        // The live status mirrors the desired one, so stack outputs can be checked.
        const status = args.type === TDE ? args.inputs.transparentDataEncryption : undefined;
        const protector = args.type === PROTECTOR ? protectorOutputs[args.inputs.server as string] : undefined;
        return {
          id: args.id || `${args.name}-id`,
          state: { ...args.inputs, ...(status ? { status } : {}), ...(protector ? { protector } : {}) },
        };
      },
      call: (args) => args.inputs,
    },
    "stackwarden",
    "dev",
  );
  vi.resetModules();
});

afterEach(() => {
  pulumi.runtime.setAllConfig({});
});

async function runProgram(config: Record<string, string>): Promise<Registered[]> {
  pulumi.runtime.setAllConfig(config);
  const program = await import("../../stacks/program");
  program.registerStack(program.readStackConfig());
  await settings.waitForRPCs();
  return registered;
}

const byName = (rs: Registered[], name: string) => {
  const r = rs.find((x) => x.name === name);
  if (!r) throw new Error(`no resource named ${name}; registered: ${rs.map((x) => x.name).join(", ")}`);
  return r;
};

describe("stacks/ program with the dev stack's config", () => {
  const config = pulumiConfigOf(DEV_STACK);
  const dev = parse(readFileSync(DEV_STACK, "utf8")).config as Record<string, any>;
  const sub = dev["stackwarden:subscriptionId"];

  it("registers one TDE resource, one advisor and one TDE activity data source per database, with the stack's values", async () => {
    const rs = await runProgram(config);
    const databases = dev["stackwarden:databases"] as {
      resourceGroup: string;
      server: string;
      database: string;
      transparentDataEncryption: string;
      serviceObjective?: string;
    }[];
    expect(databases.length).toBeGreaterThan(0);
    // Where the file names each database: a provider's error about one that the cloud does not have names it.
    const text = readFileSync(DEV_STACK, "utf8").split("\n");
    const entryLines = text.flatMap((l, i) =>
      /^ {4}- resourceGroup: /.test(l) && text.slice(0, i).some((x) => x.includes("stackwarden:databases:")) ? [i + 1] : [],
    );
    for (const [i, d] of databases.entries()) {
      const n = `${d.resourceGroup}-${d.server}-${d.database}`.toLowerCase();
      const ref = { subscriptionId: sub, resourceGroup: d.resourceGroup, server: d.server, database: d.database };

      const tde = byName(rs, `tde-${n}`);
      expect(tde.type).toBe(TDE);
      const { __provider, ...tdeInputs } = tde.inputs;
      expect(tdeInputs).toEqual({
        ...ref,
        transparentDataEncryption: d.transparentDataEncryption,
        stackEntry: `stacks/Pulumi.dev.yaml:${entryLines[i]}:7`,
        // The Pulumi stack: whose lock and audit trail the provider's writes go under.
        stack: "dev",
      });
      expect(typeof __provider).toBe("string");
      expect(__provider).toContain("exports.handler");

      const adv = byName(rs, `advisors-${n}`);
      expect(adv.type).toBe("pulumi-nodejs:dynamic/sql:ServiceTierAdvisors");
      const { __provider: _p, ...advInputs } = adv.inputs;
      expect(advInputs).toEqual({ ...ref, ...(d.serviceObjective ? { serviceObjective: d.serviceObjective } : {}) });

      const act = byName(rs, `tde-activity-${n}`);
      expect(act.type).toBe("pulumi-nodejs:dynamic/sql:TransparentDataEncryptionActivities");
      expect(act.inputs).toMatchObject(ref);
    }
    // Spot-check one entry against the literal file, so a silently empty parse cannot pass.
    expect(byName(rs, "tde-rg-data-sql-prod-1-orders").inputs).toMatchObject({
      subscriptionId: "00000000-0000-0000-0000-000000000000",
      resourceGroup: "rg-data",
      server: "sql-prod-1",
      database: "orders",
      transparentDataEncryption: "Enabled",
    });
    expect(byName(rs, "advisors-rg-data-sql-prod-1-orders").inputs.serviceObjective).toBe("S3");
  });

  it("registers the elastic pool, Batch AI usages and workspace data sources under their own type tokens", async () => {
    const rs = await runProgram(config);
    const pools = (dev["stackwarden:elasticPools"] ?? []) as { resourceGroup: string; server: string; elasticPool: string }[];
    for (const p of pools) {
      const n = `${p.resourceGroup}-${p.server}-${p.elasticPool}`.toLowerCase();
      const ref = { subscriptionId: sub, resourceGroup: p.resourceGroup, server: p.server, elasticPool: p.elasticPool };
      expect(byName(rs, `pool-activity-${n}`)).toMatchObject({ type: "pulumi-nodejs:dynamic/sql:ElasticPoolActivities", inputs: ref });
      expect(byName(rs, `pool-db-activity-${n}`)).toMatchObject({
        type: "pulumi-nodejs:dynamic/sql:ElasticPoolDatabaseActivities",
        inputs: ref,
      });
    }
    const batch = (dev["stackwarden:batch"] ?? {}) as {
      locations?: string[];
      workspaces?: { resourceGroup: string; workspace: string; clusters?: string[]; experiments?: string[]; fileServers?: string[] }[];
    };
    for (const location of batch.locations ?? []) {
      const u = byName(rs, `batchai-usages-${location}`);
      expect(u.type).toBe("pulumi-nodejs:dynamic/batchai:Usages");
      const { __provider, ...inputs } = u.inputs;
      expect(inputs).toEqual({ subscriptionId: sub, location });
    }
    for (const w of batch.workspaces ?? []) {
      const n = `${w.resourceGroup}-${w.workspace}`.toLowerCase();
      const ref = { subscriptionId: sub, resourceGroup: w.resourceGroup, workspace: w.workspace };
      expect(byName(rs, `batchai-workspace-${n}`)).toMatchObject({ type: "pulumi-nodejs:dynamic/batchai:Workspace", inputs: ref });
      for (const c of w.clusters ?? [])
        expect(byName(rs, `batchai-cluster-${n}-${c}`)).toMatchObject({
          type: "pulumi-nodejs:dynamic/batchai:Cluster",
          inputs: { ...ref, cluster: c },
        });
      for (const f of w.fileServers ?? [])
        expect(byName(rs, `batchai-fileserver-${n}-${f}`)).toMatchObject({
          type: "pulumi-nodejs:dynamic/batchai:FileServer",
          inputs: { ...ref, fileServer: f },
        });
      for (const e of w.experiments ?? []) {
        expect(byName(rs, `batchai-experiment-${n}-${e}`)).toMatchObject({
          type: "pulumi-nodejs:dynamic/batchai:Experiment",
          inputs: { ...ref, experiment: e },
        });
        expect(byName(rs, `batchai-jobs-${n}-${e}`)).toMatchObject({
          type: "pulumi-nodejs:dynamic/batchai:Jobs",
          inputs: { ...ref, experiment: e },
        });
      }
    }
    // One TDE protector per server (their vaults and keys come once protectors are read: checked below).
    const servers = new Set(
      (dev["stackwarden:databases"] as { resourceGroup: string; server: string }[]).map((d) => `${d.resourceGroup}/${d.server}`),
    );
    expect(rs.filter((r) => r.type === PROTECTOR)).toHaveLength(servers.size);
    // One Database per stack database: whether it carries its own TDE protector (and its identity).
    for (const d of dev["stackwarden:databases"] as { resourceGroup: string; server: string; database: string }[]) {
      const r = byName(rs, `database-${d.resourceGroup}-${d.server}-${d.database}`.toLowerCase());
      expect(r.type).toBe("pulumi-nodejs:dynamic/sql:Database");
      const { __provider, ...inputs } = r.inputs;
      expect(inputs).toEqual({ subscriptionId: sub, resourceGroup: d.resourceGroup, server: d.server, database: d.database });
    }
    // The residency section, carried to the policy pack by one Residency resource.
    const residency = dev["stackwarden:residency"] as
      { allowedCountries: string[]; sites?: { name: string; address: string }[] } | undefined;
    if (residency) {
      const r = byName(rs, "residency");
      expect(r.type).toBe("pulumi-nodejs:dynamic/residency:Residency");
      const { __provider, ...inputs } = r.inputs;
      expect(inputs).toEqual({ allowedCountries: residency.allowedCountries, sites: residency.sites ?? [] });
    }
    // Each of these sources exactly as often as the config says (none twice under another name).
    const dbs = dev["stackwarden:databases"]?.length ?? 0;
    const workspaces = batch.workspaces ?? [];
    const sum = (f: (w: (typeof workspaces)[number]) => number) => workspaces.reduce((n, w) => n + f(w), 0);
    const perType: Record<string, number> = {
      [TDE]: dbs,
      "pulumi-nodejs:dynamic/sql:ServiceTierAdvisors": dbs,
      "pulumi-nodejs:dynamic/sql:TransparentDataEncryptionActivities": dbs,
      "pulumi-nodejs:dynamic/sql:Database": dbs,
      [PROTECTOR]: servers.size,
      "pulumi-nodejs:dynamic/sql:ElasticPoolActivities": pools.length,
      "pulumi-nodejs:dynamic/sql:ElasticPoolDatabaseActivities": pools.length,
      "pulumi-nodejs:dynamic/batchai:Usages": batch.locations?.length ?? 0,
      "pulumi-nodejs:dynamic/batchai:Workspace": workspaces.length,
      "pulumi-nodejs:dynamic/batchai:Cluster": sum((w) => w.clusters?.length ?? 0),
      "pulumi-nodejs:dynamic/batchai:FileServer": sum((w) => w.fileServers?.length ?? 0),
      "pulumi-nodejs:dynamic/batchai:Experiment": sum((w) => w.experiments?.length ?? 0),
      "pulumi-nodejs:dynamic/batchai:Jobs": sum((w) => w.experiments?.length ?? 0),
      "pulumi-nodejs:dynamic/certificates:CertificateProbe": dev["stackwarden:probes"]?.length ?? 0,
      "pulumi-nodejs:dynamic/residency:Residency": residency ? 1 : 0,
    };
    for (const [type, n] of Object.entries(perType))
      expect(
        rs.filter((r) => r.type === type),
        type,
      ).toHaveLength(n);
    // Nothing else: no per-job resources, no stray registrations. The count is derived from the
    // registries (every data source's instances for this stack), so a new fact kind's carrier needs
    // no word here; the mocks read no protector key, so nothing follows their outputs.
    const stack = (await import("../../stacks/program")).readStackConfig();
    expect(rs.filter((r) => followingSourceTypes().has(r.type))).toEqual([]);
    expect(rs).toHaveLength(resourcesRegisteredAtOnce(stack, rs.filter((r) => r.type === ARTIFACT_SCAN).length)); // scans: their own test below
    expect(new Set(rs.map((r) => r.name)).size).toBe(rs.length);
    // Data sources carry no stale output placeholder into their inputs.
    for (const r of rs)
      for (const out of [
        "advisors",
        "activities",
        "usages",
        "jobs",
        "workspaceResource",
        "clusterResource",
        "experimentResource",
        "fileServerResource",
        "databaseResource",
        "verdict",
        "matches",
      ])
        expect(r.inputs[out]).toBeUndefined();
  });

  it("registers one ArtifactScan per file of stackwarden:artifacts with its sha-256 and the rule set's digest", async () => {
    const rs = await runProgram(config);
    const artifacts = dev["stackwarden:artifacts"] as { paths: string[]; rules: string[] };
    const scans = rs.filter((r) => r.type === ARTIFACT_SCAN);
    expect(scans.map((r) => r.name)).toEqual(["artifact-stacks/dev/jobs/resnet50/submit.sh", "artifact-stacks/dev/jobs/resnet50/train.py"]);
    const digest = loadRuleSet(localArtifactFiles, ROOT, artifacts.rules).digest;
    for (const r of scans) {
      const { __provider, ...inputs } = r.inputs;
      const path = r.name.slice("artifact-".length);
      expect(inputs).toEqual({
        path,
        sha256: createHash("sha256")
          .update(readFileSync(join(ROOT, path)))
          .digest("hex"),
        rulesDigest: digest,
        rules: artifacts.rules,
      });
      expect(__provider).toContain("exports.handler");
    }
  });

  it("registers one CertificateProbe per probe: references only, never a value; a Pulumi secret goes in as a secret", async () => {
    const rs = await runProgram(config);
    const probes = dev["stackwarden:probes"] as { name: string; issuer: string; doctype: string; format: string }[];
    expect(probes.length).toBeGreaterThan(0);
    for (const p of probes) {
      const r = byName(rs, `probe-${p.name}`);
      expect(r.type).toBe("pulumi-nodejs:dynamic/certificates:CertificateProbe");
      const { __provider, parameters, deployment, ...rest } = r.inputs;
      expect(rest).toEqual({ name: p.name, issuer: p.issuer, doctype: p.doctype, format: p.format });
      // It follows the TDE resources' statuses (under mocks, their inputs' echo): an update of one runs it again.
      expect(Array.isArray(deployment) ? deployment.length : deployment).toBe(dev["stackwarden:databases"].length);
      for (const source of Object.values(parameters as Record<string, { from: string; variable: string }>)) {
        expect(source).toMatchObject({ from: "env", variable: expect.stringMatching(/^PROBE_/) });
      }
    }
    // Registered after the TDE resources they depend on.
    const lastTde = Math.max(...rs.map((r, i) => (r.type === TDE ? i : -1)));
    for (const p of probes) expect(rs.findIndex((r) => r.name === `probe-${p.name}`)).toBeGreaterThan(lastTde);
    // The health-policy probe's policy number stored as a secret (pulumi config set --secret --path): decrypted
    // for the program, it is registered as a Pulumi secret.
    registered.length = 0;
    const secretProbes = (JSON.parse(config["stackwarden:probes"]) as Record<string, any>[]).map((p) =>
      p.name === "health-policy" ? { ...p, parameters: { ...p.parameters, policyNo: "PLANTED-SECRET-POLICY-77" } } : p,
    );
    pulumi.runtime.setAllConfig({ ...config, "stackwarden:probes": JSON.stringify(secretProbes) }, ["stackwarden:probes"]);
    const program = await import("../../stacks/program");
    const reg = program.registerStack(program.readStackConfig());
    await settings.waitForRPCs();
    expect(reg.probes.size).toBe(probes.length);
    // The engine sees the parameters as a secret (its signature), the policy number among them as a secret parameter;
    // a probe without a secret is registered as plain references.
    const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
    const health = byName(registered, "probe-health-policy").inputs.parameters as Record<string, any>;
    expect(health["4dabf18193072939515e22adb298388d"]).toBe(SECRET_SIG);
    expect(health.value.UDF1).toEqual({
      from: "secret",
      variable: "STACKWARDEN_PROBE_HEALTH_POLICY_POLICY_NO",
      value: "PLANTED-SECRET-POLICY-77",
    });
    expect(health.value.FullName).toMatchObject({ from: "env", variable: "PROBE_HLIPC_FULL_NAME" });
    const other = byName(registered, "probe-transfer-certificate").inputs.parameters as Record<string, any>;
    expect(other["4dabf18193072939515e22adb298388d"]).toBeUndefined();
    expect(other.ADMN_NO).toMatchObject({ from: "env", variable: "PROBE_TRCER_ADMN_NO" });
  });

  it("stacks/index.ts exports the live TDE status per database", async () => {
    pulumi.runtime.setAllConfig(config);
    const index = await import("../../stacks/index");
    const outputs = index.transparentDataEncryption as Record<string, pulumi.Output<string>>;
    const databases = dev["stackwarden:databases"] as {
      resourceGroup: string;
      server: string;
      database: string;
      transparentDataEncryption: string;
    }[];
    expect(Object.keys(outputs).sort()).toEqual(databases.map((d) => `${d.resourceGroup}/${d.server}/${d.database}`).sort());
    const status = await new Promise<string>((resolve) => outputs["rg-data/sql-prod-1/orders"].apply(resolve));
    expect(status).toBe("Enabled");
    await settings.waitForRPCs();
  });

  it("registers no Residency resource for a stack without stackwarden:residency (the data-residency policy is then off)", async () => {
    const { "stackwarden:residency": _r, ...withoutResidency } = config;
    const rs = await runProgram(withoutResidency);
    expect(rs.length).toBeGreaterThan(0);
    expect(rs.filter((r) => r.type === "pulumi-nodejs:dynamic/residency:Residency")).toEqual([]);
  });

  it("registers one EncryptionProtector per server; once read, one KeyVault per distinct vault and one KeyVaultKey per distinct key version", async () => {
    const keyUri = (vault: string, key: string, version?: string) => ({
      properties: { serverKeyType: "AzureKeyVault", uri: `https://${vault}.vault.azure.net/keys/${key}${version ? `/${version}` : ""}` },
    });
    const v1 = "0123456789abcdef0123456789abcdef";
    protectorOutputs = {
      "sql-a": keyUri("kv-shared", "tde", v1),
      "sql-b": keyUri("KV-Shared", "tde", v1), // the same key, the vault's name in another case
      "sql-c": keyUri("kv-shared", "tde-c"), // versionless: the key's current version
      "sql-d": keyUri("kv-other", "tde", v1),
      "sql-e": { properties: { serverKeyType: "ServiceManaged", serverKeyName: "ServiceManaged" } },
    };
    try {
      const servers = ["sql-a", "sql-b", "sql-c", "sql-d", "sql-e"];
      const rs = await runProgram({
        "stackwarden:subscriptionId": sub,
        "stackwarden:databases": JSON.stringify(
          servers.flatMap((server) =>
            ["db1", "db2"].map((database) => ({ resourceGroup: "rg-kc", server, database, transparentDataEncryption: "Enabled" })),
          ),
        ),
      });
      const protectors = rs.filter((r) => r.type === PROTECTOR);
      expect(protectors.map((r) => r.name)).toEqual(servers.map((s) => `tde-protector-rg-kc-${s}`));
      expect(protectors.map(({ inputs: { __provider: _p, ...i } }) => i)).toEqual(
        servers.map((server) => ({ subscriptionId: sub, resourceGroup: "rg-kc", server })),
      );
      const vaults = rs.filter((r) => r.type === "pulumi-nodejs:dynamic/keyvault:Vault");
      const sorted = <T extends [string, unknown]>(xs: T[]) => xs.sort((a, b) => a[0].localeCompare(b[0]));
      expect(sorted(vaults.map(({ name, inputs: { __provider: _p, ...i } }) => [name, i]))).toEqual([
        ["keyvault-kv-other", { subscriptionId: sub, vault: "kv-other" }],
        ["keyvault-kv-shared", { subscriptionId: sub, vault: "kv-shared" }],
      ]);
      const keys = rs.filter((r) => r.type === "pulumi-nodejs:dynamic/keyvault:Key");
      expect(sorted(keys.map(({ name, inputs: { __provider: _p, ...i } }) => [name, i]))).toEqual([
        [`keyvault-key-kv-other-tde-${v1}`, { subscriptionId: sub, vault: "kv-other", key: "tde", version: v1 }],
        [`keyvault-key-kv-shared-tde-${v1}`, { subscriptionId: sub, vault: "kv-shared", key: "tde", version: v1 }],
        ["keyvault-key-kv-shared-tde-c", { subscriptionId: sub, vault: "kv-shared", key: "tde-c" }],
      ]);
      // The TDE configuration stays the only writable resource: every other one is a data source.
      expect(rs.filter((r) => r.type === TDE)).toHaveLength(servers.length * 2);
    } finally {
      protectorOutputs = {};
    }
  });

  it("a protector whose key is in a Managed HSM registers the HSM and its key (input kind: managedHsm), beside a vault of the same name", async () => {
    const v1 = "0123456789abcdef0123456789abcdef";
    protectorOutputs = {
      "sql-h": { properties: { serverKeyType: "AzureKeyVault", uri: `https://hsm-1.managedhsm.azure.net/keys/tde/${v1}` } },
      "sql-v": { properties: { serverKeyType: "AzureKeyVault", uri: `https://hsm-1.vault.azure.net/keys/tde/${v1}` } },
    };
    try {
      const rs = await runProgram({
        "stackwarden:subscriptionId": sub,
        "stackwarden:databases": JSON.stringify(
          ["sql-h", "sql-v"].map((server) => ({ resourceGroup: "rg-kc", server, database: "db1", transparentDataEncryption: "Enabled" })),
        ),
      });
      const inputsOf = (type: string) =>
        rs
          .filter((r) => r.type === `pulumi-nodejs:dynamic/${type}`)
          .map(({ name, inputs: { __provider: _p, ...i } }) => [name, i])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      expect(inputsOf("keyvault:Vault")).toEqual([
        ["keyvault-hsm-1", { subscriptionId: sub, vault: "hsm-1" }],
        ["managedhsm-hsm-1", { subscriptionId: sub, vault: "hsm-1", kind: "managedHsm" }],
      ]);
      expect(inputsOf("keyvault:Key")).toEqual([
        [`keyvault-key-hsm-1-tde-${v1}`, { subscriptionId: sub, vault: "hsm-1", key: "tde", version: v1 }],
        [`managedhsm-key-hsm-1-tde-${v1}`, { subscriptionId: sub, vault: "hsm-1", key: "tde", version: v1, kind: "managedHsm" }],
      ]);
    } finally {
      protectorOutputs = {};
    }
  });

  it("the dev stack: a protector per server, and sql-prod-1's vault and key", async () => {
    protectorOutputs = {
      "sql-prod-1": {
        properties: {
          serverKeyType: "AzureKeyVault",
          uri: "https://kv-prod-tde.vault.azure.net/keys/sql-prod-1-tde/6f1c2e4a9b8d4c3e8a7f5b2d1c0e9f8a",
        },
      },
      "sql-prod-2": { properties: { serverKeyType: "ServiceManaged" } },
    };
    try {
      const rs = await runProgram(config);
      expect(rs.filter((r) => r.type === PROTECTOR).map((r) => r.name)).toEqual([
        "tde-protector-rg-data-sql-prod-1",
        "tde-protector-rg-data-sql-prod-2",
      ]);
      expect(byName(rs, "keyvault-kv-prod-tde").inputs).toMatchObject({ subscriptionId: sub, vault: "kv-prod-tde" });
      expect(byName(rs, "keyvault-key-kv-prod-tde-sql-prod-1-tde-6f1c2e4a9b8d4c3e8a7f5b2d1c0e9f8a").inputs).toMatchObject({
        vault: "kv-prod-tde",
        key: "sql-prod-1-tde",
        version: "6f1c2e4a9b8d4c3e8a7f5b2d1c0e9f8a",
      });
    } finally {
      protectorOutputs = {};
    }
  });

  it("ignores other namespaces' keys", async () => {
    const rs = await runProgram({ ...config, "aws:region": "us-east-1", "other:setting": '{"a":1}' });
    expect(rs.length).toBeGreaterThan(0);
  });

  it("a static .get registers a read of an existing resource by id (no inputs but the provider)", async () => {
    const providers = await import("../../providers");
    const { serviceTierAdvisors } = await import("../../src/domain/facts/tier-advice");
    const id =
      "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-prod-1/databases/orders/serviceTierAdvisors";
    providers.DataSourceResource.get(serviceTierAdvisors, "adopted", id);
    providers.TransparentDataEncryption.get("adopted-tde", `${id.replace(/\/serviceTierAdvisors$/, "")}/transparentDataEncryption/current`);
    await settings.waitForRPCs();
    expect(byName(registered, "adopted")).toMatchObject({ type: "pulumi-nodejs:dynamic/sql:ServiceTierAdvisors", id });
    expect(Object.keys(byName(registered, "adopted").inputs).filter((k) => k !== "__provider")).toEqual([]);
    expect(byName(registered, "adopted-tde")).toMatchObject({
      type: TDE,
      id: expect.stringMatching(/\/transparentDataEncryption\/current$/),
    });
  });
});

describe("stacks/ program with invalid config", () => {
  const good = pulumiConfigOf(DEV_STACK);

  async function failure(config: Record<string, string>): Promise<Error> {
    pulumi.runtime.setAllConfig(config);
    const program = await import("../../stacks/program");
    let err: unknown;
    try {
      program.registerStack(program.readStackConfig());
    } catch (e) {
      err = e;
    }
    await settings.waitForRPCs();
    expect(err, "the program should have refused this config").toBeInstanceOf(Error);
    // Nothing reaches the engine after a config error.
    expect(registered).toEqual([]);
    return err as Error;
  }

  it("an unknown stackwarden: key is refused, naming the key", async () => {
    const e = await failure({ ...good, "stackwarden:databasez": "[]" });
    expect(pulumi.RunError.isInstance(e)).toBe(true);
    expect(e.message).toContain("stack dev config");
    expect(e.message).toContain("stackwarden:databasez");
  });

  it("a wrong type is refused, naming the key path", async () => {
    const dbs = JSON.parse(good["stackwarden:databases"]) as Record<string, unknown>[];
    dbs[1] = { ...dbs[1], transparentDataEncryption: true };
    const e = await failure({ ...good, "stackwarden:databases": JSON.stringify(dbs) });
    expect(e.message).toContain("stackwarden:databases[1].transparentDataEncryption");

    registered.length = 0;
    const e2 = await failure({ ...good, "stackwarden:batch": JSON.stringify({ locations: "eastus" }) });
    expect(e2.message).toContain("stackwarden:batch.locations");
  });

  it("an unknown property inside an entry and a missing required key are refused, naming the path", async () => {
    const dbs = JSON.parse(good["stackwarden:databases"]) as Record<string, unknown>[];
    dbs[0] = { ...dbs[0], tde: "Enabled" };
    expect((await failure({ ...good, "stackwarden:databases": JSON.stringify(dbs) })).message).toContain("stackwarden:databases[0].tde");

    const { "stackwarden:subscriptionId": _gone, ...noSub } = good;
    expect((await failure(noSub)).message).toContain("stackwarden:subscriptionId");
  });
});
