import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectKeyVaultInventory } from "../../../src/domain/inventory/key-vault-inventory";
import { estate, startKeyCustody, type KeyCustodyHarness } from "../../services/keyvault/key-custody-kit";

/**
 * The key vault part of `inventory` over vaults in several subscriptions (issue 33, item 6), against
 * test/fixtures/estates/database-keys.estate.yaml: a vault is looked for in the stack's subscription,
 * then in the next one, and read where it is found; one no subscription lists is an error naming both.
 */
const ESTATE = join(__dirname, "../../fixtures/estates/database-keys.estate.yaml");
const HOME = "00000000-0000-0000-0000-000000000000";
const REMOTE = "11111111-1111-1111-1111-111111111111";
const protector = (uri: string) => ({ id: uri, properties: { serverKeyType: "AzureKeyVault", uri } });

let h: KeyCustodyHarness;
beforeAll(async () => {
  h = await startKeyCustody(estate(ESTATE));
});
afterAll(async () => {
  await h?.close();
});

describe("collectKeyVaultInventory over several subscriptions", () => {
  const protectors = [
    protector("https://kv-dk-home.vault.azure.net/keys/tde-server/0123456789abcdef0123456789abcdef"),
    protector("https://kv-dk-remote.vault.azure.net/keys/tde-billing/22222222222222222222222222222222"),
    protector("https://kv-dk-missing.vault.azure.net/keys/tde-gone/44444444444444444444444444444444"),
  ];

  it("finds each vault in the first subscription that lists it and reads it and its key there", async () => {
    const { inventory, errors } = await collectKeyVaultInventory(h.keyVault, [HOME, REMOTE], protectors);
    expect(inventory.vaults.map((v) => v.id)).toEqual([
      `/subscriptions/${HOME}/resourceGroups/rg-dk-keys/providers/Microsoft.KeyVault/vaults/kv-dk-home`,
      `/subscriptions/${REMOTE}/resourceGroups/rg-dk-keys/providers/Microsoft.KeyVault/vaults/kv-dk-remote`,
    ]);
    expect(inventory.keys.map((k) => k.id.split("/keys/")[1])).toEqual([
      "tde-server/versions/0123456789abcdef0123456789abcdef",
      "tde-billing/versions/22222222222222222222222222222222",
    ]);
    expect(inventory.keys[1].id).toMatch(new RegExp(`^/subscriptions/${REMOTE}/`));
    expect(errors.map((e) => `${e.resource} ${e.code}: ${e.message}`)).toEqual([
      `key vault kv-dk-missing VaultNotListed: Resource Manager lists no vault named 'kv-dk-missing' in subscriptions '${HOME}', '${REMOTE}' that this identity may read`,
    ]);
  });

  it("with the stack's subscription alone, the second subscription's vault is not listed", async () => {
    const { inventory, errors } = await collectKeyVaultInventory(h.keyVault, HOME, protectors);
    expect(inventory.vaults).toHaveLength(1);
    expect(errors.map((e) => e.resource)).toEqual(["key vault kv-dk-remote", "key vault kv-dk-missing"]);
  });
});
