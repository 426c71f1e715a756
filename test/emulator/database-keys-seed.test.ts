import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSeed } from "../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../src/emulator/services";
import { publishedOperation } from "../../src/emulator/kit/published-operations";
import { versionHas } from "../../src/emulator/kit/version-shape";
import { sqlInitialState } from "../../src/emulator/services/sql/sql-local";
import type { SqlSeed } from "../../src/emulator/services/sql/sql-local";
import { responseValidator } from "../../src/platform/schemas/swagger-schemas";
import { SQL_DATABASES_GET, SQL_DATABASES_LIST_BY_SERVER, SQL_DATABASES_SPEC, type Database } from "../../src/services/sql/database-types";
import { YamlInputError } from "../../src/platform/yaml/located-yaml";
import { estate, serverPath, startKeyCustody, type KeyCustodyHarness } from "../services/keyvault/key-custody-kit";

/**
 * Database-level key custody in the emulator (issue 33, item 5): the seed's `encryptionProtector`,
 * `keys` and `identity` on a database, validated and located; Databases_Get answers them in each
 * accepted api-version's shape, valid against the published 2023-02-01-preview schema, and so does
 * Databases_ListByServer (paged); the client reads them.
 */

const ESTATE = join(__dirname, "../fixtures/estates/database-keys.estate.yaml");
/** Every version Azure publishes Databases_Get and Databases_ListByServer in (specs/api-versions/Microsoft.Sql.json). */
const SQL_DATABASE_API_VERSIONS = publishedOperation("Microsoft.Sql", "Databases_Get").apiVersions;
const databaseHas = (version: string, path: string) => versionHas("Microsoft.Sql", "Microsoft.Sql/servers/databases", version, path);
const URI = "https://kv-a.vault.azure.net/keys/tde/0123456789abcdef0123456789abcdef";
const UAI =
  "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-a";

function seedError(text: string): YamlInputError {
  try {
    parseSeed("estate.yaml", text, LOCAL_SERVICES);
  } catch (e) {
    expect(e).toBeInstanceOf(YamlInputError);
    return e as YamlInputError;
  }
  throw new Error("expected the seed to be refused");
}
const db = (fields: string) => `sql:\n  servers:\n    - name: srv\n      resourceGroup: rg\n      databases:\n        - name: d\n${fields}`;

