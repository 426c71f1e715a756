import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, type Dispatcher } from "undici";
import { armPage } from "../../../src/emulator/kit/arm-conventions";
import type { LocalService } from "../../../src/emulator/kit/local-service";
import { ApiError, composeRetry } from "../../../src/platform/http";
import { imdsLocal } from "../../../src/emulator/services/imds/imds-local";
import { definitionValidator } from "../../../src/platform/schemas/swagger-schemas";
import { SqlClient } from "../../../src/services/sql/client";
import { SQL_SPEC } from "../../../src/services/sql/types";
import { sqlDatabaseId as databaseId, tdeConfigurationId as tdeId } from "../../../src/platform/arm/resource-id";
import { FAST_RETRY } from "../../helpers/emulator";
import { db, pool, recordingLogger, startSql, SUB, type SqlHarness } from "./sql-test-kit";

interface Sent {
  method: string;
  path: string;
  body?: string;
}

/** A dispatcher that records every attempt, with the transport's retry interceptor around it (as the shared one has). */
function recordingDispatcher(sent: Sent[]): Dispatcher {
  const record: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
    sent.push({ method: String(opts.method), path: String(opts.path), body: typeof opts.body === "string" ? opts.body : undefined });
    return dispatch(opts, handler);
  };
  return composeRetry(new Agent().compose(record));
}

