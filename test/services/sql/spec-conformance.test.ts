import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Ajv from "ajv";
import { readSpec, responseValidator } from "../../../src/platform/schemas/swagger-schemas";
import { SQL_OPERATIONS, SQL_SPEC, type SqlOperation } from "../../../src/services/sql/types";
import type { SeedDocument } from "../../../src/emulator/seed";
import { db, dbPath, estateSeed, pool, poolPath, startSql, type SqlHarness } from "./sql-test-kit";
import { seedFromYaml } from "../../helpers/emulator";

/**
 * Every response the emulator sends for each of the seven operations validates against the
 * published schema of that operation, for several estates. sql.core.json declares no `default`
 * (error) response for any of them, so error bodies are checked against ARM's common error shape.
 */

const validators = new Map<SqlOperation, ReturnType<typeof responseValidator>>();
function expectSpecValid(op: SqlOperation, body: unknown): void {
  let v = validators.get(op);
  if (!v) validators.set(op, (v = responseValidator(SQL_SPEC, op)));
  const check = v(body);
  expect(check.errors, `${op}: ${JSON.stringify(body).slice(0, 300)}`).toEqual([]);
}

const armErrorShape = new Ajv({ allErrors: true }).compile({
  type: "object",
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string", minLength: 1 }, message: { type: "string", minLength: 1 } },
    },
  },
});
function expectArmError(res: { status: number; body: unknown }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(armErrorShape(res.body), JSON.stringify(armErrorShape.errors)).toBe(true);
  expect((res.body as { error: { code: string } }).error.code).toBe(code);
}

/** A pool with many activities, databases in it, several advisors, defaults everywhere else. */
function busyPoolSeed(): SeedDocument {
  const activities = Array.from({ length: 120 }, (_, i) => ({
    operation: i % 2 ? "UPDATE" : "CREATE",
    state: i === 119 ? "IN_PROGRESS" : "COMPLETED",
    percentComplete: i === 119 ? 35 : 100,
    startTime: `2024-01-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00Z`,
    requestedDtu: 100 + i,
    ...(i % 10 === 0
      ? { errorCode: 40544, errorMessage: "The database has reached its size quota.", errorSeverity: 16, state: "FAILED" }
      : {}),
  }));
  const databaseActivities = Array.from({ length: 60 }, (_, i) => ({
    databaseName: `member-${i % 3}`,
    operation: "UPDATE",
    state: "COMPLETED",
    percentComplete: 100,
    currentServiceObjective: "ElasticPool",
    requestedServiceObjective: "ElasticPool",
    requestedElasticPoolName: "busy",
  }));
  return seedFromYaml(
    JSON.stringify({
      sql: {
        servers: [
          {
            name: "sql-busy",
            resourceGroup: "rg-busy",
            location: "Japan East",
            elasticPools: [{ name: "busy", activities, databaseActivities }, { name: "idle" }],
            databases: [
              { name: "member-0", elasticPool: "busy", transparentDataEncryption: "Enabled" },
              { name: "member-1", elasticPool: "busy", serviceTierAdvisors: [{}] },
              {
                name: "standalone",
                serviceObjective: "P1",
                serviceTierAdvisors: [
                  { name: "Current", overallRecommendationServiceLevelObjective: "P2", confidence: 0.5 },
                  {
                    name: "Weekly",
                    serviceLevelObjectiveUsageMetrics: [
                      { serviceLevelObjective: "P1" },
                      { serviceLevelObjective: "P2", inRangeTimeRatio: 0.4 },
                    ],
                  },
                  {
                    name: "Sized",
                    databaseSizeBasedRecommendationServiceLevelObjective: "P4",
                    disasterPlanBasedRecommendationServiceLevelObjective: "P2",
                    usageBasedRecommendationServiceLevelObjective: "P1",
                    currentServiceLevelObjective: "P1",
                    overallRecommendationServiceLevelObjectiveId: "7203483a-c4fb-4304-9e9f-17c71c904f5d",
                    overallRecommendationServiceLevelObjective: "P4",
                  },
                ],
              },
            ],
          },
        ],
      },
    }),
  );
}

const VARIANTS: { name: string; seed: () => SeedDocument; dbs: ReturnType<typeof db>[]; pools: ReturnType<typeof pool>[] }[] = [
  {
    name: "the example estate",
    seed: estateSeed,
    dbs: [
      db("sql-prod-1", "orders"),
      db("sql-prod-1", "customers"),
      db("sql-prod-1", "analytics"),
      db("sql-prod-2", "audit"),
      db("sql-prod-2", "master"),
    ],
    pools: [pool("sql-prod-1", "pool-1")],
  },
  {
    name: "a busy pool, pooled databases, several advisors",
    seed: busyPoolSeed,
    dbs: ["member-0", "member-1", "standalone", "master"].map((d) => db("sql-busy", d, "rg-busy")),
    pools: [pool("sql-busy", "busy", "rg-busy"), pool("sql-busy", "idle", "rg-busy")],
  },
];

