import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CarrierToken } from "../../src/domain/facts/carrier";
import { SqlClient } from "../../src/services/sql/client";
import { FAST_RETRY, type TestEmulator } from "../helpers/emulator";
import { DynamicResourceDriver, PROJECT_ROOT, ProviderPlugin, UNKNOWN } from "../helpers/provider-plugin";
import { KIND_CASES, TEST_STACK, batchJob, dbId, dbRef, providerStateDir, sqlDatabase, startEstate } from "./provider-test-kit";

/**
 * The real path: Pulumi's dynamic-provider plugin runs as a child process in the project directory
 * with the environment pointing at an in-process emulator, and is driven over gRPC as the engine
 * drives it, with `__provider` as the compiled program (dist/) writes it: the provider text that
 * loads dist/providers/provider-entry.js in the plugin.
 */

type Providers = { providerText(name: "tde" | CarrierToken): string };
const compiled = () => require(join(PROJECT_ROOT, "dist/providers/index.js")) as Providers;
const TDE_TYPE = "pulumi-nodejs:dynamic/sql:TransparentDataEncryption";

let t: TestEmulator;
let plugin: ProviderPlugin;
let sql: SqlClient;

const puts = () =>
  Object.entries(t.emu.stats.byRoute)
    .filter(([k]) => k.startsWith("PUT "))
    .reduce((n, [, v]) => n + v, 0);

beforeAll(async () => {
  t = await startEstate();
  sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
  plugin = await ProviderPlugin.start({
    env: {
      STACKWARDEN_ARM_ENDPOINT: t.url,
      STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint,
      STACKWARDEN_STATE_URL: `file:${providerStateDir()}`,
    },
  });
  await plugin.configure();
});

afterAll(async () => {
  await plugin?.close();
  await t?.close();
});