describe("SqlClient against the example estate", () => {
  let h: SqlHarness;
  beforeAll(async () => {
    h = await startSql();
  });
  afterAll(async () => {
    await h.close();
  });

  it("reads the seeded estate through all seven operations", async () => {
    const orders = db("sql-prod-1", "orders");
    const advisors = await h.client.listServiceTierAdvisors(orders);
    expect(advisors).toHaveLength(1);
    expect(advisors[0]).toMatchObject({
      id: `${databaseId(orders)}/serviceTierAdvisors/Current`,
      name: "Current",
      type: "Microsoft.Sql/servers/databases/serviceTierAdvisors",
      properties: { currentServiceLevelObjective: "S0", overallRecommendationServiceLevelObjective: "S3", confidence: 0.9 },
    });
    expect(await h.client.getServiceTierAdvisor(orders, "current")).toEqual(advisors[0]);

    const activities = await h.client.listElasticPoolActivities(pool("sql-prod-1", "pool-1"));
    expect(activities.map((a) => a.properties?.operation)).toEqual(["CREATE", "UPDATE"]);
    expect(activities[0]).toMatchObject({
      name: "851f1672-f7f0-46f6-a262-ee9b51e18e97",
      location: "East US",
      properties: { serverName: "sql-prod-1", elasticPoolName: "pool-1" },
    });
    expect(activities[1].name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const dbActivities = await h.client.listElasticPoolDatabaseActivities(pool("sql-prod-1", "pool-1"));
    expect(dbActivities).toHaveLength(1);
    expect(dbActivities[0].properties).toMatchObject({
      databaseName: "analytics",
      currentElasticPoolName: "pool-1",
      serverName: "sql-prod-1",
    });

    const audit = db("sql-prod-2", "audit");
    expect(await h.client.getTransparentDataEncryption(audit)).toEqual({
      id: tdeId(audit),
      name: "current",
      type: "Microsoft.Sql/servers/databases/transparentDataEncryption",
      location: "West Europe",
      properties: { status: "Disabled" },
    });
    expect((await h.client.putTransparentDataEncryption(audit, "Enabled")).properties?.status).toBe("Enabled");
    expect((await h.client.listTransparentDataEncryptionActivities(audit))[0].properties?.status).toBe("Encrypting");
  });

  it("fills advisor defaults from the database (a pooled database's objective is ElasticPool)", async () => {
    const [a] = await h.client.listServiceTierAdvisors(db("sql-prod-1", "customers"));
    const p = a.properties!;
    expect(p.currentServiceLevelObjective).toBe("S2");
    expect(p.serviceLevelObjectiveUsageMetrics).toEqual([
      { serviceLevelObjective: "S2", serviceLevelObjectiveId: expect.any(String), inRangeTimeRatio: 1 },
    ]);
    expect([p.observationPeriodStart, p.observationPeriodEnd]).toEqual(["2024-05-01T00:00:00Z", "2024-05-15T00:00:00Z"]);
    expect(p.usageBasedRecommendationServiceLevelObjective).toBeUndefined();
    const [fresh] = await h.client.listServiceTierAdvisors(db("sql-prod-1", "orders"));
    const end = Date.parse(fresh.properties!.observationPeriodEnd!);
    expect(end - Date.parse(fresh.properties!.observationPeriodStart!)).toBe(14 * 86_400_000);
    expect(h.emu.now() - end).toBeGreaterThanOrEqual(0);
    expect(h.emu.now() - end).toBeLessThan(3_600_000);
    expect(await h.client.listServiceTierAdvisors(db("sql-prod-1", "analytics"))).toEqual([]);
  });

  it("sends exactly the spec's requests: paths, api-version, PUT body", async () => {
    const sent: Sent[] = [];
    const client = h.clientWith({ dispatcher: recordingDispatcher(sent) });
    const ref = db("sql-prod-2", "inventory");
    await client.getTransparentDataEncryption(ref);
    await client.putTransparentDataEncryption(ref, "Enabled");
    await client.listTransparentDataEncryptionActivities(ref);
    await client.listServiceTierAdvisors(ref);
    await client.getServiceTierAdvisor(db("sql-prod-1", "orders"), "Current").catch(() => undefined);
    await client.listElasticPoolActivities(pool("sql-prod-1", "pool-1"));
    await client.listElasticPoolDatabaseActivities(pool("sql-prod-1", "pool-1"));
    const base = `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers`;
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      `GET ${base}/sql-prod-2/databases/inventory/transparentDataEncryption/current?api-version=2014-04-01`,
      `PUT ${base}/sql-prod-2/databases/inventory/transparentDataEncryption/current?api-version=2014-04-01`,
      `GET ${base}/sql-prod-2/databases/inventory/transparentDataEncryption/current/operationResults?api-version=2014-04-01`,
      `GET ${base}/sql-prod-2/databases/inventory/serviceTierAdvisors?api-version=2014-04-01`,
      `GET ${base}/sql-prod-1/databases/orders/serviceTierAdvisors/Current?api-version=2014-04-01`,
      `GET ${base}/sql-prod-1/elasticPools/pool-1/elasticPoolActivity?api-version=2014-04-01`,
      `GET ${base}/sql-prod-1/elasticPools/pool-1/elasticPoolDatabaseActivity?api-version=2014-04-01`,
    ]);
    const body = JSON.parse(sent[1].body!);
    expect(body).toEqual({ properties: { status: "Enabled" } });
    expect(definitionValidator(SQL_SPEC, "/definitions/TransparentDataEncryption")(body)).toEqual({ valid: true, errors: [] });
  });

  it("speaks Provider.Sql with naming: described, and the emulator also takes lower-case microsoft.sql paths", async () => {
    const sent: Sent[] = [];
    const described = h.clientWith({ naming: "described", dispatcher: recordingDispatcher(sent) });
    const ref = db("sql-prod-1", "customers");
    const tde = await described.getTransparentDataEncryption(ref);
    expect(sent[0].path).toContain("/providers/Provider.Sql/servers/sql-prod-1/");
    expect(tde.id).toBe(tdeId(ref)); // ids stay canonical
    expect(await described.listServiceTierAdvisors(ref)).toHaveLength(1);

    const lower = await h.raw(
      "GET",
      `/subscriptions/${SUB}/resourcegroups/RG-DATA/providers/microsoft.sql/servers/SQL-PROD-1/databases/Customers/transparentdataencryption/Current`,
    );
    expect(lower.status).toBe(200);
    expect(lower.body).toEqual(tde);
    const upper = await h.raw(
      "GET",
      `/SUBSCRIPTIONS/${SUB}/RESOURCEGROUPS/rg-data/PROVIDERS/PROVIDER.SQL/SERVERS/sql-prod-1/DATABASES/customers/SERVICETIERADVISORS/CURRENT`,
    );
    expect(upper.status).toBe(200);
  });

  it("404s name the missing resource and the operation", async () => {
    const cases: [Promise<unknown>, string, string][] = [
      [
        h.client.getTransparentDataEncryption(db("sql-prod-1", "ghost")),
        "TransparentDataEncryptions_Get",
        "'Microsoft.Sql/servers/sql-prod-1/databases/ghost'",
      ],
      [
        h.client.getServiceTierAdvisor(db("sql-prod-1", "orders"), "Weekly"),
        "ServiceTierAdvisors_Get",
        "'Microsoft.Sql/servers/sql-prod-1/databases/orders/serviceTierAdvisors/Weekly'",
      ],
      [
        h.client.listElasticPoolActivities(pool("sql-prod-1", "pool-9")),
        "ElasticPoolActivities_ListByElasticPool",
        "'Microsoft.Sql/servers/sql-prod-1/elasticPools/pool-9'",
      ],
      [
        h.client.listTransparentDataEncryptionActivities(db("sql-nowhere", "orders")),
        "TransparentDataEncryptionActivities_ListByConfiguration",
        "'Microsoft.Sql/servers/sql-nowhere'",
      ],
    ];
    for (const [p, operation, name] of cases) {
      const e = (await p.catch((x: unknown) => x)) as ApiError;
      expect(e).toBeInstanceOf(ApiError);
      expect(e).toMatchObject({ status: 404, code: "ResourceNotFound", operation });
      expect(e.message).toContain(name);
      expect(e.message).toContain("resource group 'rg-data'");
    }
    const rg = (await h.client.listServiceTierAdvisors(db("sql-prod-1", "orders", "rg-other")).catch((x: unknown) => x)) as ApiError;
    expect(rg).toMatchObject({ status: 404, code: "ResourceGroupNotFound" });
    expect(rg.message).toContain("'rg-other'");
    const sub = (await h.client
      .listServiceTierAdvisors(db("sql-prod-1", "orders", "rg-data", "11111111-1111-1111-1111-111111111111"))
      .catch((x: unknown) => x)) as ApiError;
    expect(sub).toMatchObject({ status: 404, code: "ResourceGroupNotFound" });
  });

  it("accepts only the api-versions Azure publishes for the operation", async () => {
    const path = `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-prod-1/databases/orders/transparentDataEncryption/current`;
    // 2019-06-01-preview is published for servers and databases, not for TDE.
    expect((await h.raw("GET", path, undefined, "api-version=2019-06-01-preview")).status).toBe(400);
    expect(((await h.raw("GET", path, undefined, "")).body as { error: { code: string } }).error.code).toBe("MissingApiVersionParameter");
  });
});

