import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KeyVaultManagementClient } from "@azure/arm-keyvault";
import { SqlManagementClient } from "@azure/arm-sql";
import type { TokenCredential } from "@azure/core-auth";
import type { Pipeline } from "@azure/core-rest-pipeline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishedOperation } from "../../src/emulator/kit/published-operations";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";

/**
 * Azure's JS SDKs, at the api-versions they send by default, read the default estate from the
 * emulator (issue 40, item 12): @azure/arm-sql 10.0.0 (servers, databases and TDE at
 * 2022-08-01-preview, protectors and keys at 2020-11-01-preview, pool activities at 2014-04-01) and
 * @azure/arm-keyvault 5.0.0 (2026-02-01, which the emulator refused before). Each request's version is
 * recorded on the way out, so the test also proves which versions were sent.
 */

const SUB = "00000000-0000-0000-0000-000000000000";
const ARM_SCOPE = "https://management.azure.com/.default";

let t: TestEmulator;
const sent: { path: string; version: string }[] = [];

beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(readFileSync(join(__dirname, "../../stacks/dev.estate.yaml"), "utf8")) });
});
afterAll(() => t?.close());

const credential: TokenCredential = {
  getToken: async () => {
    const tk = await t.credential.getToken(ARM_SCOPE);
    return { token: tk!.token, expiresOnTimestamp: tk!.expiresOnTimestamp };
  },
};

/** The SDK's own pipeline over the emulator's plain http: the bearer policy refuses http, so a policy sets the same header. */
function overHttp<C extends { pipeline: Pipeline }>(client: C): C {
  client.pipeline.removePolicy({ name: "bearerTokenAuthenticationPolicy" });
  client.pipeline.addPolicy({
    name: "emulatorBearerAndVersionLog",
    sendRequest: async (req, next) => {
      req.headers.set("authorization", `Bearer ${(await credential.getToken(ARM_SCOPE))!.token}`);
      const url = new URL(req.url);
      sent.push({ path: url.pathname, version: url.searchParams.get("api-version") ?? "" });
      return next(req);
    },
  });
  return client;
}

const options = () => ({ endpoint: t.url, allowInsecureConnection: true, retryOptions: { maxRetries: 0 } });
const versionsSentTo = (pathEnd: RegExp) => [...new Set(sent.filter((s) => pathEnd.test(s.path)).map((s) => s.version))];

describe("@azure/arm-sql 10.0.0 at its default api-versions", () => {
  it("gets a server, its databases, a TDE configuration, the protector, the keys and a pool's activities", async () => {
    const sql = overHttp(new SqlManagementClient(credential, SUB, options()));
    const server = await sql.servers.get("rg-data", "sql-prod-1");
    expect(server).toMatchObject({ name: "sql-prod-1", fullyQualifiedDomainName: "sql-prod-1.database.windows.net" });
    const dbs = [];
    for await (const d of sql.databases.listByServer("rg-data", "sql-prod-1")) dbs.push(d.name);
    expect(dbs).toContain("customers");
    const customers = await sql.databases.get("rg-data", "sql-prod-1", "customers");
    expect(customers.encryptionProtector).toMatch(/^https:\/\/kv-prod-tde\.vault\.azure\.net\/keys\/customers-tde\//);
    const tde = await sql.transparentDataEncryptions.get("rg-data", "sql-prod-1", "orders", "current");
    expect(tde.state).toMatch(/^(Enabled|Disabled)$/);
    const protector = await sql.encryptionProtectors.get("rg-data", "sql-prod-1", "current");
    expect(protector).toMatchObject({ serverKeyType: "AzureKeyVault", autoRotationEnabled: expect.any(Boolean) });
    const keys = [];
    for await (const k of sql.serverKeys.listByServer("rg-data", "sql-prod-1")) keys.push(k.name);
    expect(keys[0]).toBe("ServiceManaged");
    const activities = [];
    for await (const a of sql.elasticPoolActivities.listByElasticPool("rg-data", "sql-prod-1", "pool-1")) activities.push(a);
    expect(activities.length).toBeGreaterThanOrEqual(0);

    expect(versionsSentTo(/\/servers\/sql-prod-1$/)).toEqual(["2022-08-01-preview"]);
    expect(versionsSentTo(/\/databases(\/customers)?$/)).toEqual(["2022-08-01-preview"]);
    expect(versionsSentTo(/\/transparentDataEncryption\/current$/)).toEqual(["2022-08-01-preview"]);
    expect(versionsSentTo(/\/(encryptionProtector\/current|keys)$/)).toEqual(["2020-11-01-preview"]);
    expect(versionsSentTo(/\/elasticPoolActivity$/)).toEqual(["2014-04-01"]);
  });
});

describe("@azure/arm-keyvault 5.0.0 at its default api-version", () => {
  it("gets a vault, its key and a managed HSM at 2026-02-01, a version Azure publishes", async () => {
    const kv = overHttp(new KeyVaultManagementClient(credential, SUB, options()));
    const vault = await kv.vaults.get("rg-security", "kv-prod-tde");
    expect(vault.properties).toMatchObject({ enableSoftDelete: true, enablePurgeProtection: true, softDeleteRetentionInDays: 90 });
    const key = await kv.keys.get("rg-security", "kv-prod-tde", "sql-prod-1-tde");
    expect(key).toMatchObject({ kty: "RSA-HSM", keySize: 3072 });
    const hsm = await kv.managedHsms.get("rg-security", "hsm-prod-tde");
    expect(hsm?.properties?.enablePurgeProtection).toBe(true);
    const versions = versionsSentTo(/\/(vaults\/kv-prod-tde|keys\/sql-prod-1-tde|managedHSMs\/hsm-prod-tde)$/);
    expect(versions).toEqual(["2026-02-01"]);
    expect(publishedOperation("Microsoft.KeyVault", "Vaults_Get").apiVersions).toContain("2026-02-01");
  });
});
