import { describe, expect, it } from "vitest";
import { YamlInputError } from "../../../src/platform/yaml/located-yaml";
import { sqlInitialState, sqlLocal } from "../../../src/emulator/services/sql/sql-local";
import type { SqlSeed } from "../../../src/emulator/services/sql/sql-local";
import { seedFromYaml } from "../../helpers/emulator";
import { estateSeed } from "./sql-test-kit";

function seedError(yaml: string): YamlInputError {
  try {
    seedFromYaml(yaml);
  } catch (e) {
    if (e instanceof YamlInputError) return e;
    throw e;
  }
  throw new Error("the seed was accepted");
}

describe("the sql: seed section", () => {
  it("accepts the example estate and fills in the documented defaults", () => {
    const state = sqlInitialState(estateSeed().sql as SqlSeed);
    expect(state.scanDurationMs).toBe(2000);
    expect(state.servers.map((s) => s.name)).toEqual(["sql-prod-1", "sql-prod-2"]);
    const [p1, p2] = state.servers;
    expect(p1.subscriptionId).toBe("00000000-0000-0000-0000-000000000000");
    expect(p1.databases.find((d) => d.name === "analytics")).toMatchObject({
      serviceObjective: "ElasticPool",
      edition: "Standard",
      elasticPool: "pool-1",
    });
    expect(p2.databases.find((d) => d.name === "audit")).toMatchObject({
      transparentDataEncryption: "Disabled",
      serviceObjective: "P1",
      edition: "Premium",
      scan: { durationMs: 4000 },
    });
    expect(p1.databases.find((d) => d.name === "customers")!.serviceTierAdvisors[0].name).toBe("Current");
    expect(JSON.parse(JSON.stringify(state))).toEqual(state); // plain JSON
  });

  it("is empty without a section", () => {
    expect(sqlLocal.initialState(undefined)).toEqual({ scanDurationMs: 2000, servers: [] });
  });

  it("rejects an unknown key, at its line and column", () => {
    const e = seedError(`sql:
  servers:
    - name: sql-a
      resourceGroup: rg
      databases:
        - name: orders
          encryption: Enabled
`);
    expect(e.message).toBe("inline-seed.yaml:7:11: sql.servers[0].databases[0].encryption: unknown key");
  });

  it("rejects a wrong enum value, naming the allowed ones", () => {
    const e = seedError(`sql:
  servers:
    - name: sql-a
      resourceGroup: rg
      databases:
        - { name: orders, transparentDataEncryption: On }
`);
    expect(e.line).toBe(6);
    expect(e.keyPath).toBe("sql.servers[0].databases[0].transparentDataEncryption");
    expect(e.problem).toBe('must be one of "Enabled", "Disabled"');
  });

  it.each([
    ["a scan outcome", "scan: { outcome: explode }", "sql.servers[0].databases[0].scan.outcome"],
    ["a service objective", "serviceObjective: S5", "sql.servers[0].databases[0].serviceObjective"],
    ["a confidence above 1", "serviceTierAdvisors: [{ confidence: 1.5 }]", "sql.servers[0].databases[0].serviceTierAdvisors[0].confidence"],
    [
      "a date without a zone",
      "serviceTierAdvisors: [{ observationPeriodEnd: '2024-05-01T00:00:00' }]",
      "sql.servers[0].databases[0].serviceTierAdvisors[0].observationPeriodEnd",
    ],
  ])("rejects %s", (_what, field, keyPath) => {
    const e = seedError(
      `sql:\n  servers:\n    - name: sql-a\n      resourceGroup: rg\n      databases:\n        - name: orders\n          ${field}\n`,
    );
    expect(e.keyPath).toBe(keyPath);
    expect(e.line).toBeGreaterThanOrEqual(7);
  });

  it("rejects a declared master, an upper-case server name and a missing resource group", () => {
    expect(seedError("sql:\n  servers:\n    - { name: sql-a, resourceGroup: rg, databases: [{ name: Master }] }\n").keyPath).toBe(
      "sql.servers[0].databases[0].name",
    );
    expect(seedError("sql:\n  servers:\n    - { name: SQL-A, resourceGroup: rg }\n").keyPath).toBe("sql.servers[0].name");
    expect(seedError("sql:\n  servers:\n    - { name: sql-a }\n").problem).toBe('missing required key "resourceGroup"');
  });

  it("rejects what the schema cannot express, naming the key path", () => {
    const build = (yaml: string) => () => sqlInitialState(seedFromYaml(yaml).sql as SqlSeed);
    expect(build("sql:\n  servers:\n    - { name: sql-a, resourceGroup: rg, databases: [{ name: d, elasticPool: p }] }\n")).toThrow(
      'sql.servers[0].databases[0].elasticPool: server "sql-a" has no elastic pool "p"',
    );
    expect(build("sql:\n  servers:\n    - { name: sql-a, resourceGroup: rg, databases: [{ name: d }, { name: D }] }\n")).toThrow(
      'sql.servers[0].databases[1].name: database "D" is declared twice',
    );
    expect(build("sql:\n  servers:\n    - { name: sql-a, resourceGroup: rg }\n    - { name: sql-a, resourceGroup: rg2 }\n")).toThrow(
      'sql.servers[1].name: server "sql-a" is declared twice (also at sql.servers[0])',
    );
    expect(
      build(
        "sql:\n  servers:\n    - name: sql-a\n      resourceGroup: rg\n      databases: [{ name: d, serviceTierAdvisors: [{}, { name: current }] }]\n",
      ),
    ).toThrow('advisor "current" is declared twice');
  });
});
