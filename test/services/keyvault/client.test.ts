import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/platform/http";
import { KeyVaultClient } from "../../../src/services/keyvault/client";
import { parseKeyVaultKeyUri } from "../../../src/services/keyvault/key-uri";
import { keyVaultId, vaultKeyId, vaultKeyRefOf, vaultRefOf } from "../../../src/services/keyvault/vault-ids";
import { seedFromYaml } from "../../helpers/emulator";
import { DEV_ESTATE, estate, key, recordingDispatcher, startKeyCustody, SUB, vault, type KeyCustodyHarness } from "./key-custody-kit";

const DAY = 86_400;

describe("KeyVaultClient against the key-custody estate", () => {
  let h: KeyCustodyHarness;
  beforeAll(async () => {
    h = await startKeyCustody();
  });
  afterAll(async () => {
    await h.close();
  });

  it("reads a vault's recoverability: soft delete, retention, purge protection (absent when never turned on)", async () => {
    const healthy = await h.keyVault.getVault(vault("kv-kc-healthy"));
    expect(healthy).toMatchObject({
      id: keyVaultId(vault("kv-kc-healthy")),
      name: "kv-kc-healthy",
      type: "Microsoft.KeyVault/vaults",
      location: "westeurope",
      properties: {
        enableSoftDelete: true,
        softDeleteRetentionInDays: 90,
        enablePurgeProtection: true,
        vaultUri: "https://kv-kc-healthy.vault.azure.net/",
        sku: { family: "A", name: "standard" },
        provisioningState: "Succeeded",
      },
    });
    const noPurge = await h.keyVault.getVault(vault("kv-kc-nopurge"));
    expect(noPurge.properties?.enableSoftDelete).toBe(true);
    expect(noPurge.properties).not.toHaveProperty("enablePurgeProtection");
    const noSoftDelete = await h.keyVault.getVault(vault("kv-kc-nosoftdel"));
    expect(noSoftDelete.properties).not.toHaveProperty("enableSoftDelete");
    expect(noSoftDelete.properties).not.toHaveProperty("softDeleteRetentionInDays");
    expect(noSoftDelete.properties).not.toHaveProperty("enablePurgeProtection");
    expect(h.logger.warnings).toEqual([]);
  });

  it("reads a key's attributes (seconds since the epoch), type, size and rotation policy; a version by its id", async () => {
    const now = Math.floor(Date.now() / 1000);
    const k = await h.keyVault.getKey(key("kv-kc-healthy", "tde-healthy"));
    const p = k.properties!;
    expect(k).toMatchObject({
      id: vaultKeyId(key("kv-kc-healthy", "tde-healthy")),
      name: "tde-healthy",
      type: "Microsoft.KeyVault/vaults/keys",
    });
    expect(p).toMatchObject({ kty: "RSA", keySize: 2048, keyOps: ["wrapKey", "unwrapKey"] });
    expect(p.attributes).toMatchObject({ enabled: true, recoveryLevel: "Recoverable" });
    expect(Math.abs(p.attributes!.exp! - (now + 730 * DAY))).toBeLessThan(120);
    expect(Math.abs(p.attributes!.nbf! - (now - 30 * DAY))).toBeLessThan(120);
    expect(p.rotationPolicy).toMatchObject({
      attributes: { expiryTime: "P2Y" },
      lifetimeActions: [{ trigger: { timeBeforeExpiry: "P60D" }, action: { type: "rotate" } }],
    });
    // The management plane writes the port into the key's URIs, as its published example shows.
    expect(p.keyUri).toBe("https://kv-kc-healthy.vault.azure.net:443/keys/tde-healthy");
    expect(parseKeyVaultKeyUri(p.keyUriWithVersion!)).toMatchObject({
      vaultName: "kv-kc-healthy",
      keyName: "tde-healthy",
      version: "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    });

    const v = await h.keyVault.getKeyVersion(key("kv-kc-healthy", "tde-healthy"), "0A1B2C3D4E5F60718293A4B5C6D7E8F9");
    expect(v).toMatchObject({
      id: vaultKeyId(key("kv-kc-healthy", "tde-healthy"), undefined, "0a1b2c3d4e5f60718293a4b5c6d7e8f9"),
      name: "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
      type: "Microsoft.KeyVault/vaults/keys/versions",
    });
    expect(v.properties).toEqual(p);

    const ec = (await h.keyVault.getKey(key("kv-kc-healthy", "tde-ec-p256"))).properties!;
    expect(ec).toMatchObject({ kty: "EC", curveName: "P-256", keyOps: ["sign", "verify"] });
    expect(ec).not.toHaveProperty("keySize");
    expect((await h.keyVault.getKey(key("kv-kc-healthy", "tde-disabled"))).properties?.attributes?.enabled).toBe(false);
    const expired = (await h.keyVault.getKey(key("kv-kc-healthy", "tde-expired"))).properties!.attributes!;
    expect(expired.exp!).toBeLessThan(now);
    const future = (await h.keyVault.getKey(key("kv-kc-healthy", "tde-future"))).properties!.attributes!;
    expect(future.nbf!).toBeGreaterThan(now);
    expect((await h.keyVault.getKey(key("kv-kc-nosoftdel", "tde-nosoftdel"))).properties?.attributes?.recoveryLevel).toBe("Purgeable");
    expect((await h.keyVault.getKey(key("kv-kc-nopurge", "tde-nopurge"))).properties?.attributes?.recoveryLevel).toBe(
      "Recoverable+Purgeable",
    );
    expect(h.logger.warnings).toEqual([]);
  });

  it("follows nextLink through lists: the vaults of a subscription and of a group, a vault's keys", async () => {
    const rec = recordingDispatcher();
    try {
      const client = new KeyVaultClient(h.options({ dispatcher: rec.dispatcher }));
      const keys = await client.listKeys(vault("kv-kc-healthy"));
      // Eight keys, one of which the identity may not read: seven, over two pages of four.
      expect(keys.map((k) => k.name)).toEqual([
        "tde-healthy",
        "tde-expired",
        "tde-expiring",
        "tde-disabled",
        "tde-future",
        "tde-ec-p256",
        "tde-rsa4096",
      ]);
      expect(rec.sent.filter((s) => s.includes("/keys?"))).toHaveLength(2);
      const all = await client.listVaultsBySubscription(SUB);
      expect(all.map((v) => v.name).sort()).toEqual(["kv-kc-healthy", "kv-kc-nopurge", "kv-kc-nosoftdel"]);
      expect((await client.listVaultsByResourceGroup(SUB, "rg-kc-keys")).map((v) => v.name)).toEqual([
        "kv-kc-healthy",
        "kv-kc-nopurge",
        "kv-kc-nosoftdel",
      ]);
      expect(await client.listVaultsByResourceGroup(SUB, "rg-kc-locked")).toEqual([]);
      const pages: number[] = [];
      for await (const page of client.vaultPagesBySubscription(SUB)) pages.push(page.length);
      expect(pages).toEqual([3]);
    } finally {
      await rec.close();
    }
  });

  it("sends exactly the spec's requests: paths and api-version 2023-07-01, Microsoft.KeyVault whatever the naming", async () => {
    const rec = recordingDispatcher();
    try {
      const client = new KeyVaultClient(h.options({ dispatcher: rec.dispatcher, naming: "described" }));
      await client.getVault(vault("kv-kc-healthy"));
      await client.getKey(key("kv-kc-healthy", "tde-healthy"));
      await client.getKeyVersion(key("kv-kc-healthy", "tde-healthy"), "0a1b2c3d4e5f60718293a4b5c6d7e8f9");
      await client.listKeys(vault("kv-kc-nopurge"));
      await client.listVaultsBySubscription(SUB);
      await client.listVaultsByResourceGroup(SUB, "rg-kc-keys");
      const rg = `/subscriptions/${SUB}/resourceGroups/rg-kc-keys/providers/Microsoft.KeyVault/vaults`;
      expect(rec.sent).toEqual([
        `GET ${rg}/kv-kc-healthy?api-version=2023-07-01`,
        `GET ${rg}/kv-kc-healthy/keys/tde-healthy?api-version=2023-07-01`,
        `GET ${rg}/kv-kc-healthy/keys/tde-healthy/versions/0a1b2c3d4e5f60718293a4b5c6d7e8f9?api-version=2023-07-01`,
        `GET ${rg}/kv-kc-nopurge/keys?api-version=2023-07-01`,
        `GET /subscriptions/${SUB}/providers/Microsoft.KeyVault/vaults?api-version=2023-07-01`,
        `GET ${rg}?api-version=2023-07-01`,
      ]);
    } finally {
      await rec.close();
    }
  });

  it("a vault or key the identity may not read is an ApiError 403 AuthorizationFailed naming the action and scope", async () => {
    const oid = await h.objectId();
    const lockedVault = (await h.keyVault.getVault(vault("kv-kc-locked", "rg-kc-locked")).catch((e: unknown) => e)) as ApiError;
    expect(lockedVault).toBeInstanceOf(ApiError);
    expect(lockedVault).toMatchObject({ status: 403, code: "AuthorizationFailed", operation: "Vaults_Get" });
    expect(lockedVault.message).toContain(`with object id '${oid}'`);
    expect(lockedVault.message).toContain(
      `'Microsoft.KeyVault/vaults/read' over scope '${keyVaultId(vault("kv-kc-locked", "rg-kc-locked"))}'`,
    );
    const lockedKey = (await h.keyVault.getKey(key("kv-kc-locked", "tde-locked", "rg-kc-locked")).catch((e: unknown) => e)) as ApiError;
    expect(lockedKey).toMatchObject({ status: 403, code: "AuthorizationFailed", operation: "Keys_Get" });
    expect(lockedKey.message).toContain(
      `'Microsoft.KeyVault/vaults/keys/read' over scope '${vaultKeyId(key("kv-kc-locked", "tde-locked", "rg-kc-locked"))}'`,
    );
    const lockedList = (await h.keyVault.listKeys(vault("kv-kc-locked", "rg-kc-locked")).catch((e: unknown) => e)) as ApiError;
    expect(lockedList).toMatchObject({ status: 403, code: "AuthorizationFailed", operation: "Keys_List" });
    const hidden = (await h.keyVault.getKey(key("kv-kc-healthy", "tde-hidden")).catch((e: unknown) => e)) as ApiError;
    expect(hidden).toMatchObject({ status: 403, code: "AuthorizationFailed" });
    const hiddenVersion = (await h.keyVault
      .getKeyVersion(key("kv-kc-healthy", "tde-hidden"), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
      .catch((e: unknown) => e)) as ApiError;
    expect(hiddenVersion).toMatchObject({ status: 403, operation: "Keys_GetVersion" });
  });

  it("404s name what is missing: the vault, the key, the version; an unknown group is ResourceGroupNotFound", async () => {
    const cases: [Promise<unknown>, string, string][] = [
      [h.keyVault.getVault(vault("kv-kc-gone")), "Vaults_Get", "'Microsoft.KeyVault/vaults/kv-kc-gone'"],
      [h.keyVault.getKey(key("kv-kc-healthy", "tde-gone")), "Keys_Get", "'Microsoft.KeyVault/vaults/kv-kc-healthy/keys/tde-gone'"],
      [
        h.keyVault.getKeyVersion(key("kv-kc-healthy", "tde-healthy"), "ffffffffffffffffffffffffffffffff"),
        "Keys_GetVersion",
        "versions/ffffffffffffffffffffffffffffffff'",
      ],
      [h.keyVault.listKeys(vault("kv-kc-gone")), "Keys_List", "'Microsoft.KeyVault/vaults/kv-kc-gone'"],
    ];
    for (const [p, operation, name] of cases) {
      const e = (await p.catch((x: unknown) => x)) as ApiError;
      expect(e).toBeInstanceOf(ApiError);
      expect(e).toMatchObject({ status: 404, code: "ResourceNotFound", operation });
      expect(e.message).toContain(name);
    }
    const rg = (await h.keyVault.getVault(vault("kv-kc-healthy", "rg-nowhere")).catch((x: unknown) => x)) as ApiError;
    expect(rg).toMatchObject({ status: 404, code: "ResourceGroupNotFound" });
    expect((await h.keyVault.listVaultsBySubscription("11111111-1111-1111-1111-111111111111")).length).toBe(0);
  });

  it("ids parse back into refs, tolerantly (case, encoding, a version's id)", () => {
    const ref = key("kv-kc-healthy", "tde-healthy");
    expect(vaultRefOf(keyVaultId(ref))).toEqual(vault("kv-kc-healthy"));
    expect(vaultKeyRefOf(vaultKeyId(ref, undefined, "0a1b"))).toEqual(ref);
    expect(vaultKeyRefOf(vaultKeyId(ref).toUpperCase().replace("KV-KC-HEALTHY", "kv-kc-healthy"))).toMatchObject({
      vault: "kv-kc-healthy",
    });
    expect(vaultRefOf("/subscriptions/s/resourceGroups/g/providers/Microsoft.Sql/servers/x")).toBeUndefined();
    expect(vaultKeyRefOf(keyVaultId(ref))).toBeUndefined();
  });
});

describe("readDenied by principal", () => {
  it("refuses only the principals it lists", async () => {
    const seed = (denied: string) =>
      seedFromYaml(`
keyvault:
  vaults:
    - name: kv-principals
      resourceGroup: rg-p
      readDenied: [${denied}]
      keys: [{ name: k1 }]
`);
    const other = await startKeyCustody(seed("11111111-2222-3333-4444-555555555555"));
    try {
      expect((await other.keyVault.getVault(vault("kv-principals", "rg-p"))).name).toBe("kv-principals");
      expect(await other.keyVault.listKeys(vault("kv-principals", "rg-p"))).toHaveLength(1);
      const mine = await startKeyCustody(seed(await other.objectId()));
      try {
        const e = (await mine.keyVault.getVault(vault("kv-principals", "rg-p")).catch((x: unknown) => x)) as ApiError;
        expect(e).toMatchObject({ status: 403, code: "AuthorizationFailed" });
        expect(await mine.keyVault.listVaultsBySubscription(SUB)).toEqual([]);
      } finally {
        await mine.close();
      }
    } finally {
      await other.close();
    }
  });
});

describe("the default estate (stacks/dev.estate.yaml)", () => {
  it("keeps sql-prod-1's protector key in kv-prod-tde: RSA-HSM 3072, enabled, active, expiring in about two years, soft delete and purge protection", async () => {
    const h = await startKeyCustody(estate(DEV_ESTATE));
    try {
      const protector = await h.sql.getEncryptionProtector({ subscriptionId: SUB, resourceGroup: "rg-data", server: "sql-prod-1" });
      expect(protector.properties).toMatchObject({ serverKeyType: "AzureKeyVault" });
      const uri = parseKeyVaultKeyUri(protector.properties!.uri!)!;
      const v = (await h.keyVault.listVaultsBySubscription(SUB)).find((x) => x.name === uri.vaultName)!;
      expect(v.properties).toMatchObject({
        enableSoftDelete: true,
        enablePurgeProtection: true,
        softDeleteRetentionInDays: 90,
        sku: { name: "premium" },
      });
      const ref = { ...vaultRefOf(v.id)!, key: uri.keyName };
      const k = await h.keyVault.getKeyVersion(ref, uri.version!);
      const now = Math.floor(Date.now() / 1000);
      expect(k.properties).toMatchObject({ kty: "RSA-HSM", keySize: 3072, attributes: { enabled: true } });
      expect(k.properties!.attributes!.nbf!).toBeLessThan(now);
      expect(k.properties!.attributes!.exp! - now).toBeGreaterThan(700 * DAY);
      const other = await h.sql.getEncryptionProtector({ subscriptionId: SUB, resourceGroup: "rg-data", server: "sql-prod-2" });
      expect(other.properties).toMatchObject({ serverKeyType: "ServiceManaged", serverKeyName: "ServiceManaged" });
      expect(h.logger.warnings).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
