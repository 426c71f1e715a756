import { mapBounded } from "../../platform/bounded-map";
import type { Key, Vault, VaultKeyRef, VaultRef } from "../../services/keyvault/types";
import { keyVaultId, subscriptionVaultsPath, vaultKeyId, vaultRefOf } from "../../services/keyvault/vault-ids";
import type { EncryptionProtector } from "../../services/sql/key-custody-types";
import { protectorKeyOf, VAULT_NOT_LISTED } from "../facts/key-custody-reads";
import { inventoryError, type InventoryError } from "./read-problems";

/** The reads of the Key Vault inventory: the Key Vault client satisfies it (the domain names no client class). */
export interface KeyVaultInventoryReads {
  listVaultsBySubscription(subscriptionId: string, signal?: AbortSignal): Promise<Vault[]>;
  getVault(ref: VaultRef, signal?: AbortSignal): Promise<Vault>;
  getKey(ref: VaultKeyRef, signal?: AbortSignal): Promise<Key>;
  getKeyVersion(ref: VaultKeyRef, version: string, signal?: AbortSignal): Promise<Key>;
}

/** The Key Vault resources the stack's TDE protectors name, each as the API returned it. */
export interface KeyVaultInventory {
  /** Each vault a customer-managed protector's key is in, once. */
  vaults: Vault[];
  /** Each key version a customer-managed protector names, once (the current version for a versionless URI). */
  keys: Key[];
}

/**
 * Reads the vaults and keys of the customer-managed protectors given: the vaults of the first of
 * `subscriptions` (the stack's, then `stackwarden:keyVaultSubscriptions`) are listed to find each
 * vault's resource group (a protector names its vault only by its key URI's host), the next one's
 * only for vaults not found yet; then each distinct vault and key version is read where it was found.
 * A read that fails, and a vault no listing shows, are entries of `errors`; everything else is still read.
 */
export async function collectKeyVaultInventory(
  keyVault: KeyVaultInventoryReads,
  subscriptions: string | readonly string[],
  protectors: readonly EncryptionProtector[],
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<{ inventory: KeyVaultInventory; errors: InventoryError[] }> {
  const errors: InventoryError[] = [];
  const subs = typeof subscriptions === "string" ? [subscriptions] : subscriptions;
  const keys = new Map(
    protectors
      .flatMap((p) => protectorKeyOf(p) ?? [])
      .filter((k) => !k.managedHsm)
      .map((k) => [k.identity, k]),
  );
  if (keys.size === 0) return { inventory: { vaults: [], keys: [] }, errors };
  const refs = new Map<string, VaultRef | undefined>([...keys.values()].map((k) => [k.vaultName, undefined]));
  for (const subscriptionId of subs) {
    const missing = [...refs.entries()].filter(([, ref]) => !ref).map(([name]) => name);
    if (missing.length === 0) break;
    let listed: Vault[];
    try {
      listed = await keyVault.listVaultsBySubscription(subscriptionId, opts.signal);
    } catch (e) {
      errors.push(inventoryError(`vaults of subscription ${subscriptionId}`, subscriptionVaultsPath(subscriptionId), e));
      return { inventory: { vaults: [], keys: [] }, errors };
    }
    for (const name of missing) {
      const v = listed.find((x) => (x.name ?? "").toLowerCase() === name);
      if (v?.id) refs.set(name, vaultRefOf(v.id));
    }
  }
  for (const [name, ref] of refs)
    if (!ref)
      errors.push({
        resource: `key vault ${name}`,
        id: `${subscriptionVaultsPath(subs[0])}/${name}`,
        operation: "Vaults_ListBySubscription",
        status: 0,
        code: VAULT_NOT_LISTED,
        message: `Resource Manager lists no vault named '${name}' in ${subs.length === 1 ? "subscription" : "subscriptions"} ${subs.map((x) => `'${x}'`).join(", ")} that this identity may read`,
      });
  const limit = opts.concurrency ?? 8;
  const located = [...refs.values()].filter((r): r is VaultRef => !!r);
  const vaults = await mapBounded(located, limit, async (ref) => {
    try {
      return [await keyVault.getVault(ref, opts.signal)];
    } catch (e) {
      errors.push(inventoryError(`key vault ${ref.resourceGroup}/${ref.vault}`, keyVaultId(ref), e));
      return [];
    }
  });
  const readable = [...keys.values()].filter((k) => refs.get(k.vaultName));
  const keyObjects = await mapBounded(readable, limit, async (k) => {
    const ref = { ...refs.get(k.vaultName)!, key: k.keyName };
    try {
      return [k.version ? await keyVault.getKeyVersion(ref, k.version, opts.signal) : await keyVault.getKey(ref, opts.signal)];
    } catch (e) {
      errors.push(
        inventoryError(`key ${k.vaultName}/${k.keyName}${k.version ? `/${k.version}` : ""}`, vaultKeyId(ref, undefined, k.version), e),
      );
      return [];
    }
  });
  return { inventory: { vaults: vaults.flat(), keys: keyObjects.flat() }, errors };
}
