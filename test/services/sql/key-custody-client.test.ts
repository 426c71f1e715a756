import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/platform/http";
import { sqlServerId } from "../../../src/platform/arm/resource-id";
import { parseKeyVaultKeyUri } from "../../../src/services/keyvault/key-uri";
import { SqlClient } from "../../../src/services/sql/client";
import { definitionValidator } from "../../../src/platform/schemas/swagger-schemas";
import { SQL_ENCRYPTION_PROTECTORS_SPEC } from "../../../src/services/sql/key-custody-types";
import { recordingDispatcher, server, startKeyCustody, SUB, type KeyCustodyHarness } from "../keyvault/key-custody-kit";

describe("SqlClient key custody against the key-custody estate", () => {
  let h: KeyCustodyHarness;
  beforeAll(async () => {
    h = await startKeyCustody();
  });
  afterAll(async () => {
    await h.close();
  });

  it("reads who holds each server's TDE protector: Azure (ServiceManaged) or a Key Vault key (AzureKeyVault)", async () => {
    const sm = await h.sql.getEncryptionProtector(server("sql-kc-service-managed"));
    expect(sm).toEqual({
      id: `${sqlServerId(server("sql-kc-service-managed"))}/encryptionProtector/current`,
      name: "current",
      type: "Microsoft.Sql/servers/encryptionProtector",
      kind: "servicemanaged",
      location: "West Europe",
      properties: { serverKeyName: "ServiceManaged", serverKeyType: "ServiceManaged", autoRotationEnabled: false },
    });
    const cmk = await h.sql.getEncryptionProtector(server("sql-kc-healthy"));
    expect(cmk).toMatchObject({
      kind: "azurekeyvault",
      properties: {
        serverKeyName: "kv-kc-healthy_tde-healthy_0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        serverKeyType: "AzureKeyVault",
        uri: "https://kv-kc-healthy.vault.azure.net/keys/tde-healthy/0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        thumbprint: expect.stringMatching(/^[0-9A-F]{40}$/),
        // The client reads the protector at 2021-11-01, which carries the server's auto-rotation.
        autoRotationEnabled: true,
      },
    });
    expect(parseKeyVaultKeyUri(cmk.properties!.uri!)).toEqual({
      vaultName: "kv-kc-healthy",
      host: "kv-kc-healthy.vault.azure.net",
      managedHsm: false,
      keyName: "tde-healthy",
      version: "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    });
    expect(await h.sql.listEncryptionProtectors(server("sql-kc-healthy"))).toEqual([cmk]);
    const locked = await h.sql.getEncryptionProtector(server("sql-kc-vault-unreadable"));
    expect(parseKeyVaultKeyUri(locked.properties!.uri!)?.vaultName).toBe("kv-kc-locked");
    expect(h.logger.warnings).toEqual([]);
  });

  it("lists a server's keys: the service-managed one first, then its Key Vault keys; gets one by name", async () => {
    const keys = await h.sql.listServerKeys(server("sql-kc-healthy"));
    expect(keys.map((k) => [k.name, k.properties?.serverKeyType])).toEqual([
      ["ServiceManaged", "ServiceManaged"],
      ["kv-kc-healthy_tde-healthy_00112233445566778899aabbccddeeff", "AzureKeyVault"],
      ["kv-kc-healthy_tde-healthy_0a1b2c3d4e5f60718293a4b5c6d7e8f9", "AzureKeyVault"],
    ]);
    const older = keys[1];
    expect(Date.now() - Date.parse(older.properties!.creationDate!)).toBeGreaterThan(399 * 86_400_000);
    expect(await h.sql.getServerKey(server("sql-kc-healthy"), "KV-KC-HEALTHY_tde-healthy_00112233445566778899AABBCCDDEEFF")).toEqual(older);
    expect(await h.sql.getServerKey(server("sql-kc-service-managed"), "ServiceManaged")).toMatchObject({
      kind: "servicemanaged",
      properties: { serverKeyType: "ServiceManaged" },
    });
    expect(await h.sql.listServerKeys(server("sql-kc-service-managed"))).toHaveLength(1);
    expect(h.logger.warnings).toEqual([]);
  });

  it("sends exactly the specs' requests, the protector at 2021-11-01 and server keys at 2015-05-01-preview, in either namespace spelling", async () => {
    for (const naming of ["real", "described"] as const) {
      const rec = recordingDispatcher();
      try {
        const client = new SqlClient(h.options({ dispatcher: rec.dispatcher, naming }));
        await client.listEncryptionProtectors(server("sql-kc-healthy"));
        await client.getEncryptionProtector(server("sql-kc-healthy"));
        await client.listServerKeys(server("sql-kc-healthy"));
        await client.getServerKey(server("sql-kc-healthy"), "ServiceManaged");
        const base = `/subscriptions/${SUB}/resourceGroups/rg-kc-data/providers/${naming === "real" ? "Microsoft.Sql" : "Provider.Sql"}/servers/sql-kc-healthy`;
        expect(rec.sent).toEqual([
          `GET ${base}/encryptionProtector?api-version=2021-11-01`,
          `GET ${base}/encryptionProtector/current?api-version=2021-11-01`,
          `GET ${base}/keys?api-version=2015-05-01-preview`,
          `GET ${base}/keys/ServiceManaged?api-version=2015-05-01-preview`,
        ]);
      } finally {
        await rec.close();
      }
    }
  });

  it("the TDE calls still speak 2014-04-01 beside them", async () => {
    const rec = recordingDispatcher();
    try {
      const client = new SqlClient(h.options({ dispatcher: rec.dispatcher }));
      const ref = { ...server("sql-kc-healthy"), database: "app" };
      expect((await client.getTransparentDataEncryption(ref)).properties?.status).toBe("Enabled");
      await client.getEncryptionProtector(server("sql-kc-healthy"));
      expect(rec.sent.map((s) => s.slice(s.indexOf("api-version=")))).toEqual(["api-version=2014-04-01", "api-version=2021-11-01"]);
    } finally {
      await rec.close();
    }
  });

  it("404s name the server or key; an unknown group is ResourceGroupNotFound", async () => {
    const cases: [Promise<unknown>, string, string][] = [
      [h.sql.getEncryptionProtector(server("sql-kc-gone")), "EncryptionProtectors_Get", "'Microsoft.Sql/servers/sql-kc-gone'"],
      [h.sql.listEncryptionProtectors(server("sql-kc-gone")), "EncryptionProtectors_ListByServer", "'Microsoft.Sql/servers/sql-kc-gone'"],
      [h.sql.listServerKeys(server("sql-kc-gone")), "ServerKeys_ListByServer", "'Microsoft.Sql/servers/sql-kc-gone'"],
      [
        h.sql.getServerKey(server("sql-kc-healthy"), "kv_nope_1"),
        "ServerKeys_Get",
        "'Microsoft.Sql/servers/sql-kc-healthy/keys/kv_nope_1'",
      ],
    ];
    for (const [p, operation, name] of cases) {
      const e = (await p.catch((x: unknown) => x)) as ApiError;
      expect(e).toBeInstanceOf(ApiError);
      expect(e).toMatchObject({ status: 404, code: "ResourceNotFound", operation });
      expect(e.message).toContain(name);
    }
    const rg = (await h.sql.getEncryptionProtector(server("sql-kc-healthy", "rg-nowhere")).catch((x: unknown) => x)) as ApiError;
    expect(rg).toMatchObject({ status: 404, code: "ResourceGroupNotFound" });
  });

  it("the emulator answers the protector in each version's shape: no autoRotationEnabled at 2015-05-01-preview, the published example's fields at 2021-11-01", async () => {
    const path = `${sqlServerId(server("sql-kc-healthy"))}/encryptionProtector/current`;
    const old = await h.get(path, "2015-05-01-preview");
    expect(old.status).toBe(200);
    expect(Object.keys((old.body as { properties: object }).properties).sort()).toEqual([
      "serverKeyName",
      "serverKeyType",
      "thumbprint",
      "uri",
    ]);
    const current = await h.get(path, "2021-11-01");
    const props = (current.body as { properties: Record<string, unknown> }).properties;
    expect(props.autoRotationEnabled).toBe(true);
    // Every field of the published 2021-11-01 example (specs/sql/Microsoft.Sql/stable/2021-11-01/examples/EncryptionProtectorGet.json) is there.
    const example = JSON.parse(
      readFileSync(join(__dirname, "../../../specs/sql/Microsoft.Sql/stable/2021-11-01/examples/EncryptionProtectorGet.json"), "utf8"),
    ) as { responses: { 200: { body: { properties: object } } } };
    for (const k of Object.keys(example.responses[200].body.properties)) expect(props).toHaveProperty(k);
    const check = definitionValidator(SQL_ENCRYPTION_PROTECTORS_SPEC, "/definitions/EncryptionProtector");
    expect(check(example.responses[200].body)).toEqual({ valid: true, errors: [] });
    expect(check(current.body)).toEqual({ valid: true, errors: [] });
  });

  it("what it returns validates against the spec it sends for", async () => {
    const check = definitionValidator(SQL_ENCRYPTION_PROTECTORS_SPEC, "/definitions/EncryptionProtector");
    for (const name of ["sql-kc-service-managed", "sql-kc-healthy", "sql-kc-ec"]) {
      expect(check(await h.sql.getEncryptionProtector(server(name)))).toEqual({ valid: true, errors: [] });
    }
  });
});
