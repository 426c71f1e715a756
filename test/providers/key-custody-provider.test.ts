import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyVaultState } from "../../src/emulator/services/keyvault/keyvault-state";
import type { CarrierToken } from "../../src/domain/facts/carrier";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { DynamicResourceDriver, PROJECT_ROOT, ProviderPlugin, UNKNOWN } from "../helpers/provider-plugin";
import { estate, SUB } from "../services/keyvault/key-custody-kit";

/**
 * The key-custody data sources through Pulumi's dynamic-provider plugin (a child process, driven over
 * gRPC as the engine drives it, with the compiled provider text), against the key-custody estate: a
 * TDE protector, its vault and its key are read, never written; a vault or key that cannot be read
 * is a `readError` output, not a failed resource.
 */
type Providers = { providerText(name: CarrierToken): string };
const compiled = () => require(join(PROJECT_ROOT, "dist/providers/index.js")) as Providers;

let t: TestEmulator;
let plugin: ProviderPlugin;
const driver = (kind: CarrierToken, name: string) =>
  new DynamicResourceDriver(plugin, compiled().providerText(kind), `pulumi-nodejs:dynamic/${kind}`, name);
const requests = () =>
  Object.entries(t.emu.stats.byRoute)
    .filter(([k]) => !k.includes(" /metadata/"))
    .reduce((n, [, v]) => n + v, 0);

beforeAll(async () => {
  t = await startTestEmulator({ seed: estate() });
  plugin = await ProviderPlugin.start({ env: { STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint } });
  await plugin.configure();
});

afterAll(async () => {
  await plugin?.close();
  await t?.close();
});

const server = (name: string) => ({ subscriptionId: SUB, resourceGroup: "rg-kc-data", server: name });
const serverId = (name: string) => `/subscriptions/${SUB}/resourceGroups/rg-kc-data/providers/Microsoft.Sql/servers/${name}`;