describe("SqlClient retries", () => {
  it("retries a 503 injected on the GET and succeeds", async () => {
    const h = await startSql(undefined, {
      faults: { rules: [{ match: `/subscriptions/${SUB}/resourceGroups/rg-data`, methods: ["GET"], status: 503, count: 2 }] },
    });
    try {
      const tde = await h.client.getTransparentDataEncryption(db("sql-prod-1", "orders"));
      expect(tde.properties?.status).toBe("Disabled");
      expect(h.emu.faults.injectedCount).toBe(2);
    } finally {
      await h.close();
    }
  });

  it("gives up after its attempts with the 503 as an ApiError", async () => {
    const h = await startSql(undefined, { faults: { maxConsecutive: 0, rules: [{ match: "/subscriptions/", status: 503, rate: 1 }] } });
    try {
      const client = h.clientWith({ retry: { ...FAST_RETRY, maxAttempts: 3 } });
      const e = (await client.getTransparentDataEncryption(db("sql-prod-1", "orders")).catch((x: unknown) => x)) as ApiError;
      expect(e).toMatchObject({ status: 503, code: "ServiceUnavailable", attempts: 3, operation: "TransparentDataEncryptions_Get" });
    } finally {
      await h.close();
    }
  });
});

/** A stand-in service that answers what a drifting real service might: pages, nulls, new enum values, junk. */
const driftingSql: LocalService<Record<string, never>> = {
  name: "driftingsql",
  seedSchema: { type: "object" },
  initialState: () => ({}),
  mount(ctx) {
    const srv = `/subscriptions/:sub/resourceGroups/:rg/providers/Microsoft.Sql/servers`;
    const v = ["2014-04-01"];
    const x = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Sql/servers/srv/databases/d";
    const advisor = (i: number) => ({ id: `${x}/serviceTierAdvisors/a${i}`, name: `a${i}`, properties: { confidence: i / 10 } });
    ctx.arm("GET", `${srv}/paged/databases/:db/serviceTierAdvisors`, v, (req) => armPage(req, [0, 1, 2, 3, 4].map(advisor), 2));
    ctx.arm("GET", `${srv}/drift/databases/:db/transparentDataEncryption/:name`, v, () => ({
      status: 200,
      body: {
        id: `${x}/transparentDataEncryption/current`,
        name: "current",
        location: null,
        properties: { status: "Paused", keyRotation: "auto" },
        systemData: null,
      },
    }));
    ctx.arm("GET", `${srv}/drift/databases/:db/transparentDataEncryption/:name/operationResults`, v, () => ({
      status: 200,
      body: {
        value: [
          {
            id: `${x}/transparentDataEncryption/current/operationResults/current`,
            name: "current",
            properties: { status: "Reencrypting", percentComplete: null },
          },
        ],
        nextLink: null,
      },
    }));
    ctx.arm("GET", `${srv}/noid/databases/:db/transparentDataEncryption/:name`, v, () => ({
      status: 200,
      body: { name: "current", properties: { status: "Enabled" } },
    }));
    ctx.arm("GET", `${srv}/noid/databases/:db/transparentDataEncryption/:name/operationResults`, v, () => ({
      status: 200,
      body: { value: [{ name: "current" }] },
    }));
    ctx.arm("GET", `${srv}/html/databases/:db/transparentDataEncryption/:name`, v, () => ({
      status: 200,
      body: "<html>gateway</html>",
      headers: { "content-type": "text/html" },
    }));
    ctx.arm("GET", `${srv}/badjson/databases/:db/transparentDataEncryption/:name`, v, () => ({
      status: 200,
      body: '{"id":',
      headers: { "content-type": "application/json" },
    }));
  },
};