describe.each(VARIANTS)("responses conform to sql.core.json: $name", ({ seed, dbs, pools }) => {
  let h: SqlHarness;
  beforeAll(async () => {
    h = await startSql(seed());
  });
  afterAll(async () => {
    await h.close();
  });

  it("ServiceTierAdvisors_ListByDatabase and ServiceTierAdvisors_Get", async () => {
    let advisors = 0;
    for (const ref of dbs) {
      const res = await h.raw("GET", `${dbPath(ref)}/serviceTierAdvisors`);
      expect(res.status).toBe(200);
      expectSpecValid(SQL_OPERATIONS.listServiceTierAdvisors, res.body);
      expect(res.body).not.toHaveProperty("nextLink");
      for (const a of (res.body as { value: { name: string }[] }).value) {
        advisors += 1;
        const one = await h.raw("GET", `${dbPath(ref)}/serviceTierAdvisors/${a.name}`);
        expect(one.status).toBe(200);
        expectSpecValid(SQL_OPERATIONS.getServiceTierAdvisor, one.body);
        expect(one.body).toEqual(a);
      }
    }
    expect(advisors).toBeGreaterThan(0);
  });

  it("ElasticPoolActivities_ListByElasticPool and ElasticPoolDatabaseActivities_ListByElasticPool", async () => {
    for (const ref of pools) {
      const a = await h.raw("GET", `${poolPath(ref)}/elasticPoolActivity`);
      expect(a.status).toBe(200);
      expectSpecValid(SQL_OPERATIONS.listElasticPoolActivities, a.body);
      const d = await h.raw("GET", `${poolPath(ref)}/elasticPoolDatabaseActivity`);
      expect(d.status).toBe(200);
      expectSpecValid(SQL_OPERATIONS.listElasticPoolDatabaseActivities, d.body);
      expect(a.body).not.toHaveProperty("nextLink");
    }
  });

  it("TransparentDataEncryptions_Get, _CreateOrUpdate and TransparentDataEncryptionActivities_ListByConfiguration, before, during and after a scan", async () => {
    for (const ref of dbs) {
      const tde = `${dbPath(ref)}/transparentDataEncryption/current`;
      const got = await h.raw("GET", tde);
      expect(got.status).toBe(200);
      expectSpecValid(SQL_OPERATIONS.getTransparentDataEncryption, got.body);
      const before = await h.raw("GET", `${tde}/operationResults`);
      expectSpecValid(SQL_OPERATIONS.listTransparentDataEncryptionActivities, before.body);
      if (ref.database === "master") continue;
      const status = (got.body as { properties: { status: string } }).properties.status;
      const put = await h.raw("PUT", tde, { properties: { status: status === "Enabled" ? "Disabled" : "Enabled" } });
      expect(put.status).toBe(200);
      expectSpecValid(SQL_OPERATIONS.putTransparentDataEncryption, put.body);
      const during = await h.raw("GET", `${tde}/operationResults`);
      expectSpecValid(SQL_OPERATIONS.listTransparentDataEncryptionActivities, during.body);
      expect((during.body as { value: unknown[] }).value).toHaveLength(1);
      const same = await h.raw("PUT", tde, { properties: { status: status === "Enabled" ? "Disabled" : "Enabled" } });
      expectSpecValid(SQL_OPERATIONS.putTransparentDataEncryption, same.body);
    }
    h.emu.advanceClock(60_000);
    for (const ref of dbs) {
      const after = await h.raw("GET", `${dbPath(ref)}/transparentDataEncryption/current/operationResults`);
      expectSpecValid(SQL_OPERATIONS.listTransparentDataEncryptionActivities, after.body);
      expect(after.body).toEqual({ value: [] });
    }
  });

  it("error bodies have ARM's { error: { code, message } } shape (the spec declares no default response)", async () => {
    const ref = dbs[0];
    expectArmError(
      await h.raw("GET", `${dbPath({ ...ref, database: "nope" })}/transparentDataEncryption/current`),
      404,
      "ResourceNotFound",
    );
    expectArmError(await h.raw("GET", `${dbPath({ ...ref, resourceGroup: "rg-nope" })}/serviceTierAdvisors`), 404, "ResourceGroupNotFound");
    expectArmError(
      await h.raw("GET", `${dbPath(ref)}/transparentDataEncryption/current`, undefined, "api-version=2019-06-01-preview"),
      400,
      "InvalidApiVersionParameter",
    );
    expectArmError(
      await h.raw("PUT", `${dbPath(ref)}/transparentDataEncryption/current`, { properties: { status: "Paused" } }),
      400,
      "InvalidParameterValue",
    );
    expectArmError(
      await h.raw("PUT", `${dbPath({ ...ref, database: "master" })}/transparentDataEncryption/current`, {
        properties: { status: "Enabled" },
      }),
      400,
      "OperationNotSupportedOnMasterDatabase",
    );
    expectArmError(await h.raw("GET", `${poolPath(pools[0])}x/elasticPoolActivity`), 404, "ResourceNotFound");
  });
});

describe("the spec itself", () => {
  it("declares no default (error) response for the seven operations, and 200 + 201 for the PUT", () => {
    const doc = readSpec(SQL_SPEC) as {
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
    };
    const ops = Object.values(doc.paths).flatMap((m) => Object.values(m));
    for (const op of Object.values(SQL_OPERATIONS)) {
      const found = ops.find((o) => o.operationId === op)!;
      expect(found, op).toBeDefined();
      expect(Object.keys(found.responses)).not.toContain("default");
    }
    expect(Object.keys(ops.find((o) => o.operationId === SQL_OPERATIONS.putTransparentDataEncryption)!.responses).sort()).toEqual([
      "200",
      "201",
    ]);
  });
});
