import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArmOperations } from "../../../src/platform/arm/arm-operations";
import { StaticTokenCredential } from "../../../src/platform/auth/static-token-credential";
import { ApiError } from "../../../src/platform/http/api-error";
import { silentLogger } from "../../../src/platform/http/logger";
import { ARM_READS } from "../../../src/services/arm-reads";
import { FAST_RETRY } from "../../helpers/emulator";
import { json, startScriptedServer, type ScriptedServer } from "../http/scripted-server";

/**
 * The one executor every operation row is sent by: how a row's path template becomes a request
 * path (parameters URI-encoded, fixed ones filled in, a scope sent as it is, the namespace spelt as
 * the client's naming says), lists followed page by page with the receipt of the first, a missing
 * parameter or a read of a PUT refused before anything is sent, and how a failure is classified.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const SERVER = { subscriptionId: SUB, resourceGroupName: "rg one", serverName: "sql/a" };

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await startScriptedServer();
});
afterAll(() => srv?.close());

function ops(naming?: "described") {
  const credential = new StaticTokenCredential("tok-rows");
  return new ArmOperations({ endpoint: srv.url, credential, retry: FAST_RETRY, logger: silentLogger, pacing: false, naming }, ARM_READS);
}

describe("ArmOperations", () => {
  it("fills a row's template: parameters encoded, fixed ones filled in, the row's api-version, the namespace as named", async () => {
    srv.script((_q, res) => json(res, 200, { id: `/subscriptions/${SUB}/x` }));
    const real = ops();
    await real.read("Servers_Get", SERVER);
    await real.read("EncryptionProtectors_Get", SERVER);
    await real.read("TransparentDataEncryptions_Get", { ...SERVER, databaseName: "db 1" });
    await ops("described").read("Servers_Get", SERVER);
    expect(srv.seen.map((r) => r.url)).toEqual([
      `/subscriptions/${SUB}/resourceGroups/rg%20one/providers/Microsoft.Sql/servers/sql%2Fa?api-version=2021-11-01`,
      `/subscriptions/${SUB}/resourceGroups/rg%20one/providers/Microsoft.Sql/servers/sql%2Fa/encryptionProtector/current?api-version=2021-11-01`,
      `/subscriptions/${SUB}/resourceGroups/rg%20one/providers/Microsoft.Sql/servers/sql%2Fa/databases/db%201/transparentDataEncryption/current?api-version=2014-04-01`,
      `/subscriptions/${SUB}/resourceGroups/rg%20one/providers/Provider.Sql/servers/sql%2Fa?api-version=2021-11-01`,
    ]);
    expect(srv.seen[0].headers.authorization).toBe("Bearer tok-rows");
  });

  it("sends a scope or an id that is a path as it is: its own slashes kept, a trailing one dropped, the root leaving none", async () => {
    const role = "/providers/Microsoft.Authorization/roleDefinitions/r1";
    srv.script((q, res) => json(res, 200, q.url.startsWith(role) ? { id: role } : { value: [] }));
    const o = ops();
    const vault = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv`;
    await o.read("RoleAssignments_ListForScope", { scope: `${vault}/` });
    await o.read("RoleAssignments_ListForScope", { scope: "/" });
    await o.read("RoleDefinitions_GetById", { roleId: role });
    expect(srv.seen.map((r) => r.url)).toEqual([
      `${vault}/providers/Microsoft.Authorization/roleAssignments?api-version=2022-04-01`,
      "/providers/Microsoft.Authorization/roleAssignments?api-version=2022-04-01",
      `${role}?api-version=2022-04-01`,
    ]);
  });

  it("a list is every page, with the receipt of its first; `get` gives the items alone", async () => {
    const path = `/subscriptions/${SUB}/providers/Microsoft.KeyVault/vaults`;
    srv.script((q, res) =>
      q.url.includes("page=2")
        ? json(res, 200, { value: [{ id: `${path}/b` }] })
        : json(res, 200, { value: [{ id: `${path}/a` }], nextLink: `${srv.url}${path}?page=2` }, { "x-ms-request-id": "first-page" }),
    );
    const read = await ops().read("Vaults_ListBySubscription", { subscriptionId: SUB });
    expect(read.value.map((v) => v.id)).toEqual([`${path}/a`, `${path}/b`]);
    expect(read.receipt).toMatchObject({ operation: "Vaults_ListBySubscription", path, apiVersion: "2023-07-01", requestId: "first-page" });
    expect((await ops().get("Vaults_ListBySubscription", { subscriptionId: SUB })).map((v) => v.id)).toEqual([`${path}/a`, `${path}/b`]);
  });

  it("refuses, before sending anything, a missing parameter and a read of a PUT row", async () => {
    srv.script((_q, res) => json(res, 200, {}));
    const o = ops();
    expect(() => o.read("Servers_Get", { ...SERVER, serverName: "" })).toThrow(
      'Servers_Get: the parameter serverName must be a non-empty string (got "")',
    );
    expect(() => o.read("TransparentDataEncryptions_CreateOrUpdate" as "Servers_Get", SERVER)).toThrow(/is a PUT, not a read/);
    expect(() => o.read("Nothing_Get" as "Servers_Get", SERVER)).toThrow(/no operation "Nothing_Get"/);
    expect(srv.seen).toEqual([]);
  });

  it("tells the cloud's answer about the resource (any HTTP error but 401) from everything else", async () => {
    srv.script((_q, res) =>
      json(res, 404, { error: { code: "ResourceNotFound", message: "The server 'sql/a' was not found." } }, { "x-ms-request-id": "r-404" }),
    );
    const o = ops();
    const gone = await o.read("Servers_Get", SERVER).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ApiError);
    expect(o.failureOf(gone)).toEqual({
      status: 404,
      code: "ResourceNotFound",
      message: "The server 'sql/a' was not found.",
      operation: "Servers_Get",
      requestId: "r-404",
    });
    srv.script((_q, res) => json(res, 401, { error: { code: "InvalidAuthenticationToken", message: "no" } }));
    expect(o.failureOf(await o.read("Servers_Get", SERVER).catch((e: unknown) => e))).toBeUndefined();
    expect(o.failureOf(new Error("a bug"))).toBeUndefined();
  });
});
