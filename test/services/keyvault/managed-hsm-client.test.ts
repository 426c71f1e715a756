import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/platform/http";
import { definitionValidator } from "../../../src/platform/schemas/swagger-schemas";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { MANAGED_HSM_API_VERSIONS } from "../../../src/services/keyvault/managed-hsm-api-versions";
import { managedHsmId, managedHsmKeyId } from "../../../src/services/keyvault/managed-hsm-ids";
import { MANAGED_HSM_KEYS_SPEC, MANAGED_HSM_SPEC } from "../../../src/services/keyvault/managed-hsm-types";
import { parseKeyVaultKeyUri } from "../../../src/services/keyvault/key-uri";
import { estate, startKeyCustody, SUB, type KeyCustodyHarness } from "./key-custody-kit";

/** The Managed HSM test estate: the emulator's managedHSMs and their keys, read by KeyVaultClient and checked against the spec. */
const HSM_ESTATE = join(__dirname, "../../fixtures/estates/managed-hsm.estate.yaml");
const DAY = 86_400;
const hsm = (name: string) => ({ subscriptionId: SUB, resourceGroup: "rg-hsm-keys", hsm: name });
const hsmKey = (name: string, key: string) => ({ ...hsm(name), key });
const hsmPath = (name: string) => managedHsmId(hsm(name));