describe("a database's own protector, keys and identity in the seed", () => {
  it("a key URI that is not a Key Vault key's is refused at its line", () => {
    expect(seedError(db(`          encryptionProtector: { keyUri: "http://kv-a.vault.azure.net/keys/tde" }\n`)).message).toMatch(
      /^estate\.yaml:7:\d+: sql\.servers\[0\]\.databases\[0\]\.encryptionProtector\.keyUri: must match pattern/,
    );
  });

  it("two user-assigned identities, an id that is not a user-assigned identity's, and an unknown key are refused", () => {
    const two = `          identity:\n            userAssignedIdentities:\n              "${UAI}": {}\n              "${UAI}-2": {}\n`;
    expect(seedError(db(two)).message).toMatch(
      /^estate\.yaml:9:\d+: sql\.servers\[0\]\.databases\[0\]\.identity\.userAssignedIdentities: must NOT have more than 1 properties/,
    );
    const bad = `          identity:\n            userAssignedIdentities:\n              /subscriptions/x/resourceGroups/rg/providers/Microsoft.Sql/servers/s: {}\n`;
    expect(seedError(db(bad)).message).toMatch(/sql\.servers\[0\]\.databases\[0\]\.identity\.userAssignedIdentities/);
    expect(seedError(db(`          encryptionProtector: { keyUri: "${URI}", serverKeyType: AzureKeyVault }\n`)).message).toMatch(
      /sql\.servers\[0\]\.databases\[0\]\.encryptionProtector\.serverKeyType: unknown key$/,
    );
  });

  it("a protector without a user-assigned identity, and a key declared twice, are refused naming the database", () => {
    const seed = (fields: string) => parseSeed("estate.yaml", db(fields), LOCAL_SERVICES).sql as SqlSeed;
    expect(() => sqlInitialState(seed(`          encryptionProtector: { keyUri: "${URI}" }\n`))).toThrow(
      /^sql\.servers\[0\]\.databases\[0\]\.encryptionProtector: a database's own TDE protector needs a user-assigned identity/,
    );
    expect(() => sqlInitialState(seed(`          keys: [{ uri: "${URI}" }, { uri: "${URI}" }]\n`))).toThrow(
      /^sql\.servers\[0\]\.databases\[0\]\.keys\[1\]\.uri: the key .* is declared twice on this database$/,
    );
  });

  it("the service fills in the identity's principal, client and tenant ids; the protector's key joins the keys", () => {
    const seed = parseSeed(
      "estate.yaml",
      db(
        `          encryptionProtector: { keyUri: "${URI}" }\n          identity:\n            userAssignedIdentities:\n              "${UAI}": {}\n`,
      ),
      LOCAL_SERVICES,
    ).sql as SqlSeed;
    const custody = sqlInitialState(seed).servers[0].databases[0].keyCustody!;
    expect(custody.encryptionProtector).toEqual({ uri: URI, autoRotationEnabled: false });
    expect(custody.keys.map((k) => k.uri)).toEqual([URI]);
    expect(custody.identity).toMatchObject({ type: "UserAssigned", tenantId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(custody.identity!.userAssignedIdentities![UAI]).toEqual({
      principalId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      clientId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });
});

describe("Databases_Get against the database-keys estate", () => {
  let h: KeyCustodyHarness;
  const validate = responseValidator(SQL_DATABASES_SPEC, SQL_DATABASES_GET);
  const path = (database: string) => `${serverPath("sql-dk-shared", "rg-dk-data")}/databases/${database}`;

  beforeAll(async () => {
    h = await startKeyCustody(estate(ESTATE));
  });
  afterAll(async () => {
    await h?.close();
  });

  it("answers each accepted api-version in its shape, valid against the published schema", async () => {
    for (const version of SQL_DATABASE_API_VERSIONS) {
      const res = await h.get(path("billing"), version);
      expect(res.status, version).toBe(200);
      expect(validate(res.body).errors, version).toEqual([]);
      const d = res.body as Database;
      expect(d.identity?.type, version).toBe(databaseHas(version, "identity") ? "UserAssigned" : undefined);
      expect(d.properties?.encryptionProtector, version).toBe(
        databaseHas(version, "properties.encryptionProtector")
          ? "https://kv-dk-remote.vault.azure.net/keys/tde-billing/22222222222222222222222222222222"
          : undefined,
      );
      const rotation = databaseHas(version, "properties.encryptionProtectorAutoRotation") ? true : undefined;
      expect(d.properties?.encryptionProtectorAutoRotation, version).toBe(rotation);
      expect(d.properties?.keys, version).toBeUndefined(); // only with $expand=keys
      // 2014-04-01 names the tier and objective itself; 2017-03-01-preview on carry a sku instead.
      expect(d.properties?.edition, version).toBe(databaseHas(version, "properties.edition") ? "Standard" : undefined);
      expect((d.sku as { name?: string } | undefined)?.name, version).toBe(databaseHas(version, "sku") ? "S0" : undefined);
    }
    expect((await h.get(path("billing"), "2018-06-01-preview")).status).toBe(400);
  });

  it("lists the database-level keys with $expand=keys, as the published example does", async () => {
    const res = await h.get(`${path("billing")}?$expand=keys`, "2023-02-01-preview");
    expect(validate(res.body).errors).toEqual([]);
    const keys = (res.body as Database).properties!.keys!;
    expect(Object.keys(keys).sort()).toEqual([
      "https://kv-dk-remote.vault.azure.net/keys/tde-billing/22222222222222222222222222222222",
      "https://kv-dk-remote.vault.azure.net/keys/tde-billing/33333333333333333333333333333333",
    ]);
    expect(Object.values(keys)[0]).toMatchObject({ type: "AzureKeyVault", thumbprint: expect.stringMatching(/^[0-9A-F]{40}$/) });
  });

  it("a database without its own protector reports none and no identity; master is there too; an unknown one is a 404", async () => {
    const app = (await h.get(path("app"), "2023-02-01-preview")).body as Database;
    expect(app.properties?.encryptionProtector).toBeUndefined();
    expect(app.identity).toBeUndefined();
    expect(app.kind).toBe("v12.0,user");
    expect(((await h.get(path("master"), "2023-02-01-preview")).body as Database).kind).toBe("v12.0,system");
    expect((await h.get(path("nope"), "2023-02-01-preview")).status).toBe(404);
  });

  it("the client reads it (Databases_Get at 2023-02-01-preview) with its receipt", async () => {
    const ref = {
      subscriptionId: "00000000-0000-0000-0000-000000000000",
      resourceGroup: "rg-dk-data",
      server: "sql-dk-shared",
      database: "ledger",
    };
    const r = await h.sql.readDatabase(ref);
    expect(r.value.properties?.encryptionProtector).toBe(
      "https://kv-dk-home.vault.azure.net/keys/tde-ledger/11111111111111111111111111111111",
    );
    expect(r.receipt).toMatchObject({ operation: "Databases_Get", apiVersion: "2023-02-01-preview", status: 200 });
    expect(h.logger.warnings).toEqual([]);
  });
});

describe("Databases_ListByServer against the database-keys estate", () => {
  let h: KeyCustodyHarness;
  const validate = responseValidator(SQL_DATABASES_SPEC, SQL_DATABASES_LIST_BY_SERVER);
  const list = `${serverPath("sql-dk-shared", "rg-dk-data")}/databases`;
  const BILLING_KEY = "https://kv-dk-remote.vault.azure.net/keys/tde-billing/22222222222222222222222222222222";

  beforeAll(async () => {
    // Page size 2: master and the server's three databases take two pages.
    h = await startKeyCustody({ ...estate(ESTATE), emulator: { pageSize: 2 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("pages each accepted api-version, every page valid against the published schema, each item as Databases_Get answers it", async () => {
    for (const version of SQL_DATABASE_API_VERSIONS) {
      const first = await h.get(list, version);
      expect(first.status, version).toBe(200);
      expect(validate(first.body).errors, version).toEqual([]);
      const page1 = first.body as { value: Database[]; nextLink?: string };
      expect(
        page1.value.map((d) => d.name),
        version,
      ).toEqual(["master", "app"]);
      expect(page1.nextLink, version).toMatch(/^http/);
      const next = new URL(page1.nextLink!);
      const second = await h.get(`${next.pathname}${next.search}`);
      expect(validate(second.body).errors, version).toEqual([]);
      const page2 = second.body as { value: Database[]; nextLink?: string };
      expect(
        page2.value.map((d) => d.name),
        version,
      ).toEqual(["ledger", "billing"]);
      expect(page2.nextLink, version).toBeUndefined();
      const billing = (await h.get(`${list}/billing`, version)).body as Database;
      expect(page2.value[1], version).toEqual(billing); // no $expand on the list: no properties.keys, as Get without it
    }
    expect((await h.get(list, "2018-06-01-preview")).status).toBe(400);
    expect((await h.get(`${serverPath("sql-nope", "rg-dk-data")}/databases`, "2023-02-01-preview")).status).toBe(404);
  });

  it("the client lists them all (Databases_ListByServer at 2023-02-01-preview, every page) with a receipt of the list", async () => {
    const server = { subscriptionId: "00000000-0000-0000-0000-000000000000", resourceGroup: "rg-dk-data", server: "sql-dk-shared" };
    const r = await h.sql.listDatabases(server);
    expect(r.value.map((d) => d.name)).toEqual(["master", "app", "ledger", "billing"]);
    expect(r.value[3].properties?.encryptionProtector).toBe(BILLING_KEY);
    expect(r.value[3].identity?.type).toBe("UserAssigned");
    expect(r.receipt).toMatchObject({
      operation: "Databases_ListByServer",
      path: `${serverPath("sql-dk-shared", "rg-dk-data")}/databases`,
      apiVersion: "2023-02-01-preview",
      status: 200,
      requestId: expect.stringMatching(/\S{8,}/),
    });
    expect(h.logger.warnings).toEqual([]);
  });
});
