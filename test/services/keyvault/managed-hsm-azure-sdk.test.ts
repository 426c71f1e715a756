import { KeyVaultManagementClient } from "@azure/arm-keyvault";
import type { TokenCredential } from "@azure/core-auth";
import { createDefaultHttpClient, type HttpClient } from "@azure/core-rest-pipeline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_ESTATE, estate, startKeyCustody, SUB, type KeyCustodyHarness } from "./key-custody-kit";

/**
 * Azure's JS SDK (@azure/arm-keyvault) reads the emulator's Managed HSMs and their keys: the
 * client, its bearer-token policy, its (de)serialisation and paging are the SDK's own. Two things
 * meet the emulator halfway, and only those:
 * - The SDK's bearer policy refuses any URL that is not https, and the emulator speaks http; so the
 *   SDK is pointed at Azure's own endpoint, and the last hop (its HTTP client) sends each request
 *   to the emulator instead. Everything before that hop runs as against Azure.
 * - 5.0.0 sends api-version 2026-02-01 by default (the emulator answers it, as it answers every
 *   version Azure publishes: test/emulator/azure-sdk-default-versions.test.ts); here the client is
 *   asked for 2023-07-01, the spec folder shipped in this repository, so answers can be checked against it.
 */
const AZURE = "https://management.azure.com";

describe("@azure/arm-keyvault against the emulator's managed HSMs (the dev estate)", () => {
  let h: KeyCustodyHarness;
  let client: KeyVaultManagementClient;
  const sent: string[] = [];

  beforeAll(async () => {
    h = await startKeyCustody(estate(DEV_ESTATE));
    const inner = createDefaultHttpClient();
    const toEmulator: HttpClient = {
      sendRequest: (request) => {
        sent.push(`${request.method} ${request.url}`);
        request.url = request.url.replace(AZURE, h.url);
        // The emulator's plain http, on this last hop only: the bearer policy has already seen https.
        request.allowInsecureConnection = true;
        return inner.sendRequest(request);
      },
    };
    // The emulator IMDS's managed identity, as a TokenCredential of @azure/core-auth.
    const credential: TokenCredential = {
      getToken: async (scopes) => {
        const t = await h.credential.getToken(scopes);
        return { token: t.token, expiresOnTimestamp: t.expiresOnTimestamp };
      },
    };
    client = new KeyVaultManagementClient(credential, SUB, { endpoint: AZURE, apiVersion: "2023-07-01", httpClient: toEmulator });
  });
  afterAll(async () => {
    await h.close();
  });

  it("lists the subscription's managed HSMs and gets one: its soft delete, retention, purge protection and state", async () => {
    const listed = [];
    for await (const x of client.managedHsms.listBySubscription()) listed.push(x);
    expect(listed.map((x) => x.name)).toEqual(["hsm-prod-tde"]);
    const hsm = await client.managedHsms.get("rg-security", "hsm-prod-tde");
    expect(hsm).toMatchObject({
      id: `/subscriptions/${SUB}/resourceGroups/rg-security/providers/Microsoft.KeyVault/managedHSMs/hsm-prod-tde`,
      name: "hsm-prod-tde",
      type: "Microsoft.KeyVault/managedHSMs",
      location: "eastus",
      sku: { family: "B", name: "Standard_B1" },
      properties: {
        enableSoftDelete: true,
        softDeleteRetentionInDays: 90,
        enablePurgeProtection: true,
        provisioningState: "Succeeded",
        hsmUri: "https://hsm-prod-tde.managedhsm.azure.net/",
      },
    });
    const inGroup = [];
    for await (const x of client.managedHsms.listByResourceGroup("rg-security")) inGroup.push(x.name);
    expect(inGroup).toEqual(["hsm-prod-tde"]);
  });

  it("gets sql-prod-3's protector key, its version, and lists its versions", async () => {
    const key = await client.managedHsmKeys.get("rg-security", "hsm-prod-tde", "sql-prod-3-tde");
    // The SDK flattens `properties` (x-ms-client-flatten) and names nbf/exp notBefore/expires (seconds since 1970).
    expect(key).toMatchObject({
      name: "sql-prod-3-tde",
      type: "Microsoft.KeyVault/managedHSMs/keys",
      kty: "RSA-HSM",
      keySize: 3072,
      keyOps: ["wrapKey", "unwrapKey"],
      attributes: { enabled: true, recoveryLevel: "Recoverable" },
      keyUri: "https://hsm-prod-tde.managedhsm.azure.net:443/keys/sql-prod-3-tde",
    });
    expect(key.attributes!.expires!).toBeGreaterThan(Date.now() / 1000 + 700 * 86_400);
    const version = await client.managedHsmKeys.getVersion(
      "rg-security",
      "hsm-prod-tde",
      "sql-prod-3-tde",
      "9d2e7c1b5a4f4e8c9b3a6d0f2e1c7b5a",
    );
    expect(version).toMatchObject({ name: "9d2e7c1b5a4f4e8c9b3a6d0f2e1c7b5a", type: "Microsoft.KeyVault/managedHSMs/keys/versions" });
    const versions = [];
    for await (const v of client.managedHsmKeys.listVersions("rg-security", "hsm-prod-tde", "sql-prod-3-tde")) versions.push(v.name);
    expect(versions).toEqual(["9d2e7c1b5a4f4e8c9b3a6d0f2e1c7b5a"]);
  });

  it("sent every request to Azure's endpoint at api-version 2023-07-01, with the SDK's own paths", () => {
    expect(sent.length).toBeGreaterThanOrEqual(6);
    for (const line of sent) expect(line).toMatch(/^GET https:\/\/management\.azure\.com\/subscriptions\/.*[?&]api-version=2023-07-01/);
    expect(sent).toContain(`GET ${AZURE}/subscriptions/${SUB}/providers/Microsoft.KeyVault/managedHSMs?api-version=2023-07-01`);
  });
});