describe("TransparentDataEncryption through the dynamic-provider plugin", () => {
  let tde: DynamicResourceDriver;
  const inputs = {
    ...dbRef("orders"),
    transparentDataEncryption: "Enabled",
    pollIntervalMs: 25,
    scanTimeoutSeconds: 20,
    stack: TEST_STACK,
  };
  const id = `${dbId("orders")}/transparentDataEncryption/current`;
  let state: Record<string, unknown>;

  beforeAll(async () => {
    tde = new DynamicResourceDriver(plugin, compiled().providerText("tde"), TDE_TYPE, "tde-orders");
  });

  it("Check: valid inputs pass through; invalid ones come back as failures naming the property; unknowns are not judged", async () => {
    expect(await tde.check(inputs)).toEqual({ inputs, failures: [] });
    const bad = await tde.check({
      ...inputs,
      transparentDataEncryption: "Maybe",
      onDelete: "drop",
      pollIntervalMs: 1,
      server: "",
      extra: 1,
    });
    // (An empty server breaks two rules, minLength and pattern: each is reported.)
    expect([...new Set(bad.failures.map((f) => f.property))].sort()).toEqual([
      "extra",
      "onDelete",
      "pollIntervalMs",
      "server",
      "transparentDataEncryption",
    ]);
    expect(bad.failures.find((f) => f.property === "transparentDataEncryption")!.reason).toMatch(/Enabled.*Disabled|allowed values/);
    const missing = await tde.check({ subscriptionId: inputs.subscriptionId });
    expect(missing.failures.map((f) => f.property).sort()).toEqual(["database", "resourceGroup", "server", "transparentDataEncryption"]);
    // During a preview a value computed from another resource is unknown: no failure for it.
    expect((await tde.check({ ...inputs, database: UNKNOWN })).failures).toEqual([]);
  });

  it("Create: PUTs Enabled and returns only after the encryption scan finished", async () => {
    expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Disabled");
    const started = Date.now();
    const created = await tde.create(inputs);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250); // the seed's scan lasts 300 ms on the emulator clock
    // The TDE configuration's location is an output: what the data-residency policy places.
    expect(created).toEqual({ id, properties: { ...inputs, status: "Enabled", databaseId: dbId("orders"), location: "East US" } });
    expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Enabled");
    expect(await sql.listTransparentDataEncryptionActivities(dbRef("orders"))).toEqual([]);
    // It polled the scan's progress (operationResults) until the scan had ended.
    const polls = Object.entries(t.emu.stats.byRoute)
      .filter(([k]) => k.startsWith("GET ") && /\/transparentDataEncryption\/[^/]+\/operationResults$/i.test(k))
      .reduce((n, [, v]) => n + v, 0);
    expect(polls, JSON.stringify(t.emu.stats.byRoute)).toBeGreaterThanOrEqual(2);
    state = created.properties;
  });

  it("Diff: no change; a status change is an update; another database is a replacement", async () => {
    expect(await tde.diff(id, state, inputs)).toEqual({ changes: "none", replaces: [], deleteBeforeReplace: false });
    expect(await tde.diff(id, state, { ...inputs, transparentDataEncryption: "Disabled" })).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(await tde.diff(id, state, { ...inputs, database: "scratch" })).toEqual({
      changes: "some",
      replaces: ["database"],
      deleteBeforeReplace: false,
    });
    expect(await tde.diff(id, state, { ...inputs, server: "SQL-PULUMI-1" })).toMatchObject({ changes: "none" }); // ARM names are case-insensitive
  });

  it("Read: returns inputs and props; after an out-of-band decryption it shows Disabled, and the next Diff wants an update", async () => {
    const fresh = await tde.read(id, state, inputs);
    expect(fresh).toEqual({ id, properties: state, inputs: { ...inputs } });

    await sql.putTransparentDataEncryption(dbRef("orders"), "Disabled"); // someone decrypts it behind the stack's back
    t.emu.advanceClock(1_000); // …and the decryption scan finishes
    const drifted = await tde.read(id, state, inputs);
    expect(drifted.properties).toMatchObject({ status: "Disabled", transparentDataEncryption: "Disabled" });
    expect(drifted.inputs).toMatchObject({ transparentDataEncryption: "Disabled" });
    expect(await tde.diff(id, drifted.properties, inputs)).toMatchObject({ changes: "some", replaces: [] });
    state = drifted.properties;
  });

  it("Update: repairs the drift (PUT Enabled, waits for the scan)", async () => {
    const before = puts();
    const updated = await tde.update(id, state, inputs);
    expect(updated.properties).toEqual({ ...inputs, status: "Enabled", databaseId: dbId("orders"), location: "East US" });
    expect(puts()).toBe(before + 1);
    expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Enabled");
    expect(await sql.listTransparentDataEncryptionActivities(dbRef("orders"))).toEqual([]); // the encryption scan had finished
    state = updated.properties;
  });

  it("Read by id only (import / .get): the database comes from the id", async () => {
    const got = await tde.read(id);
    expect(got.id).toBe(id);
    expect(got.properties).toEqual({
      ...dbRef("orders"),
      transparentDataEncryption: "Enabled",
      status: "Enabled",
      databaseId: dbId("orders"),
      location: "East US",
    });
    await expect(tde.read("/subscriptions/x/nonsense")).rejects.toThrow(/is not the id of a SQL database's transparent data encryption/);
  });

  it("Delete: the default (retain) leaves encryption as it is; onDelete: Disabled decrypts first", async () => {
    const before = puts();
    await tde.delete(id, state);
    expect(puts()).toBe(before);
    expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Enabled");

    await tde.delete(id, { ...state, onDelete: "Disabled" });
    expect(puts()).toBe(before + 1);
    expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Disabled");
    expect(await sql.listTransparentDataEncryptionActivities(dbRef("orders"))).toEqual([]); // it waited for the decryption
  });

  it("Create on a database that does not exist fails with the API's message", async () => {
    await expect(tde.create({ ...inputs, database: "ghost" })).rejects.toThrow(/create: .*ghost/);
  });
});

