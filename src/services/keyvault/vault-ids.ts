import { parseResourceId, resourceGroupId, subscriptionId, type IdStyle } from "../../platform/arm/resource-id";
import { KEYVAULT_NAMESPACE, type VaultKeyRef, type VaultRef } from "./types";

/**
 * Key Vault's ARM ids, built and parsed like the others (src/platform/arm/resource-id.ts) but with
 * the one namespace Key Vault has: the product's described spelling renames only Sql and BatchAI.
 */

function part(value: string, style: IdStyle | undefined): string {
  return style?.encode ? encodeURIComponent(value) : value;
}

/** `/subscriptions/S/providers/Microsoft.KeyVault/vaults`: every vault of a subscription (a collection). */
export function subscriptionVaultsPath(subscription: string, style?: IdStyle): string {
  return `${subscriptionId({ subscriptionId: subscription }, style)}/providers/${KEYVAULT_NAMESPACE}/vaults`;
}

/** `/subscriptions/S/resourceGroups/G/providers/Microsoft.KeyVault/vaults`: the vaults of a resource group (a collection). */
export function resourceGroupVaultsPath(scope: { subscriptionId: string; resourceGroup: string }, style?: IdStyle): string {
  return `${resourceGroupId(scope, style)}/providers/${KEYVAULT_NAMESPACE}/vaults`;
}

/** A vault: `/subscriptions/S/resourceGroups/G/providers/Microsoft.KeyVault/vaults/V`. */
export function keyVaultId(ref: VaultRef, style?: IdStyle): string {
  return `${resourceGroupVaultsPath(ref, style)}/${part(ref.vault, style)}`;
}

/** A key of a vault: `…/vaults/V/keys/K`; with `version`, one version of it (`…/keys/K/versions/X`). */
export function vaultKeyId(ref: VaultKeyRef, style?: IdStyle, version?: string): string {
  const key = `${keyVaultId(ref, style)}/keys/${part(ref.key, style)}`;
  return version === undefined ? key : `${key}/versions/${part(version, style)}`;
}

function isKeyVault(namespace: string | undefined): boolean {
  return namespace?.toLowerCase() === KEYVAULT_NAMESPACE.toLowerCase();
}

/** The vault an id names or lies under (a vault, or a key of it), read tolerantly; undefined otherwise. */
export function vaultRefOf(id: string): VaultRef | undefined {
  const p = parseResourceId(id);
  if (!p?.resourceGroup || !isKeyVault(p.namespace)) return undefined;
  const first = p.segments[0];
  if (first?.type.toLowerCase() !== "vaults" || !first.name) return undefined;
  return { subscriptionId: p.subscriptionId, resourceGroup: p.resourceGroup, vault: first.name };
}

/** The key an id names (a key, or a version of it), read tolerantly; undefined otherwise. */
export function vaultKeyRefOf(id: string): VaultKeyRef | undefined {
  const vault = vaultRefOf(id);
  const second = parseResourceId(id)?.segments[1];
  if (!vault || second?.type.toLowerCase() !== "keys" || !second.name) return undefined;
  return { ...vault, key: second.name };
}

/** `rg/vault` or `rg/vault/key`: how a vault or key is named in output. */
export function vaultLabel(ref: VaultRef | VaultKeyRef): string {
  return "key" in ref ? `${ref.resourceGroup}/${ref.vault}/${ref.key}` : `${ref.resourceGroup}/${ref.vault}`;
}
