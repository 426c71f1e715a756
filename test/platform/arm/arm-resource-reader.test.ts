import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArmResourceReader } from "../../../src/platform/arm/arm-resource-reader";
import { tdeConfigurationId } from "../../../src/platform/arm/resource-id";
import { StaticTokenCredential } from "../../../src/platform/auth/static-token-credential";
import { ApiError } from "../../../src/platform/http/api-error";
import { silentLogger, type Logger } from "../../../src/platform/http/logger";
import { SqlClient } from "../../../src/services/sql/client";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { json, startScriptedServer, type ScriptedServer } from "../http/scripted-server";

/**
 * The generic Resource Manager read a fact kind may use for a resource no service client reads:
 * the typed clients' token, retries, receipts and tolerant reading, against the emulator and a
 * scripted server.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-read
      resourceGroup: rg-read
      location: West Europe
      databases:
        - { name: orders, transparentDataEncryption: Enabled }
`;
const REF = { subscriptionId: SUB, resourceGroup: "rg-read", server: "sql-read", database: "orders" };

let t: TestEmulator;
let srv: ScriptedServer;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  srv = await startScriptedServer();
});
afterAll(async () => {
  await srv?.close();
  await t?.close();
});

describe("ArmResourceReader", () => {
  it("reads what the typed client reads, with the receipt of the read, at the api-version asked", async () => {
    const options = { endpoint: t.url, credential: t.credential, retry: FAST_RETRY, logger: silentLogger };
    const reader = new ArmResourceReader(options);
    const read = await reader.read({
      operation: "TransparentDataEncryptions_Get",
      path: tdeConfigurationId(REF, reader.style),
      apiVersion: "2014-04-01",
    });
    const typed = await new SqlClient(options).readTransparentDataEncryption(REF);
    expect(read.value).toEqual(typed.value);
    expect(read.value).toMatchObject({ location: "West Europe", properties: { status: "Enabled" } });
    expect(read.receipt).toMatchObject({
      operation: "TransparentDataEncryptions_Get",
      path: tdeConfigurationId(REF),
      apiVersion: "2014-04-01",
      status: 200,
      requestId: expect.any(String),
    });
  });

  it("a 404 and an api-version the service does not speak fail with the operation's name and Resource Manager's code", async () => {
    const reader = new ArmResourceReader({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY, logger: silentLogger });
    const gone = (await reader
      .read({
        operation: "TransparentDataEncryptions_Get",
        path: tdeConfigurationId({ ...REF, database: "nope" }),
        apiVersion: "2014-04-01",
      })
      .catch((e: unknown) => e)) as ApiError;
    expect(gone).toBeInstanceOf(ApiError);
    expect([gone.status, gone.operation]).toEqual([404, "TransparentDataEncryptions_Get"]);
    const version = (await reader
      .read({ operation: "TransparentDataEncryptions_Get", path: tdeConfigurationId(REF), apiVersion: "1999-01-01" })
      .catch((e: unknown) => e)) as ApiError;
    expect([version.status, version.code]).toEqual([400, "InvalidApiVersionParameter"]);
  });

  it("sends the bearer token and the api-version; keeps an object without an id with one warning; refuses a body that is not an object", async () => {
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, warn: (l) => warnings.push(l), debugEnabled: false };
    const reader = new ArmResourceReader({
      endpoint: srv.url,
      credential: new StaticTokenCredential("tok-generic-read"),
      retry: FAST_RETRY,
      logger,
      pacing: false,
    });
    srv.script((_q, res) => json(res, 200, { name: "no-id", properties: { minimalTlsVersion: null } }));
    const read = await reader.read({ operation: "Things_Get", path: "/subscriptions/s1/things/no-id", apiVersion: "2021-11-01" });
    expect(read.value).toEqual({ name: "no-id", properties: { minimalTlsVersion: null } });
    expect(srv.seen[0].url).toBe("/subscriptions/s1/things/no-id?api-version=2021-11-01");
    expect(srv.seen[0].headers.authorization).toBe("Bearer tok-generic-read");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Things_Get: the response of .* named 'no-id' has no id/);

    srv.script((_q, res) => json(res, 200, ["not", "an", "object"]));
    const e = (await reader
      .read({ operation: "Things_Get", path: "/subscriptions/s1/things/list", apiVersion: "2021-11-01" })
      .catch((x: unknown) => x)) as ApiError;
    expect([e.code, e.operation]).toEqual(["InvalidResponse", "Things_Get"]);
    expect(e.detail).toMatch(/an array, not an object/);
  });
});