describe("data sources through the dynamic-provider plugin", () => {
  const driver = async (kind: CarrierToken, name: string) =>
    new DynamicResourceDriver(plugin, compiled().providerText(kind), `pulumi-nodejs:dynamic/${kind}`, name);

  it("ServiceTierAdvisors: Check, Create, Read, Diff (an advisor changes in the emulator), Update, Read by id, Delete", async () => {
    const c = KIND_CASES["sql:ServiceTierAdvisors"];
    const ds = await driver("sql:ServiceTierAdvisors", "advisors-orders");
    expect(await ds.check(c.inputs)).toEqual({ inputs: c.inputs, failures: [] });
    const bad = await ds.check({ ...c.inputs, database: "", serviceObjective: 3 as never, tier: "S3" });
    expect(bad.failures).toEqual([
      { property: "database", reason: "database is required and must be a non-empty string" },
      { property: "serviceObjective", reason: "serviceObjective must be a string" },
      { property: "tier", reason: "unknown input" },
    ]);

    const created = await ds.create(c.inputs);
    expect(created.id).toBe(c.id);
    c.expectData(created.properties.advisors);
    expect(created.properties).toMatchObject(c.inputs);

    const read = await ds.read(c.id, created.properties, c.inputs);
    expect(read.properties).toEqual(created.properties);
    expect(read.inputs).toEqual(c.inputs);
    expect(await ds.diff(c.id, created.properties, c.inputs)).toMatchObject({ changes: "none", replaces: [] });

    const advisor = sqlDatabase(t.emu, "orders").serviceTierAdvisors[0];
    advisor.overallRecommendationServiceLevelObjective = "S4";
    advisor.confidence = 0.99;
    t.emu.store.changed();
    expect(await ds.diff(c.id, created.properties, c.inputs)).toMatchObject({ changes: "some", replaces: [] });
    const updated = await ds.update(c.id, created.properties, c.inputs);
    expect((updated.properties.advisors as any[])[0].properties).toMatchObject({
      overallRecommendationServiceLevelObjective: "S4",
      confidence: 0.99,
    });
    expect(await ds.diff(c.id, updated.properties, c.inputs)).toMatchObject({ changes: "none" });

    // `.get`: the engine knows only the id; the provider reads the inputs back from it.
    const byId = await ds.read(c.id);
    const { serviceObjective: _s, ...required } = c.inputs;
    expect(byId.inputs).toEqual(required);
    expect((byId.properties.advisors as any[])[0].properties.overallRecommendationServiceLevelObjective).toBe("S4");

    const requests = t.emu.stats.total;
    await ds.delete(c.id, updated.properties);
    expect(t.emu.stats.total).toBe(requests);
  });

  it("BatchAiJobs: every page of jobs; a job that changes state makes Diff report a change; Read by id", async () => {
    const c = KIND_CASES["batchai:Jobs"];
    const ds = await driver("batchai:Jobs", "jobs-resnet50");
    expect((await ds.check(c.inputs)).failures).toEqual([]);
    expect((await ds.check({ ...c.inputs, experiment: undefined })).failures).toEqual([
      { property: "experiment", reason: "experiment is required and must be a non-empty string" },
    ]);

    const created = await ds.create(c.inputs);
    expect(created.id).toBe(c.id);
    c.expectData(created.properties.jobs);
    expect(await ds.diff(c.id, created.properties, c.inputs)).toMatchObject({ changes: "none" });

    batchJob(t.emu, "resnet50", "lr-sweep-2").executionState = "succeeded";
    t.emu.store.changed();
    expect(await ds.diff(c.id, created.properties, c.inputs)).toMatchObject({ changes: "some", replaces: [] });
    expect(await ds.diff(c.id, created.properties, { ...c.inputs, experiment: "detection" })).toMatchObject({
      changes: "some",
      replaces: ["experiment"],
    });

    const byId = await ds.read(c.id);
    expect(byId).toMatchObject({ id: c.id, inputs: c.inputs });
    expect((byId.properties.jobs as any[]).find((j) => j.name === "lr-sweep-2").properties.executionState).toBe("succeeded");
  });

  it("BatchAiUsages: Create and Read by id return the location's usages; a changed quota shows in Diff", async () => {
    const c = KIND_CASES["batchai:Usages"];
    const ds = await driver("batchai:Usages", "usages-eastus");
    expect((await ds.check(c.inputs)).failures).toEqual([]);
    const created = await ds.create(c.inputs);
    expect(created).toMatchObject({ id: c.id, properties: c.inputs });
    c.expectData(created.properties.usages);

    const byId = await ds.read(c.id);
    expect(byId).toEqual({ id: c.id, properties: created.properties, inputs: c.inputs });

    const batch = t.emu.store.state.services.batchai as {
      usages: { location: string; usages: { name: string; currentValue: number }[] }[];
    };
    batch.usages.find((u) => u.location === "eastus")!.usages.find((u) => u.name === "cores")!.currentValue = 99;
    t.emu.store.changed();
    expect(await ds.diff(c.id, created.properties, c.inputs)).toMatchObject({ changes: "some" });
  });

  it("the plugin is still up and logged no provider errors", () => {
    expect(plugin.running).toBe(true);
    // Only the read of a malformed id (tested above) may have been logged.
    const lines = plugin.stderr
      .split("\n")
      .filter((l) => l.trim() && !/is not the id of a SQL database's transparent data encryption/.test(l) && !/^\s+at /.test(l));
    expect(lines).toEqual([]);
  });
});
