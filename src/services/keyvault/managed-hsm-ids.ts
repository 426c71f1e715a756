import { parseResourceId, resourceGroupId, subscriptionId, type IdStyle } from "../../platform/arm/resource-id";
import type { ManagedHsmKeyRef, ManagedHsmRef } from "./managed-hsm-types";
import { KEYVAULT_NAMESPACE } from "./types";

/** Managed HSM's ARM ids (`…/providers/Microsoft.KeyVault/managedHSMs/<name>`), built and parsed as the vaults' are (vault-ids.ts). */

function part(value: string, style: IdStyle | undefined): string {
  return style?.encode ? encodeURIComponent(value) : value;
}

/** `/subscriptions/S/providers/Microsoft.KeyVault/managedHSMs`: every HSM of a subscription (a collection). */
export function subscriptionManagedHsmsPath(subscription: string, style?: IdStyle): string {
  return `${subscriptionId({ subscriptionId: subscription }, style)}/providers/${KEYVAULT_NAMESPACE}/managedHSMs`;
}

/** `/subscriptions/S/resourceGroups/G/providers/Microsoft.KeyVault/managedHSMs`: the HSMs of a resource group. */
export function resourceGroupManagedHsmsPath(scope: { subscriptionId: string; resourceGroup: string }, style?: IdStyle): string {
  return `${resourceGroupId(scope, style)}/providers/${KEYVAULT_NAMESPACE}/managedHSMs`;
}

/** An HSM: `/subscriptions/S/resourceGroups/G/providers/Microsoft.KeyVault/managedHSMs/H`. */
export function managedHsmId(ref: ManagedHsmRef, style?: IdStyle): string {
  return `${resourceGroupManagedHsmsPath(ref, style)}/${part(ref.hsm, style)}`;
}

/** A key of an HSM: `…/managedHSMs/H/keys/K`; with `version`, one version of it (`…/keys/K/versions/X`). */
export function managedHsmKeyId(ref: ManagedHsmKeyRef, style?: IdStyle, version?: string): string {
  const key = `${managedHsmId(ref, style)}/keys/${part(ref.key, style)}`;
  return version === undefined ? key : `${key}/versions/${part(version, style)}`;
}

/** The HSM an id names or lies under (an HSM, or a key of it), read tolerantly; undefined otherwise. */
export function managedHsmRefOf(id: string): ManagedHsmRef | undefined {
  const p = parseResourceId(id);
  if (!p?.resourceGroup || p.namespace?.toLowerCase() !== KEYVAULT_NAMESPACE.toLowerCase()) return undefined;
  const first = p.segments[0];
  if (first?.type.toLowerCase() !== "managedhsms" || !first.name) return undefined;
  return { subscriptionId: p.subscriptionId, resourceGroup: p.resourceGroup, hsm: first.name };
}

/** The HSM key an id names (a key, or a version of it), read tolerantly; undefined otherwise. */
export function managedHsmKeyRefOf(id: string): ManagedHsmKeyRef | undefined {
  const hsm = managedHsmRefOf(id);
  const second = parseResourceId(id)?.segments[1];
  if (!hsm || second?.type.toLowerCase() !== "keys" || !second.name) return undefined;
  return { ...hsm, key: second.name };
}
