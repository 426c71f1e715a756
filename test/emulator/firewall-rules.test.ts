import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlInitialState, type SqlSeed } from "../../src/emulator/services/sql/sql-local";
import { responseValidator } from "../../src/platform/schemas/swagger-schemas";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";

/**
 * FirewallRules_ListByServer: the resource module added as docs/contributing.md's "Adding an emulator
 * resource" says (one module in resources/, no registry line; its versions recorded in specs/api-versions):
 * seeded per server, listed and paged, valid against the published 2021-11-01 schema, each version
 * in its own shape.
 */

const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `emulator:
  pageSize: 1
sql:
  servers:
    - name: sql-fw
      resourceGroup: rg-fw
      firewallRules:
        - { name: AllowAllWindowsAzureIps, startIpAddress: 0.0.0.0, endIpAddress: 0.0.0.0 }
        - { name: office, startIpAddress: 203.0.113.0, endIpAddress: 203.0.113.255 }
    - name: sql-closed
      resourceGroup: rg-fw
`;
const LIST = `/subscriptions/${SUB}/resourceGroups/rg-fw/providers/Microsoft.Sql/servers/sql-fw/firewallRules`;
const validate = responseValidator("sql/Microsoft.Sql/stable/2021-11-01/FirewallRules.json", "FirewallRules_ListByServer");

let t: TestEmulator;
let token: string;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  token = (await t.credential.getToken("https://management.azure.com/.default"))!.token;
});
afterAll(() => t?.close());

async function get(url: string): Promise<{ status: number; body: { value: Record<string, unknown>[]; nextLink?: string } }> {
  const res = await fetch(url.startsWith("http") ? url : `${t.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as { value: Record<string, unknown>[]; nextLink?: string } };
}

describe("FirewallRules_ListByServer", () => {
  it("lists a server's seeded rules in seed order, paged, each page valid against the published schema", async () => {
    const first = await get(`${LIST}?api-version=2021-11-01`);
    expect(first.status).toBe(200);
    expect(validate(first.body).errors).toEqual([]);
    const second = await get(first.body.nextLink!);
    expect(validate(second.body).errors).toEqual([]);
    expect(second.body.nextLink).toBeUndefined();
    expect([...first.body.value, ...second.body.value]).toEqual([
      {
        id: `/subscriptions/${SUB}/resourceGroups/rg-fw/providers/Microsoft.Sql/servers/sql-fw/firewallRules/AllowAllWindowsAzureIps`,
        name: "AllowAllWindowsAzureIps",
        type: "Microsoft.Sql/servers/firewallRules",
        properties: { startIpAddress: "0.0.0.0", endIpAddress: "0.0.0.0" },
      },
      expect.objectContaining({ name: "office", properties: { startIpAddress: "203.0.113.0", endIpAddress: "203.0.113.255" } }),
    ]);
  });

  it("answers 2014-04-01 in its shape (kind and location), a server without rules with none, an unknown server with a 404", async () => {
    const old = await get(`${LIST}?api-version=2014-04-01`);
    expect(old.body.value[0]).toMatchObject({ kind: "v12.0", location: "East US" });
    expect((await get(`${LIST.replace("sql-fw", "sql-closed")}?api-version=2021-11-01`)).body).toEqual({ value: [] });
    expect((await get(`${LIST.replace("sql-fw", "sql-none")}?api-version=2021-11-01`)).status).toBe(404);
  });

  it("refuses a rule that is not IPv4, at its line, and a name declared twice on a server", () => {
    expect(() =>
      seedFromYaml(
        `sql:\n  servers:\n    - name: s\n      resourceGroup: rg\n      firewallRules:\n        - { name: a, startIpAddress: 10.0.0.256, endIpAddress: 10.0.0.1 }\n`,
      ),
    ).toThrow(/^inline-seed\.yaml:6:\d+: sql\.servers\[0\]\.firewallRules\[0\]\.startIpAddress: must match pattern/);
    const twice = seedFromYaml(
      `sql:\n  servers:\n    - name: s\n      resourceGroup: rg\n      firewallRules:\n        - { name: a, startIpAddress: 10.0.0.1, endIpAddress: 10.0.0.1 }\n        - { name: A, startIpAddress: 10.0.0.2, endIpAddress: 10.0.0.2 }\n`,
    ).sql as SqlSeed;
    expect(() => sqlInitialState(twice)).toThrow('sql.servers[0].firewallRules[1].name: firewall rule "A" is declared twice on server "s"');
  });
});