describe("KeyVaultClient's Managed HSM reads against the Managed HSM estate", () => {
  let h: KeyCustodyHarness;
  beforeAll(async () => {
    h = await startKeyCustody(estate(HSM_ESTATE));
  });
  afterAll(async () => {
    await h.close();
  });

  it("lists the subscription's HSMs the identity may read, over pages; the refused one is left out", async () => {
    const all = await h.keyVault.listManagedHsmsBySubscription(SUB);
    expect(all.map((x) => x.name)).toEqual(["hsm-kc-healthy", "hsm-kc-nopurge"]);
    expect((await h.keyVault.listManagedHsmsByResourceGroup(SUB, "rg-hsm-keys")).map((x) => x.name)).toEqual([
      "hsm-kc-healthy",
      "hsm-kc-nopurge",
    ]);
    expect(h.logger.warnings).toEqual([]);
  });

  it("reads an HSM's recoverability and provisioning state, as the published example shapes it", async () => {
    const healthy = await h.keyVault.getManagedHsm(hsm("hsm-kc-healthy"));
    expect(healthy).toMatchObject({
      id: hsmPath("hsm-kc-healthy"),
      name: "hsm-kc-healthy",
      type: "Microsoft.KeyVault/managedHSMs",
      location: "westeurope",
      sku: { family: "B", name: "Standard_B1" },
      properties: {
        enableSoftDelete: true,
        softDeleteRetentionInDays: 30,
        enablePurgeProtection: true,
        hsmUri: "https://hsm-kc-healthy.managedhsm.azure.net/",
        provisioningState: "Succeeded",
        statusMessage: "ManagedHsm is functional.",
      },
    });
    // Purge protection off is reported false, not left out (ManagedHsm_Get.json does so).
    expect((await h.keyVault.getManagedHsm(hsm("hsm-kc-nopurge"))).properties).toMatchObject({
      enableSoftDelete: true,
      softDeleteRetentionInDays: 90,
      enablePurgeProtection: false,
    });
    const read = await h.keyVault.readManagedHsm(hsm("hsm-kc-healthy"));
    expect(read.receipt).toMatchObject({ operation: "ManagedHsms_Get" });
    expect(h.logger.warnings).toEqual([]);
  });

  it("reads a key and its version: attributes in seconds since 1970, RSA-HSM 3072, the HSM's URI with :443", async () => {
    const now = Math.floor(Date.now() / 1000);
    const k = await h.keyVault.getManagedHsmKey(hsmKey("hsm-kc-healthy", "tde-hsm"));
    expect(k).toMatchObject({
      id: managedHsmKeyId(hsmKey("hsm-kc-healthy", "tde-hsm")),
      name: "tde-hsm",
      type: "Microsoft.KeyVault/managedHSMs/keys",
    });
    const p = k.properties!;
    expect(p).toMatchObject({ kty: "RSA-HSM", keySize: 3072, keyOps: ["wrapKey", "unwrapKey"] });
    expect(p.attributes).toMatchObject({ enabled: true, recoveryLevel: "Recoverable" });
    expect(Math.abs(p.attributes!.exp! - (now + 730 * DAY))).toBeLessThan(120);
    expect(p.rotationPolicy).toMatchObject({
      attributes: { expiryTime: "P2Y" },
      lifetimeActions: [{ trigger: { timeBeforeExpiry: "P60D" }, action: { type: "rotate" } }],
    });
    expect(p.keyUri).toBe("https://hsm-kc-healthy.managedhsm.azure.net:443/keys/tde-hsm");
    expect(parseKeyVaultKeyUri(p.keyUriWithVersion!)).toMatchObject({
      vaultName: "hsm-kc-healthy",
      managedHsm: true,
      version: "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    });

    const v = await h.keyVault.getManagedHsmKey(hsmKey("hsm-kc-healthy", "tde-hsm"), "0A1B2C3D4E5F60718293A4B5C6D7E8F9");
    expect(v).toMatchObject({ name: "0a1b2c3d4e5f60718293a4b5c6d7e8f9", type: "Microsoft.KeyVault/managedHSMs/keys/versions" });
    expect(v.properties).toEqual(p);
    const versions = await h.keyVault.listManagedHsmKeyVersions(hsmKey("hsm-kc-healthy", "tde-hsm"));
    expect(versions.map((x) => x.name)).toEqual(["0a1b2c3d4e5f60718293a4b5c6d7e8f9"]);
    const read = await h.keyVault.readManagedHsmKey(hsmKey("hsm-kc-healthy", "tde-hsm"), "0a1b2c3d4e5f60718293a4b5c6d7e8f9");
    expect(read.receipt).toMatchObject({ operation: "ManagedHsmKeys_GetVersion" });
    expect((await h.keyVault.getManagedHsmKey(hsmKey("hsm-kc-nopurge", "tde-nopurge"))).properties?.attributes?.recoveryLevel).toBe(
      "Recoverable+Purgeable",
    );
    expect(h.logger.warnings).toEqual([]);
  });

  it("answers 403 AuthorizationFailed for a refused HSM or key, 404 for a missing one, naming it", async () => {
    const refused = await h.keyVault.getManagedHsm(hsm("hsm-kc-locked")).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 403, code: "AuthorizationFailed" });
    expect((refused as ApiError).message).toContain("Microsoft.KeyVault/managedHSMs/read");
    const hidden = await h.keyVault.getManagedHsmKey(hsmKey("hsm-kc-healthy", "tde-hidden")).catch((e: unknown) => e);
    expect(hidden).toMatchObject({ status: 403, code: "AuthorizationFailed" });
    const gone = await h.keyVault.getManagedHsmKey(hsmKey("hsm-kc-healthy", "tde-gone")).catch((e: unknown) => e);
    expect(gone).toMatchObject({ status: 404, code: "ResourceNotFound" });
    const oldVersion = await h.keyVault.getManagedHsmKey(hsmKey("hsm-kc-healthy", "tde-hsm"), "f".repeat(32)).catch((e: unknown) => e);
    expect(oldVersion).toMatchObject({ status: 404 });
    const noGroup = await h.keyVault.getManagedHsm({ ...hsm("hsm-kc-healthy"), resourceGroup: "rg-nowhere" }).catch((e: unknown) => e);
    expect(noGroup).toMatchObject({ status: 404, code: "ResourceGroupNotFound" });
  });

  it("accepts the api-versions Azure's SDKs send for managedHSMs; keys from 2022-11-01 on", async () => {
    for (const version of MANAGED_HSM_API_VERSIONS) expect((await h.get(hsmPath("hsm-kc-healthy"), version)).status, version).toBe(200);
    expect((await h.get(`${hsmPath("hsm-kc-healthy")}/keys/tde-hsm`, "2022-11-01")).status).toBe(200);
    expect((await h.get(`${hsmPath("hsm-kc-healthy")}/keys/tde-hsm`, "2022-07-01")).body).toMatchObject({
      error: { code: "InvalidApiVersionParameter" },
    });
    expect((await h.get(hsmPath("hsm-kc-healthy"), "2019-09-01")).status).toBe(400);
  });

  it("its answers, and the published examples, are valid against managedHsm.json and keysManagedHsm.json", async () => {
    const hsmCheck = definitionValidator(MANAGED_HSM_SPEC, "/definitions/ManagedHsm");
    const keyCheck = definitionValidator(MANAGED_HSM_KEYS_SPEC, "/definitions/ManagedHsmKey");
    const answers = [
      [hsmCheck, (await h.get(hsmPath("hsm-kc-healthy"), "2023-07-01")).body],
      [keyCheck, (await h.get(`${hsmPath("hsm-kc-healthy")}/keys/tde-hsm`, "2023-07-01")).body],
      [keyCheck, (await h.get(`${hsmPath("hsm-kc-healthy")}/keys/tde-hsm/versions/0a1b2c3d4e5f60718293a4b5c6d7e8f9`, "2023-07-01")).body],
    ] as const;
    for (const [check, body] of answers) expect(check(body)).toEqual({ valid: true, errors: [] });
    const example = (name: string) =>
      (
        JSON.parse(readFileSync(join(PROJECT_ROOT, "specs/keyvault/2023-07-01/examples", name), "utf8")) as {
          responses: { "200": { body: unknown } };
        }
      ).responses["200"].body;
    expect(hsmCheck(example("ManagedHsm_Get.json")).valid).toBe(true);
    expect(keyCheck(example("managedHsmGetKey.json")).valid).toBe(true);
    expect(keyCheck(example("managedHsmGetKeyVersion.json")).valid).toBe(true);
  });
});