describe("SqlClient is tolerant in what it receives", () => {
  let h: SqlHarness;
  const logger = recordingLogger();
  let client: SqlClient;
  beforeAll(async () => {
    h = await startSql({}, { services: [imdsLocal as LocalService, driftingSql as LocalService] }, logger);
    client = h.clientWith({ logger });
  });
  afterAll(async () => {
    await h.close();
  });

  it("follows nextLink should a list ever page", async () => {
    const all = await client.listServiceTierAdvisors(db("paged", "d"));
    expect(all.map((a) => a.name)).toEqual(["a0", "a1", "a2", "a3", "a4"]);
  });

  it("hands drifting objects on unchanged and warns once, treating null as absent", async () => {
    const tde = await client.getTransparentDataEncryption(db("drift", "d"));
    expect(tde).toEqual({
      id: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Sql/servers/srv/databases/d/transparentDataEncryption/current",
      name: "current",
      location: null,
      properties: { status: "Paused", keyRotation: "auto" },
      systemData: null,
    });
    await client.getTransparentDataEncryption(db("drift", "d"));
    const tdeWarnings = logger.warnings.filter((w) => w.startsWith("TransparentDataEncryptions_Get"));
    expect(tdeWarnings).toHaveLength(1);
    expect(tdeWarnings[0]).toContain("/properties/status");
    expect(tdeWarnings.join()).not.toContain("location");

    const acts = await client.listTransparentDataEncryptionActivities(db("drift", "d"));
    expect(acts[0].properties).toEqual({ status: "Reencrypting", percentComplete: null });
    const actWarnings = logger.warnings.filter((w) => w.startsWith("TransparentDataEncryptionActivities_ListByConfiguration"));
    expect(actWarnings).toHaveLength(1);
    expect(actWarnings[0]).toContain("Encrypting, Decrypting");
  });

  it("keeps a resource object without an id as the API returned it (with a warning), and refuses a body that is not JSON", async () => {
    const noId = await client.getTransparentDataEncryption(db("noid", "d"));
    expect(noId.id).toBeUndefined();
    expect(noId.properties?.status).toBeDefined();
    expect(logger.warnings.some((w) => w.startsWith("TransparentDataEncryptions_Get") && w.includes("has no id"))).toBe(true);
    const noIdItems = await client.listTransparentDataEncryptionActivities(db("noid", "d"));
    expect(noIdItems).toHaveLength(1);
    expect(noIdItems[0].id).toBeUndefined();
    expect(
      logger.warnings.some((w) => w.startsWith("TransparentDataEncryptionActivities_ListByConfiguration") && w.includes("item 0")),
    ).toBe(true);
    const html = (await client.getTransparentDataEncryption(db("html", "d")).catch((x: unknown) => x)) as ApiError;
    expect(html).toMatchObject({ code: "InvalidResponse" });
    const bad = (await client.getTransparentDataEncryption(db("badjson", "d")).catch((x: unknown) => x)) as ApiError;
    expect(bad).toMatchObject({ code: "InvalidResponse" });
    expect(bad.message).toContain("not valid JSON");
  });
});
