import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyVaultState } from "../../src/emulator/services/keyvault/keyvault-state";
import type { CarrierToken } from "../../src/domain/facts/carrier";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { DynamicResourceDriver, PROJECT_ROOT, ProviderPlugin } from "../helpers/provider-plugin";
import { estate, SUB } from "../services/keyvault/key-custody-kit";

/**
 * The key-custody data sources of a Managed HSM (keyvault:Vault and keyvault:Key with the input
 * `kind: managedHsm`) through Pulumi's dynamic-provider plugin, driven over gRPC with the compiled
 * provider text, against the Managed HSM estate: read, never written; read again by id alone; an HSM
 * Resource Manager does not list is a `readError` output.
 */
type Providers = { providerText(name: CarrierToken): string };
const compiled = () => require(join(PROJECT_ROOT, "dist/providers/index.js")) as Providers;
const ESTATE = join(__dirname, "../fixtures/estates/managed-hsm.estate.yaml");
const HSMS = `/subscriptions/${SUB}/resourceGroups/rg-hsm-keys/providers/Microsoft.KeyVault/managedHSMs`;

let t: TestEmulator;
let plugin: ProviderPlugin;
const driver = (kind: CarrierToken, name: string) =>
  new DynamicResourceDriver(plugin, compiled().providerText(kind), `pulumi-nodejs:dynamic/${kind}`, name);

beforeAll(async () => {
  t = await startTestEmulator({ seed: estate(ESTATE) });
  plugin = await ProviderPlugin.start({ env: { STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint } });
  await plugin.configure();
});

afterAll(async () => {
  await plugin?.close();
  await t?.close();
});

describe("KeyVault and KeyVaultKey of kind managedHsm", () => {
  it("an HSM found by name in the subscription's HSM listing, then read; a refresh shows purge protection turned on", async () => {
    const ds = driver("keyvault:Vault", "managedhsm-hsm-kc-nopurge");
    const inputs = { subscriptionId: SUB, vault: "hsm-kc-nopurge", kind: "managedHsm" };
    expect(await ds.check(inputs)).toEqual({ inputs, failures: [] });
    const created = await ds.create(inputs);
    const id = `${HSMS}/hsm-kc-nopurge`;
    expect(created.id).toBe(id);
    expect(created.properties).toMatchObject({
      ...inputs,
      resourceGroup: "rg-hsm-keys",
      vaultResource: { type: "Microsoft.KeyVault/managedHSMs", properties: { enableSoftDelete: true, enablePurgeProtection: false } },
    });
    const kv = t.emu.store.state.services.keyvault as KeyVaultState;
    kv.managedHsms!.find((h) => h.name === "hsm-kc-nopurge")!.enablePurgeProtection = true;
    t.emu.store.changed();
    expect(await ds.diff(id, created.properties, inputs)).toMatchObject({ changes: "some", replaces: [] });
    const refreshed = await ds.read(id, created.properties, inputs);
    expect((refreshed.properties.vaultResource as { properties: object }).properties).toMatchObject({ enablePurgeProtection: true });
    expect((await ds.read(id)).inputs).toEqual(inputs);
  });

  it("an HSM key version, read in the HSM the listing places it in, and by its id alone", async () => {
    const ds = driver("keyvault:Key", "managedhsm-key-hsm-kc-healthy-tde-hsm");
    const inputs = {
      subscriptionId: SUB,
      vault: "hsm-kc-healthy",
      key: "tde-hsm",
      version: "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
      kind: "managedHsm",
    };
    const created = await ds.create(inputs);
    expect(created.id).toBe(`${HSMS}/hsm-kc-healthy/keys/tde-hsm/versions/0a1b2c3d4e5f60718293a4b5c6d7e8f9`);
    expect(created.properties).toMatchObject({
      ...inputs,
      resourceGroup: "rg-hsm-keys",
      keyResource: { properties: { kty: "RSA-HSM", keySize: 3072 } },
    });
    expect((await ds.read(created.id)).inputs).toEqual(inputs);
  });

  it("an HSM Resource Manager does not list is a readError output (ManagedHsmNotListed), its id the subscription's collection plus its name", async () => {
    const ds = driver("keyvault:Vault", "managedhsm-hsm-kc-locked");
    const locked = await ds.create({ subscriptionId: SUB, vault: "hsm-kc-locked", kind: "managedHsm" });
    expect(locked.id).toBe(`/subscriptions/${SUB}/providers/Microsoft.KeyVault/managedHSMs/hsm-kc-locked`);
    expect(locked.properties).not.toHaveProperty("vaultResource");
    expect(locked.properties.readError).toMatchObject({ code: "ManagedHsmNotListed" });
    expect((await ds.read(locked.id)).inputs).toEqual({ subscriptionId: SUB, vault: "hsm-kc-locked", kind: "managedHsm" });
  });

  it("the plugin is still up and logged no provider errors", () => {
    expect(plugin.running).toBe(true);
    expect(plugin.stderr.split("\n").filter((l) => l.trim())).toEqual([]);
  });
});