describe("EncryptionProtector", () => {
  it("Check, Create (one GET), Read by id, Diff, Delete (nothing sent)", async () => {
    const ds = driver("sql:EncryptionProtector", "tde-protector-healthy");
    const inputs = server("sql-kc-healthy");
    expect(await ds.check(inputs)).toEqual({ inputs, failures: [] });
    expect((await ds.check({ ...inputs, server: "", extra: "x" })).failures).toEqual([
      { property: "server", reason: "server is required and must be a non-empty string" },
      { property: "extra", reason: "unknown input" },
    ]);
    expect((await ds.check({ ...inputs, server: UNKNOWN })).failures).toEqual([]);

    const before = requests();
    const created = await ds.create(inputs);
    expect(requests() - before).toBe(1);
    expect(created.id).toBe(`${serverId("sql-kc-healthy")}/encryptionProtector/current`);
    expect(created.properties).toMatchObject({
      ...inputs,
      protector: {
        name: "current",
        properties: {
          serverKeyType: "AzureKeyVault",
          uri: "https://kv-kc-healthy.vault.azure.net/keys/tde-healthy/0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        },
      },
    });
    expect(await ds.diff(created.id, created.properties, inputs)).toMatchObject({ changes: "none", replaces: [] });
    expect(await ds.diff(created.id, created.properties, server("sql-kc-ec"))).toMatchObject({ changes: "some", replaces: ["server"] });

    const byId = await ds.read(created.id);
    expect(byId).toEqual({ id: created.id, properties: created.properties, inputs });

    const sent = requests();
    await ds.delete(created.id, created.properties);
    expect(requests()).toBe(sent);
  });

  it("a service-managed server reads as such", async () => {
    const created = await driver("sql:EncryptionProtector", "tde-protector-sm").create(server("sql-kc-service-managed"));
    expect(created.properties.protector).toMatchObject({
      properties: { serverKeyType: "ServiceManaged", serverKeyName: "ServiceManaged" },
    });
  });
});

describe("KeyVault and KeyVaultKey", () => {
  it("a vault found by name in the subscription's listing, then read; its resource group is an output", async () => {
    const ds = driver("keyvault:Vault", "keyvault-kv-kc-nopurge");
    const inputs = { subscriptionId: SUB, vault: "kv-kc-nopurge" };
    expect(await ds.check(inputs)).toEqual({ inputs, failures: [] });
    const created = await ds.create(inputs);
    const id = `/subscriptions/${SUB}/resourceGroups/rg-kc-keys/providers/Microsoft.KeyVault/vaults/kv-kc-nopurge`;
    expect(created.id).toBe(id);
    expect(created.properties).toMatchObject({ ...inputs, resourceGroup: "rg-kc-keys", vaultResource: { name: "kv-kc-nopurge" } });
    expect((created.properties.vaultResource as { properties: object }).properties).not.toHaveProperty("enablePurgeProtection");

    // Someone turns purge protection on: a refresh shows it, and Diff reports the change.
    const kv = t.emu.store.state.services.keyvault as KeyVaultState;
    kv.vaults.find((v) => v.name === "kv-kc-nopurge")!.enablePurgeProtection = true;
    t.emu.store.changed();
    expect(await ds.diff(id, created.properties, inputs)).toMatchObject({ changes: "some", replaces: [] });
    const refreshed = await ds.read(id, created.properties, inputs);
    expect((refreshed.properties.vaultResource as { properties: object }).properties).toMatchObject({ enablePurgeProtection: true });
    expect(refreshed.inputs).toEqual(inputs);
    expect((await ds.read(id)).inputs).toEqual(inputs);
  });

  it("a key version, read in the vault the listing places it in", async () => {
    const ds = driver("keyvault:Key", "keyvault-key-expired");
    const inputs = { subscriptionId: SUB, vault: "kv-kc-healthy", key: "tde-expired", version: "33333333333333333333333333333333" };
    expect(await ds.check(inputs)).toEqual({ inputs, failures: [] });
    const created = await ds.create(inputs);
    expect(created.id).toBe(
      `/subscriptions/${SUB}/resourceGroups/rg-kc-keys/providers/Microsoft.KeyVault/vaults/kv-kc-healthy/keys/tde-expired/versions/33333333333333333333333333333333`,
    );
    expect(created.properties).toMatchObject({ ...inputs, resourceGroup: "rg-kc-keys", keyResource: { properties: { kty: "RSA" } } });
    const exp = (created.properties.keyResource as { properties: { attributes: { exp: number } } }).properties.attributes.exp;
    expect(exp).toBeLessThan(Date.now() / 1000);
    expect((await ds.read(created.id)).inputs).toEqual(inputs);
  });

  it("a key the identity may not read (403) and a vault Resource Manager does not list are readError outputs, not failures", async () => {
    const hidden = await driver("keyvault:Key", "keyvault-key-hidden").create({
      subscriptionId: SUB,
      vault: "kv-kc-healthy",
      key: "tde-hidden",
      version: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    });
    expect(hidden.properties).not.toHaveProperty("keyResource");
    expect(hidden.properties.readError).toMatchObject({ status: 403, code: "AuthorizationFailed" });
    expect((hidden.properties.readError as { message: string }).message).toContain("client [principal] with object id [principal]");

    const locked = await driver("keyvault:Vault", "keyvault-kv-kc-locked").create({ subscriptionId: SUB, vault: "kv-kc-locked" });
    expect(locked.id).toBe(`/subscriptions/${SUB}/providers/Microsoft.KeyVault/vaults/kv-kc-locked`);
    expect(locked.properties.readError).toMatchObject({ code: "VaultNotListed" });
    expect((await driver("keyvault:Vault", "keyvault-kv-kc-locked").read(locked.id)).inputs).toEqual({
      subscriptionId: SUB,
      vault: "kv-kc-locked",
    });
  });

  it("the plugin is still up and logged no provider errors", () => {
    expect(plugin.running).toBe(true);
    expect(plugin.stderr.split("\n").filter((l) => l.trim())).toEqual([]);
  });
});
